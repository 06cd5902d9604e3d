import type { SqlExecutor } from '../contracts.js';
import type { Sql } from '../db/sql.js';
import { lockBlocks } from './pack.db.js';

/*
 * SQL of raw-check retention per account (account-retention.ts): which series have checks past
 * their account's retention, and deleting them in bounded batches through the checks' primary key
 * (series_id, scheduled_at) of each daily partition.
 */

/** A series whose checks in [from_at, before) are past its account's retention. */
export interface SeriesCutoff {
  series_id: number;
  from_at: Date;
  before: Date;
}

/**
 * Up to `limit` series after `after_id` (in id order) that have checks left to delete: the
 * series' monitor is kept `days` (personal: its account's, `default_days` unless listed in
 * `user_ids`/`days`; a team's: the longest of the team owners', `default_days` without owner),
 * fewer than `max_days` (beyond which whole partitions go). Their cutoff is the UTC day start
 * `days` before `now`, never past `limit_before`; they start at what was deleted before
 * (`pruned_before`), never before `floor` (older checks are in dropped partitions).
 */
export async function seriesPastRetention(sql: SqlExecutor, p: {
  default_days: number; user_ids: string[]; days: number[]; max_days: number; now: Date; floor: Date; limit_before: Date; after_id: number; limit: number;
}): Promise<SeriesCutoff[]> {
  return sql<SeriesCutoff[]>`
    WITH acct AS (SELECT * FROM unnest(${p.user_ids}::text[], ${p.days}::int[]) AS a(user_id, days))
    SELECT s.id AS series_id, x.from_at, x.before
    FROM check_series s
    JOIN monitors m ON m.id = s.monitor_id
    LEFT JOIN acct pa ON pa.user_id = m.user_id AND m.team_id IS NULL
    CROSS JOIN LATERAL (SELECT CASE WHEN m.team_id IS NULL THEN coalesce(pa.days, ${p.default_days})
      ELSE coalesce((SELECT max(coalesce(oa.days, ${p.default_days})) FROM team_members tm LEFT JOIN acct oa ON oa.user_id = tm.user_id
                     WHERE tm.team_id = m.team_id AND tm.role = 'owner'), ${p.default_days}) END AS days) d
    CROSS JOIN LATERAL (SELECT greatest(coalesce(s.pruned_before, ${p.floor}::timestamptz), ${p.floor}::timestamptz) AS from_at,
      least(date_bin('1 day', ${p.now}::timestamptz - make_interval(days => d.days), timestamptz '1970-01-01 00:00:00+00'), ${p.limit_before}::timestamptz) AS before) x
    WHERE s.id > ${p.after_id} AND d.days < ${p.max_days} AND x.from_at < x.before
    ORDER BY s.id LIMIT ${p.limit}`;
}

/**
 * Delete at most `limit` rows of `table` (raw checks, or packed blocks) of `cuts`, each series'
 * read through the primary key (series_id, `at`) and deleted through it again.
 */
const deleteCut = (tx: SqlExecutor, table: 'checks' | 'check_blocks', at: 'scheduled_at' | 'hour', cuts: SeriesCutoff[], limit: number) => tx`
  WITH t AS (SELECT * FROM unnest(${cuts.map((c) => c.series_id)}::int[], ${cuts.map((c) => c.from_at.toISOString())}::timestamptz[],
               ${cuts.map((c) => c.before.toISOString())}::timestamptz[]) AS t(series_id, from_at, before)),
  v AS (SELECT x.series_id, x.at FROM t CROSS JOIN LATERAL (
          SELECT c.series_id, c.${tx(at)} AS at FROM ${tx(table)} c
          WHERE c.series_id = t.series_id AND c.${tx(at)} >= t.from_at AND c.${tx(at)} < t.before LIMIT ${limit}) x
        LIMIT ${limit})
  DELETE FROM ${tx(table)} c USING v WHERE c.series_id = v.series_id AND c.${tx(at)} = v.at`;

/**
 * Delete at most `limit` checks of `cuts` (each series' [from_at, before)) in one transaction of
 * its own: each series is read through the primary key (series_id, scheduled_at) of the partitions
 * its range covers, and each check found is deleted through the primary key of its partition.
 * Hash and merge joins are off for that transaction: the planner would otherwise join the few
 * thousand checks found against a sequential scan of every partition.
 * @returns how many were deleted (fewer than `limit`: none of `cuts` has any left)
 */
export async function deleteSeriesChecks(sql: Sql, cuts: SeriesCutoff[], limit: number): Promise<number> {
  return sql.begin(async (tx) => {
    await tx`SET LOCAL enable_hashjoin = off`;
    await tx`SET LOCAL enable_mergejoin = off`;
    const r = await deleteCut(tx, 'checks', 'scheduled_at', cuts, limit);
    return r.count;
  }) as Promise<number>;
}

/**
 * Hide at most `limit` checks of `cuts` (each series' [from_at, before)) that lie in batch rows
 * (0101_check_batches.sql), in one statement: a batch holds several series' checks, so theirs
 * are added to its `hidden` positions (every reader leaves those out) rather than deleted; their
 * bytes go when the day is packed (packing writes the visible checks only) or its partition dropped.
 * @returns how many were hidden (fewer than `limit`: none of `cuts` has any left)
 */
export async function hideSeriesChecks(sql: SqlExecutor, cuts: SeriesCutoff[], limit: number): Promise<number> {
  const rows = await sql<{ n: number }[]>`
    WITH t AS (SELECT * FROM unnest(${cuts.map((c) => c.series_id)}::int[], ${cuts.map((c) => c.from_at.toISOString())}::timestamptz[],
                 ${cuts.map((c) => c.before.toISOString())}::timestamptz[]) AS t(series_id, from_at, before)),
    v AS (SELECT e.batch_id, e.batch_first_at, e.pos FROM t CROSS JOIN LATERAL check_entries(ARRAY[t.series_id], t.from_at, t.before) e
          WHERE e.batch_id IS NOT NULL LIMIT ${limit}),
    g AS (SELECT batch_id, batch_first_at, array_agg(pos) AS ps FROM v GROUP BY 1, 2)
    UPDATE check_batches b SET hidden = ARRAY(SELECT DISTINCT x FROM unnest(coalesce(b.hidden, '{}') || g.ps) AS x ORDER BY x)
    FROM g WHERE b.id = g.batch_id AND b.first_at = g.batch_first_at
    RETURNING cardinality(g.ps) AS n`;
  return rows.reduce((n, r) => n + r.n, 0);
}

/**
 * Delete at most `limit` packed blocks of `cuts` (each series' hours in [from_at, before): cutoffs
 * are UTC day starts, so a block is wholly in or out) in one transaction of its own, serialised
 * with packing (pack.db.ts lockBlocks): a day packed while its raw checks were being deleted has
 * its blocks deleted here, after. Call it once the raw checks of `cuts` are gone.
 * @returns how many were deleted (fewer than `limit`: none of `cuts` has any left)
 */
export async function deleteSeriesBlocks(sql: Sql, cuts: SeriesCutoff[], limit: number): Promise<number> {
  return sql.begin(async (tx) => {
    await lockBlocks(tx);
    const r = await deleteCut(tx, 'check_blocks', 'hour', cuts, limit);
    return r.count;
  }) as Promise<number>;
}

/** Remember that the checks of `cuts` before each `before` are deleted (the next pass starts there). */
export async function markSeriesPruned(sql: SqlExecutor, cuts: SeriesCutoff[]): Promise<void> {
  await sql`
    UPDATE check_series s SET pruned_before = t.before
    FROM unnest(${cuts.map((c) => c.series_id)}::int[], ${cuts.map((c) => c.before.toISOString())}::timestamptz[]) AS t(id, before)
    WHERE s.id = t.id`;
}
