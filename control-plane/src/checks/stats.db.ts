import type postgres from 'postgres';
import type { Owner } from '../teams/authorize.js';
import type { SqlExecutor } from '../contracts.js';
import type { SeriesRow } from './history.db.js';
import type { RollupMarks } from './jobs.db.js';

/*
 * Read queries of a monitor's response-time statistics (checks/stats.ts): cells of raw checks,
 * packed blocks and check rollups per time bucket and series.
 */

/**
 * Totals of one series over one time bucket: checks, failures, response times (count, min, max,
 * sum) and their histogram as parallel arrays of bucket indexes and counts (checks/histogram.ts).
 */
export interface StatsCell {
  b: number;
  series_id: number;
  checks: number;
  failures: number;
  rt_count: number;
  rt_min_ms: number | null;
  rt_max_ms: number | null;
  rt_sum_ms: number;
  hist_idx: number[];
  hist_n: number[];
}

/** One part of a stats read: raw checks, or hourly or daily rollups, over [from, to). */
export interface StatsPart {
  source: 'raw' | 'hour' | 'day';
  from: Date;
  to: Date;
}

/**
 * A stats cell as read: a raw cell's histogram as parallel arrays (`rt_hist` null), a rollup row's
 * packed (`hist_idx`/`hist_n` null); or a block of packed checks (`data`, its `hour`; `b` null):
 * the caller totals its checks (checks/pack-codec.ts).
 */
export type StatsCellRow = Omit<StatsCell, 'hist_idx' | 'hist_n' | 'b'> & {
  b: number | null; hist_idx: number[] | null; hist_n: number[] | null; rt_hist: number[] | null; hour: Date | null; data: Uint8Array | null;
};

/**
 * How far back raw checks are surely not packed, ms: days are packed once wholly older than the
 * rounds retention, never less than a day (config/checks.ts). A raw part reaching further back
 * reads the blocks too.
 */
const PACKED_REACH_MS = 86_400_000;

/**
 * Every part of a stats read in ONE statement (UNION ALL: one round trip, not one per part).
 * Raw checks of `series` in a part are totalled per time bucket (`bucket_s`, aligned to the epoch)
 * and series in SQL: one row per bucket and series, whatever the number of checks. Rollups
 * (`hour`: check_rollups; `day`: check_rollups_daily) are not totalled here: a long range reads a
 * few hundred rows (90 days of 3 series in day rows: 270), which the caller merges faster than
 * Postgres unnesting and re-aggregating their histograms (checks/histogram.ts packing). A raw part
 * older than a day also returns the packed blocks it covers (before check_packing.packed_until;
 * raw checks from it on): one statement, so a day being switched from raw to packed counts once.
 */
export async function statsCells(sql: SqlExecutor, parts: StatsPart[], series: number[], bucket_s: number): Promise<StatsCellRow[]> {
  const live = parts.filter((p) => p.from.getTime() < p.to.getTime());
  if (series.length === 0 || live.length === 0) return [];
  const selects = partSelects(sql, live, sql`${series}::int4[]`, bucket_s);
  return sql<StatsCellRow[]>`${selects.reduce((a, b) => sql`${a} UNION ALL ${b}`)}`;
}

/**
 * One SELECT per part (a raw part older than a day: two), each the cells of the series
 * `series` names (an int4[] expression of distinct ids) over the part's [from, to).
 * check_entries() (0101_check_batches.sql) is called in FROM with the ids as a column of a
 * subquery before it, never with `series` itself as its argument: Postgres inlines a SQL
 * set-returning function only when its arguments hold no sub-select, and `series` is one in
 * {@link monitorStatsCells}. Not inlined, the function's query was planned anew at every call and
 * its rows materialized: about half of the statement's database CPU (docs/benchmarks.md "Monitor
 * list, uptime and stats latency", fourteenth round).
 */
function partSelects(sql: SqlExecutor, live: StatsPart[], series: postgres.Fragment, bucket_s: number) {
  const series_in = sql`ANY(${series})`;
  const packed_until = sql`coalesce((SELECT packed_until FROM check_packing), '-infinity'::timestamptz)`;
  return live.flatMap((p) => {
    if (p.source === 'raw') {
      const reaches = p.from.getTime() < Date.now() - PACKED_REACH_MS;
      const raw = sql`(WITH c AS (
          SELECT floor(extract(epoch FROM scheduled_at) / ${bucket_s})::float8 AS b, series_id, check_rt_bucket(response_ms) AS rb,
            count(*)::int AS n, count(*) FILTER (WHERE NOT success)::int AS f, count(response_ms)::int AS rn,
            min(response_ms) AS mn, max(response_ms) AS mx, coalesce(sum(response_ms::float8), 0) AS sm
          FROM (SELECT ${series} AS ids) s0 CROSS JOIN LATERAL check_entries(s0.ids, ${p.from}, ${p.to}) ${reaches ? sql`WHERE scheduled_at >= ${packed_until}` : sql``}
          GROUP BY 1, 2, 3)
        SELECT b, series_id, sum(n)::int AS checks, sum(f)::int AS failures, sum(rn)::int AS rt_count, min(mn) AS rt_min_ms, max(mx) AS rt_max_ms,
          sum(sm)::float8 AS rt_sum_ms,
          coalesce(array_agg(rb ORDER BY rb) FILTER (WHERE rb IS NOT NULL AND rn > 0), '{}') AS hist_idx,
          coalesce(array_agg(rn ORDER BY rb) FILTER (WHERE rb IS NOT NULL AND rn > 0), '{}') AS hist_n, NULL::int[] AS rt_hist,
          NULL::timestamptz AS hour, NULL::bytea AS data
        FROM c GROUP BY b, series_id)`;
      if (!reaches) return [raw];
      return [raw, sql`(SELECT NULL::float8 AS b, series_id, checks, failures, NULL::int AS rt_count, NULL::real AS rt_min_ms, NULL::real AS rt_max_ms,
          NULL::float8 AS rt_sum_ms, NULL::int[] AS hist_idx, NULL::int[] AS hist_n, NULL::int[] AS rt_hist, hour, data
        FROM check_blocks WHERE series_id = ${series_in} AND hour > ${p.from}::timestamptz - interval '1 hour' AND hour < ${p.to}
          AND hour < ${packed_until})`];
    }
    const table = sql(p.source === 'hour' ? 'check_rollups' : 'check_rollups_daily');
    const at = sql(p.source);
    return [sql`(SELECT floor(extract(epoch FROM ${at}) / ${bucket_s})::float8 AS b, series_id, checks, failures, rt_count, rt_min_ms, rt_max_ms,
        rt_sum_ms, NULL::int[] AS hist_idx, NULL::int[] AS hist_n, rt_hist, NULL::timestamptz AS hour, NULL::bytea AS data
      FROM ${table} WHERE series_id = ${series_in} AND ${at} >= ${p.from} AND ${at} < ${p.to})`];
  });
}

/** Statistics' context read with the cells (see {@link monitorStatsCells}). */
export interface StatsContext {
  /** The monitor's creator and team (teams/authorize.ts), or null when there is no such monitor. */
  owner: Owner | null;
  /** Its series as history.db.ts monitorSeries gives them (ordered by node). */
  series: SeriesRow[];
  /** The rollup job's marks at the statement's snapshot (jobs.db.ts rollupMarks). */
  marks: RollupMarks;
}

/** The marks as epoch ms (null: unset), as the statement reads them. */
type MarksMs = [number | null, number | null, number | null];

/**
 * Monitor `monitor_id`'s stats cells over `parts` (as {@link statsCells}, the series read in the
 * statement) and its {@link StatsContext}, in ONE statement: one round trip instead of four
 * statements (owner, series, rollup marks, cells). The parts are the caller's, made from marks
 * it already holds; `marks` in the answer are those in force when the cells were read, for the
 * caller to check against its own (checks/history-reads.ts: when they differ, it reads again
 * with these). Meant for the generic-plan client (db/sql.ts genericPlanClient): with the function
 * inlined, planning the statement costs more than running it.
 */
export async function monitorStatsCells(sql: SqlExecutor, monitor_id: string, parts: StatsPart[], bucket_s: number): Promise<{ cells: StatsCellRow[]; context: StatsContext }> {
  const live = parts.filter((p) => p.from.getTime() < p.to.getTime());
  const ms = (mark: string) => sql`(extract(epoch FROM (state->>${mark})::timestamptz) * 1000)::float8`;
  const context = sql`SELECT json_build_object(
      'owner', (SELECT json_build_object('user_id', user_id, 'team_id', team_id) FROM monitors WHERE id = ${monitor_id}),
      'series', (SELECT coalesce(json_agg(json_build_object('id', s.id, 'node_id', s.node_id, 'country', n.country) ORDER BY s.node_id), '[]')
        FROM check_series s LEFT JOIN nodes n ON n.id = s.node_id WHERE s.monitor_id = ${monitor_id}),
      'marks', (SELECT json_build_array(${ms('rolled_until')}, ${ms('days_from')}, ${ms('days_until')}) FROM check_jobs WHERE name = 'rollup')) AS ctx`;
  const cells = partSelects(sql, live, sql`ARRAY(SELECT id FROM check_series WHERE monitor_id = ${monitor_id})`, bucket_s)
    .map((p) => sql`SELECT p.*, NULL::json AS ctx FROM ${p} p`);
  const rows = await sql<Array<StatsCellRow & { ctx: { owner: Owner | null; series: SeriesRow[]; marks: MarksMs | null } | null }>>`
    SELECT NULL::float8 AS b, NULL::int AS series_id, NULL::int AS checks, NULL::int AS failures, NULL::int AS rt_count, NULL::real AS rt_min_ms,
      NULL::real AS rt_max_ms, NULL::float8 AS rt_sum_ms, NULL::int[] AS hist_idx, NULL::int[] AS hist_n, NULL::int[] AS rt_hist,
      NULL::timestamptz AS hour, NULL::bytea AS data, c.ctx
    FROM (${context}) c
    ${cells.length > 0 ? sql`UNION ALL ${cells.reduce((a, b) => sql`${a} UNION ALL ${b}`)}` : sql``}`;
  const out: StatsCellRow[] = [];
  let ctx: NonNullable<(typeof rows)[number]['ctx']> | null = null;
  for (const r of rows) {
    if (r.ctx !== null) ctx = r.ctx;
    else out.push(r);
  }
  const date = (v: number | null | undefined) => (v === null || v === undefined ? null : new Date(v));
  const [hours_until, days_from, days_until] = ctx!.marks ?? [null, null, null];
  return {
    cells: out,
    context: { owner: ctx!.owner, series: ctx!.series, marks: { hours_until: date(hours_until), days_from: date(days_from), days_until: date(days_until) } },
  };
}
