import type { SqlExecutor } from '../contracts.js';

/*
 * SQL of heartbeat monitors' waits (0027_control_checks.sql heartbeat_state). The check-in route
 * and the missed-check-in detector both change a row only while holding its lock.
 */

/** A heartbeat_state row. */
export interface HeartbeatStateRow {
  monitor_id: string;
  revision: number;
  anchor_at: Date;
  due_at: Date | null;
  deadline_at: Date | null;
  last_checkin_at: Date | null;
  run_started_at: Date | null;
}

/** A claimed row with what the detector needs of its monitor (its name and owner for `heartbeat.missed`). */
export interface ClaimedHeartbeat extends HeartbeatStateRow {
  user_id: string;
  name: string;
  target: string | null;
  config: Record<string, unknown>;
  interval_s: number;
  monitor_revision: number;
}

const COLUMNS = 'monitor_id, revision::int AS revision, anchor_at, due_at, deadline_at, last_checkin_at, run_started_at';

/**
 * The monitor's row, locked for the rest of `tx` (created first, anchored at `now` with
 * `revision`, when the monitor has none yet).
 */
export async function lockHeartbeatState(tx: SqlExecutor, monitor_id: string, revision: number, now: Date): Promise<HeartbeatStateRow> {
  await tx`INSERT INTO heartbeat_state (monitor_id, revision, anchor_at) VALUES (${monitor_id}, ${revision}, ${now}) ON CONFLICT (monitor_id) DO NOTHING`;
  const [row] = await tx<HeartbeatStateRow[]>`SELECT ${tx.unsafe(COLUMNS)} FROM heartbeat_state WHERE monitor_id = ${monitor_id} FOR UPDATE`;
  return row!;
}

/** Write back a row's wait (everything but its key). */
export async function saveHeartbeatState(tx: SqlExecutor, row: HeartbeatStateRow): Promise<void> {
  await tx`
    UPDATE heartbeat_state SET revision = ${row.revision}, anchor_at = ${row.anchor_at}, due_at = ${row.due_at},
      deadline_at = ${row.deadline_at}, last_checkin_at = ${row.last_checkin_at}, run_started_at = ${row.run_started_at}
    WHERE monitor_id = ${row.monitor_id}`;
}

/**
 * Record that the check at `at` of heartbeat monitor `monitor_id` kept its check-in body, and
 * clear the body (`output.body` null) of the checks that leave the newest `kept_max` with one
 * (heartbeat_state.body_checks, 0040_heartbeat_bodies_kept.sql). The caller holds the row's lock
 * (lockHeartbeatState), so check-ins of one monitor take turns.
 * @returns how many older bodies were cleared among the raw checks (0 or 1 once the list is full),
 *   and the instants of the checks that left the list (a packed one is cleared by the caller:
 *   checks/pack-bodies.ts)
 */
export async function keepCheckinBody(tx: SqlExecutor, monitor_id: string, at: Date, kept_max: number): Promise<{ cleared: number; dropped: Date[] }> {
  const [row] = await tx<{ cleared: number; dropped: Date[] }[]>`
    WITH listed AS (
      SELECT body_checks || ${at}::timestamptz AS ats FROM heartbeat_state WHERE monitor_id = ${monitor_id}
    ), kept AS (
      UPDATE heartbeat_state h SET body_checks = l.ats[greatest(1, cardinality(l.ats) - ${kept_max} + 1):]
      FROM listed l WHERE h.monitor_id = ${monitor_id}
      RETURNING 1
    ), cleared AS (
      UPDATE checks c SET output = jsonb_set(c.output, '{body}', 'null'::jsonb)
      FROM listed l, check_series s
      WHERE s.monitor_id = ${monitor_id} AND s.node_id IS NULL AND c.series_id = s.id
        AND c.scheduled_at = ANY (l.ats[1:cardinality(l.ats) - ${kept_max}]) AND c.output->>'body' IS NOT NULL
      RETURNING 1
    )
    SELECT (SELECT count(*) FROM cleared)::int AS cleared,
      coalesce((SELECT l.ats[1:cardinality(l.ats) - ${kept_max}] FROM listed l), '{}') AS dropped`;
  return { cleared: row?.cleared ?? 0, dropped: row?.dropped ?? [] };
}

/**
 * Give every heartbeat monitor without a row one, anchored at its creation (the first check-in is
 * expected one period, or the first cron firing, after it); its wait is computed by the detector.
 * @returns rows created
 */
export async function seedHeartbeatStates(tx: SqlExecutor): Promise<number> {
  const rows = await tx`
    INSERT INTO heartbeat_state (monitor_id, revision, anchor_at)
    SELECT m.id, m.revision, m.created_at FROM monitors m
    WHERE m.type = 'heartbeat' AND NOT EXISTS (SELECT 1 FROM heartbeat_state h WHERE h.monitor_id = m.id)
    ON CONFLICT (monitor_id) DO NOTHING RETURNING monitor_id`;
  return rows.length;
}

/**
 * Claim up to `limit` rows of active heartbeat monitors that need the detector at `now`: a wait
 * not computed yet, a deadline passed, or a monitor changed since its wait was computed (edit,
 * pause, resume). Rows locked by another instance or a check-in are skipped (SKIP LOCKED).
 */
export async function claimHeartbeats(tx: SqlExecutor, now: Date, limit: number): Promise<ClaimedHeartbeat[]> {
  return tx<ClaimedHeartbeat[]>`
    SELECT h.monitor_id, h.revision::int AS revision, h.anchor_at, h.due_at, h.deadline_at, h.last_checkin_at, h.run_started_at,
      m.user_id, m.name, m.target, m.config, m.interval_s, m.revision::int AS monitor_revision
    FROM heartbeat_state h JOIN monitors m ON m.id = h.monitor_id
    WHERE m.status = 'active' AND m.type = 'heartbeat'
      AND (h.deadline_at IS NULL OR h.deadline_at <= ${now} OR h.revision <> m.revision)
    ORDER BY h.deadline_at NULLS FIRST
    LIMIT ${limit}
    FOR UPDATE OF h SKIP LOCKED`;
}
