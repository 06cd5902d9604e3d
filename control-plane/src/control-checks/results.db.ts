import type { SqlExecutor } from '../contracts.js';
import { addToRounds, insertChecks } from '../checks/check-rows.db.js';

/*
 * Results of the checks the control plane runs itself (heartbeat, domain_expiry) go into the same
 * check history as node results (checks/check-rows.db.ts): one series per monitor with no node
 * (0027_control_checks.sql), one check per (series, scheduled_at), and a one-report round that is
 * due for judging at once.
 */

/** One control-plane check result (docs/api/checks.md "Result", without assertions). */
export interface ControlCheckResult {
  monitor_id: string;
  /** The monitor's interval, s: the round's length in uptime. */
  interval_s: number;
  scheduled_at: Date;
  started_at: Date;
  finished_at: Date;
  success: boolean;
  error: string | null;
  error_class: string | null;
  /** The type's output; null when the check produced none (the look-up failed). */
  output: Record<string, unknown> | null;
}

/** The monitor's node-less series id, created on first use. */
async function controlSeriesId(tx: SqlExecutor, monitor_id: string): Promise<number> {
  const [made] = await tx<{ id: number }[]>`
    INSERT INTO check_series (monitor_id, node_id) VALUES (${monitor_id}, NULL)
    ON CONFLICT (monitor_id) WHERE node_id IS NULL DO NOTHING RETURNING id`;
  if (made) return made.id;
  const [found] = await tx<{ id: number }[]>`SELECT id FROM check_series WHERE monitor_id = ${monitor_id} AND node_id IS NULL`;
  return found!.id;
}

/**
 * Store one control-plane check result in `tx`, idempotently by (monitor, scheduled_at): a result
 * for a moment already stored is skipped (two instances detecting the same missed check-in store
 * it once). A new result adds a round of one report, judged by the verdict job like any other.
 * @returns true when stored now, false when it was stored before
 */
export async function storeControlCheck(tx: SqlExecutor, r: ControlCheckResult): Promise<boolean> {
  const series_id = await controlSeriesId(tx, r.monitor_id);
  const scheduled_at = r.scheduled_at.toISOString();
  const inserted = await insertChecks(tx, [{
    series_id, scheduled_at,
    start_offset_ms: r.started_at.getTime() - r.scheduled_at.getTime(),
    duration_ms: Math.max(0, r.finished_at.getTime() - r.started_at.getTime()),
    response_ms: null, success: r.success, error_class: r.error_class, error: r.error,
    assertions: null, output: r.output === null ? null : JSON.stringify(r.output),
  }]);
  if (inserted.size === 0) return false;
  await addToRounds(tx, [{
    monitor_id: r.monitor_id, scheduled_at, deadline_at: scheduled_at, interval_s: r.interval_s,
    expected: 1, reported: 1, failed: r.success ? 0 : 1,
  }]);
  return true;
}
