import type { Sql } from '../db/sql.js';

/*
 * What nodes report about themselves besides results (docs/architecture/hub.md, "Reports written behind"):
 * outbox stats and clock offsets, written behind for many nodes at once (hub/node-reports.ts).
 */

/** One node's `outbox.stats` report, as {@link recordOutboxStatsMany} stores it. */
export interface OutboxReport { id: string; pending: number; dropped_total: number; oldest_pending_at: string | null }
/** One node's reported clock offset (node clock minus control-plane clock, whole ms). */
export interface ClockReport { id: string; offset_ms: number }

/**
 * Store the `outbox.stats` reports of many nodes in one statement, committed asynchronously
 * (Postgres `synchronous_commit = off`: visible to readers at once, only a crash in the next
 * fraction of a second can lose it, and the node reports again). Rows are locked in id order, as
 * nodes.db.ts markNodesOnline does (FOR NO KEY UPDATE), so concurrent batches cannot deadlock. One report per node id.
 */
export async function recordOutboxStatsMany(sql: Sql, reports: OutboxReport[]): Promise<void> {
  if (reports.length === 0) return;
  await sql.begin(async (tx) => {
    await tx`SET LOCAL synchronous_commit = off`;
    await tx`
      WITH r AS (
        SELECT * FROM jsonb_to_recordset(${tx.json(reports as never)}) AS r(id text, pending int, dropped_total int, oldest_pending_at timestamptz)
      ), locked AS (SELECT n.id FROM nodes n JOIN r ON r.id = n.id ORDER BY n.id FOR NO KEY UPDATE OF n)
      UPDATE nodes SET outbox_pending = r.pending, outbox_dropped_total = r.dropped_total,
        outbox_oldest_pending_at = r.oldest_pending_at, outbox_reported_at = now()
      FROM r JOIN locked ON locked.id = r.id
      WHERE nodes.id = r.id`;
  });
}

/** Store the clock offsets of many nodes in one statement, committed asynchronously (as {@link recordOutboxStatsMany}). */
export async function recordClockOffsets(sql: Sql, reports: ClockReport[]): Promise<void> {
  if (reports.length === 0) return;
  await sql.begin(async (tx) => {
    await tx`SET LOCAL synchronous_commit = off`;
    await tx`
      WITH r AS (SELECT * FROM jsonb_to_recordset(${tx.json(reports as never)}) AS r(id text, offset_ms int)),
        locked AS (SELECT n.id FROM nodes n JOIN r ON r.id = n.id ORDER BY n.id FOR NO KEY UPDATE OF n)
      UPDATE nodes SET clock_offset_ms = r.offset_ms, clock_offset_at = now()
      FROM r JOIN locked ON locked.id = r.id
      WHERE nodes.id = r.id`;
  });
}
