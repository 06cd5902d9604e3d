import type { Sql } from '../db/sql.js';

/*
 * SQL of the round history (0038_round_history.sql): the spans a monitor had rounds at one
 * interval (monitor_schedules) and the earlier spans each node was placed on it, before its
 * latest placement (monitor_placements_past). Triggers write both; check ingest reads them
 * (checks/ingest.db.ts ingestMonitors) to accept a result only for a round the monitor had while
 * the node was placed on it.
 */

/**
 * Forget schedule and placement spans that ended more than `keep_ms` ago: ingest no longer reads
 * them (a round that old is refused unless a live span covers it). The monitors of the placement
 * spans are locked first, in id order, as every placement writer locks them (monitors/placement.db.ts
 * pruneEndedPlacements). @returns how many rows
 */
export async function pruneRoundHistory(sql: Sql, keep_ms: number): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    WITH s AS (DELETE FROM monitor_schedules WHERE until_at < now() - make_interval(secs => ${keep_ms / 1000}) RETURNING 1),
    locked AS MATERIALIZED (
      SELECT m.id FROM monitors m WHERE m.id IN (SELECT monitor_id FROM monitor_placements_past WHERE ended_at < now() - make_interval(secs => ${keep_ms / 1000}))
      ORDER BY m.id FOR NO KEY UPDATE OF m),
    p AS (DELETE FROM monitor_placements_past q USING locked l
      WHERE q.monitor_id = l.id AND q.ended_at < now() - make_interval(secs => ${keep_ms / 1000}) RETURNING 1)
    SELECT ((SELECT count(*) FROM s) + (SELECT count(*) FROM p))::int AS n`;
  return row!.n;
}
