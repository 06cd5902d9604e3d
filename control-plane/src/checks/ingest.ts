import type { MonitorResultEnvelope, MonitorType } from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';
import type { MonitorResultStore, SqlExecutor } from '../contracts.js';
import { PLACEMENT_HISTORY_MS } from '../monitors/placement-job.js';
import { createSeries, ingestMonitors, storeNodeChecks, type IngestMonitorRow, type NodeCheckInsert } from './ingest.db.js';
import { encodeOutput } from './output-codec.js';
import { checkRetention } from './retention.js';
import { CHECK_TRAITS, roundDeadlineMs } from './traits.js';

/** Why a monitor result is refused (sent back to the node; it is acked, so the node drops it). */
export const CHECK_REJECT = {
  not_assigned: 'monitor not assigned to this node',
  type_mismatch: 'result type does not match the monitor type',
  too_old: 'round is older than the rounds retention (results are accepted for as long as rounds are kept)',
  in_future: 'scheduled_at lies more than a day in the future (is the node\'s clock set?)',
  far_start: 'started_at is more than a day away from scheduled_at',
} as const;

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** The error stored for a failed result that came without one. */
export const MISSING_ERROR = 'the node reported a failure without a reason';

/**
 * `error` and `error_class` that agree with `success` (docs/api/checks.md "Result": `error` is null
 * when up, else why): a success keeps no error; a failure without an error gets
 * {@link MISSING_ERROR} (class `internal`, unless the node gave one). A node's `success` is never
 * changed: it is what the verdict counts.
 */
export function agreeingOutcome(r: { success: boolean; error: string | null; error_class: string | null }): { error: string | null; error_class: string | null } {
  if (r.success) return { error: null, error_class: null };
  return { error: r.error === null || r.error.trim() === '' ? MISSING_ERROR : r.error, error_class: r.error_class ?? 'internal' };
}

/**
 * The check store (contracts.ts MonitorResultStore; docs/architecture/checks.md "Ingest"): what the
 * result sink hands every monitor result to. Per batch, two statements whatever its size: one
 * reads the monitors, the node's placements and series (and a monitor's config only when its
 * revision changed), one stores the checks (ON CONFLICT DO NOTHING on (series, scheduled_at)),
 * adds them to their rounds and marks ended hours for the rollup job (ingest.db.ts
 * storeNodeChecks). A node's first result of a monitor costs one more, creating its series.
 *
 * A result is refused ({@link CHECK_REJECT}) when its monitor is not placed on the node (nor was
 * within the placement history: monitors/placement-job.ts PLACEMENT_HISTORY_MS), when its type is
 * not the monitor's, when its round is older than the rounds retention or more than a day ahead, or
 * when it started more than a day from its round. Everything else counts as stored: newly, or
 * already (the same node's result for the same round, whatever its result id), so the node can
 * drop it. Rounds get the new reports and become due for judging (checks/decide.ts).
 *
 * `success` is stored as the node sent it; `error` and `error_class` are made to agree with it
 * ({@link agreeingOutcome}): the shared result schema does not tie them together.
 */
export function createCheckStore(deps: { config: Pick<Config, 'plan' | 'checks_retention_days' | 'checks_rounds_retention_days' | 'checks_rollup_retention_days' | 'checks_round_grace_ms'> }): MonitorResultStore {
  const retention_ms = checkRetention(deps.config).rounds_days * DAY_MS;
  const grace_ms = deps.config.checks_round_grace_ms;
  // monitor id → its revision and round deadline offset (ms after the round's start).
  const deadlines = new Map<string, { revision: number; ms: number }>();

  /** The round deadline offset of `m`, ms, remembered per revision (its config comes with a new revision only). */
  function deadlineMs(m: IngestMonitorRow): number {
    if (m.config !== null) {
      deadlines.set(m.id, { revision: m.revision, ms: roundDeadlineMs(m.type, m.config, m.interval_s, grace_ms) });
    }
    const known = deadlines.get(m.id);
    return known?.revision === m.revision ? known.ms : m.interval_s * 1000 + grace_ms;
  }

  async function store(tx: SqlExecutor, node_id: string, results: MonitorResultEnvelope[]) {
    const stored: string[] = [];
    const rejected: Array<{ result_id: string; reason: string }> = [];
    if (results.length === 0) return { stored, rejected };
    const now = Date.now();
    const ids = [...new Set(results.map((r) => r.monitor_id))];
    // Forgotten before the read, so the configs of this batch's monitors all come with it.
    if (deadlines.size > 100_000) deadlines.clear();
    const rows = await ingestMonitors(tx, node_id, ids, ids.map((id) => deadlines.get(id)?.revision ?? -1), PLACEMENT_HISTORY_MS);
    const monitors = new Map(rows.map((m) => [m.id, m]));

    const accepted: MonitorResultEnvelope[] = [];
    for (const r of results) {
      const m = monitors.get(r.monitor_id);
      const scheduled = Date.parse(r.scheduled_at);
      const reason = !m || !m.assigned ? CHECK_REJECT.not_assigned
        : m.type !== r.type ? `${CHECK_REJECT.type_mismatch} (${r.type} for a ${m.type} monitor)`
          : scheduled < now - retention_ms ? CHECK_REJECT.too_old
            : scheduled > now + DAY_MS ? CHECK_REJECT.in_future
              : Math.abs(Date.parse(r.started_at) - scheduled) > DAY_MS ? CHECK_REJECT.far_start : null;
      if (reason) rejected.push({ result_id: r.result_id, reason });
      else accepted.push(r);
    }
    if (accepted.length === 0) return { stored, rejected };

    const series = new Map<string, number>();
    for (const m of monitors.values()) if (m.series_id !== null) series.set(m.id, m.series_id);
    const missing = [...new Set(accepted.map((r) => r.monitor_id))].filter((id) => !series.has(id));
    if (missing.length > 0) for (const [id, s] of await createSeries(tx, node_id, missing)) series.set(id, s);

    // One row per (series, round): a round sent twice in one batch is stored once.
    const inserts = new Map<string, NodeCheckInsert>();
    const this_hour = Math.floor(now / HOUR_MS) * HOUR_MS;
    for (const r of accepted) {
      stored.push(r.result_id);
      const m = monitors.get(r.monitor_id)!;
      const series_id = series.get(r.monitor_id)!;
      const scheduled = Date.parse(r.scheduled_at);
      const key = `${series_id}/${scheduled}`;
      if (inserts.has(key)) continue;
      const started = Date.parse(r.started_at);
      const output = r.output as Record<string, unknown> | null;
      const hour = Math.floor(scheduled / HOUR_MS) * HOUR_MS;
      const scheduled_at = new Date(scheduled).toISOString();
      inserts.set(key, {
        series_id, scheduled_at, start_offset_ms: started - scheduled,
        duration_ms: Date.parse(r.finished_at) - started, response_ms: CHECK_TRAITS[r.type].responseMs(output),
        success: r.success, ...agreeingOutcome(r),
        assertions: r.assertions.length > 0 ? JSON.stringify(r.assertions) : null,
        output: null, output_z: output === null ? null : `\\x${encodeOutput(output).toString('hex')}`,
        monitor_id: r.monitor_id, deadline_at: new Date(scheduled + deadlineMs(m)).toISOString(), interval_s: m.interval_s,
        expected: m.placed, past_hour: hour < this_hour ? new Date(hour).toISOString() : null,
      });
    }
    await storeNodeChecks(tx, [...inserts.values()]);
    return { stored, rejected };
  }

  return { store };
}
