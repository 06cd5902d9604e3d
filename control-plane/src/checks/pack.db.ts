import type { SqlExecutor } from '../contracts.js';
import type { CheckRow } from './history.db.js';
import { decodeEntries, entriesWithDetails } from './entries.db.js';

/*
 * SQL of packed check history (0099_check_blocks.sql): where packing stands, the raw checks of a
 * day read series by series and hour by hour, blocks written and read.
 */

/** Where packing stands (check_packing): days before `packed_until` are packed; `day` is being packed, series up to `after_series` done. */
export interface PackingState {
  packed_until: Date | null;
  day: Date | null;
  after_series: number;
}

/** Where packing stands now (check_packing's one row). */
export async function packingState(sql: SqlExecutor): Promise<PackingState> {
  const [row] = await sql<PackingState[]>`SELECT packed_until, day, after_series FROM check_packing`;
  return row ?? { packed_until: null, day: null, after_series: 0 };
}

/** Remember that the series of `day` up to `after_series` are packed (a later run resumes after it). */
export async function savePackingCursor(sql: SqlExecutor, day: Date, after_series: number): Promise<void> {
  await sql`UPDATE check_packing SET day = ${day}, after_series = ${after_series}`;
}

/**
 * The oldest UTC day at or after `after` (null: any) holding raw checks: the oldest dated
 * partition of `checks` or `check_batches`, or an older day of rows in their DEFAULT partitions
 * (days that had no partition when their checks arrived), or null when there is none.
 */
export async function oldestRawDay(sql: SqlExecutor, after: Date | null): Promise<Date | null> {
  const [row] = await sql<{ part: string | null; stray: Date | null }[]>`
    SELECT (SELECT min(right(c.relname, 8)) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent IN ('checks'::regclass, 'check_batches'::regclass) AND c.relname ~ '_p[0-9]{8}$'
              AND (${after}::timestamptz IS NULL OR to_date(right(c.relname, 8), 'YYYYMMDD') >= (${after}::timestamptz AT TIME ZONE 'UTC')::date)) AS part,
      (SELECT date_bin('1 day', min(at), timestamptz '1970-01-01 00:00:00+00') FROM (
        SELECT min(scheduled_at) AS at FROM checks_default WHERE ${after}::timestamptz IS NULL OR scheduled_at >= ${after}::timestamptz
        UNION ALL SELECT min(first_at) FROM check_batches_default WHERE ${after}::timestamptz IS NULL OR first_at >= ${after}::timestamptz) d) AS stray`;
  const m = row?.part ? /^(\d{4})(\d{2})(\d{2})$/.exec(row.part) : null;
  const part = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : Infinity;
  const stray = row?.stray ? row.stray.getTime() : Infinity;
  const day = Math.min(part, stray);
  return Number.isFinite(day) ? new Date(day) : null;
}

/** Up to `limit` series ids after `after_id`, in id order (checks of deleted series are not packed: nothing reads them). */
export async function seriesAfter(sql: SqlExecutor, after_id: number, limit: number): Promise<number[]> {
  const rows = await sql<{ id: number }[]>`SELECT id FROM check_series WHERE id > ${after_id} ORDER BY id LIMIT ${limit}`;
  return rows.map((r) => r.id);
}

/** A raw check as packing reads it (its stored_at is not kept). */
export type RawCheck = Omit<CheckRow, 'stored_at'>;

/** The raw checks of `series` scheduled in [from, to) (rows and batches), by series then scheduled_at. */
export async function rawChecksOf(tx: SqlExecutor, series: number[], from: Date, to: Date): Promise<RawCheck[]> {
  const rows = await entriesWithDetails(tx, tx`SELECT * FROM check_entries(${series}::int4[], ${from}, ${to})`, tx`e.series_id, e.scheduled_at`);
  return decodeEntries(rows).map(({ stored_at: _s, ...r }) => r);
}

/** A block as stored: one series' checks of one hour (data: checks/pack-codec.ts). */
export interface BlockRow {
  series_id: number;
  hour: Date;
  checks: number;
  failures: number;
  first_at: Date;
  last_at: Date;
  data: Uint8Array;
}

/**
 * Serialise packing with what deletes blocks or rewrites them (account retention, heartbeat body
 * clearing), for the caller's transaction: whichever comes second sees what the first committed.
 */
export async function lockBlocks(tx: SqlExecutor): Promise<void> {
  await tx`SELECT pg_advisory_xact_lock(hashtext('vantage.check_blocks'))`;
}

/**
 * Write `blocks`; a block already stored for its (series, hour) is kept (`replace` false: packing
 * a day again after a crash writes the same blocks) or replaced.
 * @returns how many were written
 */
export async function writeBlocks(tx: SqlExecutor, blocks: BlockRow[], replace = false): Promise<number> {
  if (blocks.length === 0) return 0;
  const r = await tx`
    INSERT INTO check_blocks (series_id, hour, checks, failures, first_at, last_at, data)
    SELECT s, h, n, f, a, z, decode(d, 'hex')
    FROM unnest(${blocks.map((b) => b.series_id)}::int[], ${blocks.map((b) => b.hour.toISOString())}::timestamptz[], ${blocks.map((b) => b.checks)}::int[],
      ${blocks.map((b) => b.failures)}::int[], ${blocks.map((b) => b.first_at.toISOString())}::timestamptz[], ${blocks.map((b) => b.last_at.toISOString())}::timestamptz[],
      ${blocks.map((b) => Buffer.from(b.data).toString('hex'))}::text[]) AS t(s, h, n, f, a, z, d)
    ${replace
      ? tx`ON CONFLICT (series_id, hour) DO UPDATE SET checks = EXCLUDED.checks, failures = EXCLUDED.failures, first_at = EXCLUDED.first_at,
          last_at = EXCLUDED.last_at, data = EXCLUDED.data`
      : tx`ON CONFLICT (series_id, hour) DO NOTHING`}`;
  return r.count;
}

/**
 * The switch of a packed day, in the caller's partition-DDL transaction (partitions.ts
 * partitionDdl): its rows in the DEFAULT partitions deleted and packed_until moved past it, so
 * readers take its blocks from now on (its dated partition is dropped in the same transaction).
 */
export async function finishPackedDay(tx: SqlExecutor, day: Date): Promise<number> {
  const next = new Date(day.getTime() + 86_400_000);
  const r = await tx`DELETE FROM checks_default WHERE scheduled_at >= ${day} AND scheduled_at < ${next}`;
  await tx`DELETE FROM check_batches_default WHERE first_at >= ${day} AND first_at < ${next}`;
  await tx`UPDATE check_packing SET packed_until = greatest(packed_until, ${next}::timestamptz), day = NULL, after_series = 0`;
  return r.count;
}

/** A block without its data. */
export type BlockMark = Omit<BlockRow, 'data'>;

/**
 * The blocks of `series` whose hour lies in [from, to) and before `packed_until` (blocks of later
 * hours are still being written: their raw checks are what is read), without their data, newest first.
 */
export async function blockMarks(sql: SqlExecutor, series: number[], from: Date, to: Date, packed_until: Date): Promise<BlockMark[]> {
  if (series.length === 0) return [];
  return sql<BlockMark[]>`
    SELECT series_id, hour, checks, failures, first_at, last_at FROM check_blocks
    WHERE series_id = ANY(${series}::int[]) AND hour >= ${from} AND hour < ${to} AND hour < ${packed_until}
    ORDER BY hour DESC, series_id`;
}

/** The blocks named by (series, hour), with their data. */
export async function blocksByKey(sql: SqlExecutor, keys: Array<{ series_id: number; hour: Date }>): Promise<BlockRow[]> {
  if (keys.length === 0) return [];
  return sql<BlockRow[]>`
    SELECT b.series_id, b.hour, b.checks, b.failures, b.first_at, b.last_at, b.data
    FROM unnest(${keys.map((k) => k.series_id)}::int[], ${keys.map((k) => k.hour.toISOString())}::timestamptz[]) AS k(s, h)
    JOIN check_blocks b ON b.series_id = k.s AND b.hour = k.h`;
}

/** The blocks of monitor `monitor_id`'s control-plane series (node_id null) at `hours`, locked for rewriting. */
export async function controlBlocksAt(tx: SqlExecutor, monitor_id: string, hours: Date[]): Promise<BlockRow[]> {
  if (hours.length === 0) return [];
  return tx<BlockRow[]>`
    SELECT b.series_id, b.hour, b.checks, b.failures, b.first_at, b.last_at, b.data
    FROM check_blocks b JOIN check_series s ON s.id = b.series_id
    WHERE s.monitor_id = ${monitor_id} AND s.node_id IS NULL AND b.hour = ANY(${hours.map((h) => h.toISOString())}::timestamptz[])
    FOR UPDATE OF b`;
}
