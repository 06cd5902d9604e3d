import { CONTROL_PLANE_MONITOR_TYPES, type MonitorType } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';

/*
 * SQL of the silent-rounds sweep (decide-silent.ts): the monitors that have rounds now, and the
 * empty rounds written for those nobody reported.
 */

/** An active node-run monitor as the sweep reads it, with the database clock. */
export interface SweptMonitor {
  id: string;
  type: MonitorType;
  config: Record<string, unknown>;
  interval_s: number;
  /** Start of its open schedule span (created, resumed, or interval changed): it has had rounds at interval_s since. */
  span_from: Date;
  /** Nodes placed on it now. */
  placed: number;
  now: Date;
}

/**
 * Monitors with rounds now (status active, an open schedule span: 0038_round_history.sql) of the
 * types nodes run (control-plane checks have no rounds of their own), with their placed nodes.
 */
export async function sweptMonitors(tx: SqlExecutor): Promise<SweptMonitor[]> {
  return tx<SweptMonitor[]>`
    SELECT m.id, m.type, m.config, m.interval_s, s.from_at AS span_from, now() AS now,
      (SELECT count(*) FROM monitor_placements p WHERE p.monitor_id = m.id AND p.ended_at IS NULL)::int AS placed
    FROM monitors m JOIN monitor_schedules s ON s.monitor_id = m.id AND s.until_at IS NULL
    WHERE m.status = 'active' AND m.type <> ALL(${[...CONTROL_PLANE_MONITOR_TYPES]}::text[])`;
}

/** An empty round to write: no report, due for judging (its deadline has passed). */
export interface SilentRound {
  monitor_id: string;
  scheduled_at: Date;
  deadline_at: Date;
  interval_s: number;
  expected: number;
}

/**
 * Write `rounds` that do not exist yet (a round any node reported is left as it is), dirty: the
 * verdict job judges them `no_data`. A result arriving later fills its round as usual (ingest.db.ts
 * storeNodeChecks), which is judged again, late. @returns how many were written
 */
export async function writeSilentRounds(tx: SqlExecutor, rounds: SilentRound[]): Promise<number> {
  if (rounds.length === 0) return 0;
  const rows = await tx`
    INSERT INTO check_rounds (scheduled_at, deadline_at, monitor_id, interval_s, expected, reported, failed)
    SELECT u.at, u.deadline, u.m, u.iv, least(u.ex, 32767)::smallint, 0, 0
    FROM unnest(${rounds.map((r) => r.scheduled_at.toISOString())}::timestamptz[], ${rounds.map((r) => r.deadline_at.toISOString())}::timestamptz[],
      ${rounds.map((r) => r.monitor_id)}::text[], ${rounds.map((r) => r.interval_s)}::int[], ${rounds.map((r) => r.expected)}::int[]) AS u(at, deadline, m, iv, ex)
    ORDER BY u.m, u.at
    ON CONFLICT (monitor_id, scheduled_at) DO NOTHING
    RETURNING monitor_id`;
  return rows.length;
}
