import type { SqlExecutor } from '../contracts.js';

/*
 * SQL of the check history's periodic jobs (0025_checks.sql check_jobs): claiming, hourly rollups
 * of raw checks, and retention of state changes.
 */

/** Names of the claimed jobs (rows of check_jobs). */
export type CheckJobName = 'partitions' | 'rollup' | 'retention' | 'silent_rounds' | 'pack';

/**
 * Claim job `name` if it is due: its row locked FOR UPDATE SKIP LOCKED (another instance running
 * it skips), inside the caller's transaction.
 * @returns its saved state, or null when not due or held elsewhere
 */
export async function claimJob(tx: SqlExecutor, name: CheckJobName): Promise<Record<string, unknown> | null> {
  const [row] = await tx<{ state: Record<string, unknown> }[]>`
    SELECT state FROM check_jobs WHERE name = ${name} AND due_at <= now() FOR UPDATE SKIP LOCKED`;
  return row?.state ?? null;
}

/** Set job `name` due again in `in_ms` with `state`. */
export async function finishJob(tx: SqlExecutor, name: CheckJobName, in_ms: number, state: Record<string, unknown>): Promise<void> {
  await tx`UPDATE check_jobs SET due_at = now() + make_interval(secs => ${in_ms / 1000}), state = ${tx.json(state as never)} WHERE name = ${name}`;
}

/** Make every job due now (tests, benchmarks). */
export async function makeJobsDue(sql: SqlExecutor): Promise<void> {
  await sql`UPDATE check_jobs SET due_at = now()`;
}

/** The hour up to which raw checks are rolled up (exclusive), or null before the first rollup. */
export async function rolledUntil(sql: SqlExecutor): Promise<Date | null> {
  const [row] = await sql<{ at: Date | null }[]>`SELECT (state->>'rolled_until')::timestamptz AS at FROM check_jobs WHERE name = 'rollup'`;
  return row?.at ?? null;
}

/**
 * Roll up the raw checks of `hour` (one per series: counts, failures, response-time count, min,
 * max, sum and packed histogram; check_rt_bucket is the histogram's bucket), replacing what was
 * there. Checks of series deleted meanwhile (their monitor is gone) are left out. The hours it
 * rolls are never packed: packing waits for the rollup watermark, and a late check (which makes an
 * hour dirty) is accepted only within the rounds retention, which packing never reaches (pack.ts).
 * @returns rows written
 */
export async function rollUpHour(tx: SqlExecutor, hour: Date): Promise<number> {
  const rows = await tx`
    INSERT INTO check_rollups AS r (hour, series_id, checks, failures, rt_count, rt_min_ms, rt_max_ms, rt_sum_ms, rt_hist)
    SELECT ${hour}::timestamptz, b.series_id, sum(b.n)::int, sum(b.f)::int, sum(b.rn)::int, min(b.mn), max(b.mx), coalesce(sum(b.sm), 0),
      coalesce(array_agg(((b.bucket::bigint << 22) | b.rn)::int ORDER BY b.bucket) FILTER (WHERE b.bucket IS NOT NULL), '{}')
    FROM (
      SELECT c.series_id, check_rt_bucket(c.response_ms) AS bucket, count(*) AS n, count(*) FILTER (WHERE NOT c.success) AS f,
        count(c.response_ms) AS rn, min(c.response_ms) AS mn, max(c.response_ms) AS mx, sum(c.response_ms::float8) AS sm
      FROM check_entries_between(${hour}::timestamptz, ${hour}::timestamptz + interval '1 hour') c
      WHERE EXISTS (SELECT 1 FROM check_series s WHERE s.id = c.series_id)
      GROUP BY c.series_id, check_rt_bucket(c.response_ms)
    ) b
    GROUP BY b.series_id
    ON CONFLICT (series_id, hour) DO UPDATE SET checks = EXCLUDED.checks, failures = EXCLUDED.failures, rt_count = EXCLUDED.rt_count,
      rt_min_ms = EXCLUDED.rt_min_ms, rt_max_ms = EXCLUDED.rt_max_ms, rt_sum_ms = EXCLUDED.rt_sum_ms, rt_hist = EXCLUDED.rt_hist
    RETURNING 1`;
  return rows.length;
}

/**
 * Roll up `day` (UTC) from its hourly rollups: per series, the totals and the histograms merged
 * (counts of each bucket index added), replacing what was there. @returns rows written
 */
export async function rollUpDay(tx: SqlExecutor, day: Date): Promise<number> {
  const rows = await tx`
    WITH r AS (
      SELECT * FROM check_rollups WHERE hour >= ${day}::timestamptz AND hour < ${day}::timestamptz + interval '1 day'),
    h AS (
      SELECT series_id, v >> 22 AS idx, least(sum(v & 4194303), 4194303)::bigint AS n FROM r, unnest(r.rt_hist) AS v GROUP BY 1, 2),
    hs AS (
      SELECT series_id, array_agg(((idx::bigint << 22) | n)::int ORDER BY idx) AS hist FROM h GROUP BY 1)
    INSERT INTO check_rollups_daily AS d (day, series_id, checks, failures, rt_count, rt_min_ms, rt_max_ms, rt_sum_ms, rt_hist)
    SELECT ${day}::timestamptz, t.series_id, t.checks, t.failures, t.rt_count, t.rt_min_ms, t.rt_max_ms, t.rt_sum_ms, coalesce(hs.hist, '{}')
    FROM (SELECT series_id, sum(checks)::int AS checks, sum(failures)::int AS failures, sum(rt_count)::int AS rt_count,
            min(rt_min_ms) AS rt_min_ms, max(rt_max_ms) AS rt_max_ms, sum(rt_sum_ms) AS rt_sum_ms FROM r GROUP BY 1) t
    LEFT JOIN hs ON hs.series_id = t.series_id
    ON CONFLICT (series_id, day) DO UPDATE SET checks = EXCLUDED.checks, failures = EXCLUDED.failures, rt_count = EXCLUDED.rt_count,
      rt_min_ms = EXCLUDED.rt_min_ms, rt_max_ms = EXCLUDED.rt_max_ms, rt_sum_ms = EXCLUDED.rt_sum_ms, rt_hist = EXCLUDED.rt_hist
    RETURNING 1`;
  return rows.length;
}

/** How far the rollups go: hourly ones up to `hours_until`, daily ones for [days_from, days_until) (nulls before the first run). */
export interface RollupMarks {
  hours_until: Date | null;
  days_from: Date | null;
  days_until: Date | null;
}

/** The rollup job's marks (RollupMarks). */
export async function rollupMarks(sql: SqlExecutor): Promise<RollupMarks> {
  const [row] = await sql<RollupMarks[]>`
    SELECT (state->>'rolled_until')::timestamptz AS hours_until, (state->>'days_from')::timestamptz AS days_from,
      (state->>'days_until')::timestamptz AS days_until
    FROM check_jobs WHERE name = 'rollup'`;
  return row ?? { hours_until: null, days_from: null, days_until: null };
}

/**
 * Take (delete and return) up to `limit` hours marked as having received checks after they were
 * rolled up, before `before`. Deleting first means a check arriving meanwhile marks its hour again
 * once this transaction ends (its INSERT waits on the deleted row), so no late check is missed.
 */
export async function takeDirtyHours(tx: SqlExecutor, before: Date, limit: number): Promise<Date[]> {
  const rows = await tx<{ hour: Date }[]>`
    DELETE FROM check_rollup_dirty WHERE hour IN (SELECT hour FROM check_rollup_dirty WHERE hour < ${before} ORDER BY hour LIMIT ${limit})
    RETURNING hour`;
  return rows.map((r) => r.hour).sort((a, b) => a.getTime() - b.getTime());
}

/**
 * Start of the oldest daily partition of raw checks, or null (where a first rollup starts). Packed
 * days (pack.ts) have no raw partition any more, but a rollup job that has run once never asks.
 */
export async function oldestCheckDay(sql: SqlExecutor): Promise<Date | null> {
  const [row] = await sql<{ name: string | null }[]>`
    SELECT min(c.relname) AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'checks'::regclass AND c.relname ~ '_p[0-9]{8}$'`;
  const m = row?.name ? /_p(\d{4})(\d{2})(\d{2})$/.exec(row.name) : null;
  return m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : null;
}

/**
 * Delete state changes older than `before`, except each monitor's latest one (the state in force,
 * which a replay starts from). @returns how many
 */
export async function pruneStateChanges(tx: SqlExecutor, before: Date): Promise<number> {
  const rows = await tx`
    DELETE FROM monitor_state_changes c WHERE c.changed_at < ${before}
      AND (c.superseded_at IS NOT NULL OR EXISTS (SELECT 1 FROM monitor_state_changes n
        WHERE n.monitor_id = c.monitor_id AND n.superseded_at IS NULL AND (n.changed_at, n.id) > (c.changed_at, c.id)))
    RETURNING 1`;
  return rows.length;
}
