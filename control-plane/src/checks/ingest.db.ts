import type { MonitorType } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';


// Boolean arrays travel as text ('true'/'false') cast to boolean[]: the client does not serialise JS boolean arrays.
const bools = (xs: boolean[]) => xs.map(String);
/*
 * SQL of check ingest (0025_checks.sql): every statement takes a whole batch (multi-row insert
 * from unnest arrays), so a batch of any size costs a fixed handful of round trips.
 */

/** A monitor as ingest sees it, for one reporting node. */
export interface IngestMonitorRow {
  id: string;
  type: MonitorType;
  interval_s: number;
  revision: number;
  /** The monitor's placement version (0100_monitor_placement_version.sql): moves with every change of its placements. */
  placement_version: number;
  /** Nodes the monitor is placed on now; like `placed_spans`, null when the caller knows this placement version. */
  placed: number | null;
  /** When the monitor was created, epoch ms. */
  created_ms: number;
  /**
   * The spans the reporting node was placed on the monitor (its placement and the earlier ones,
   * monitor_placements_past) that are live or ended less than the placement history ago, in no
   * order: [from, until] epoch ms, until Infinity while placed. Empty: the monitor is not assigned
   * to the node. Null when `known_placements` holds the monitor's placement version (the caller
   * has them from that version).
   */
  placed_spans: Array<[number, number]> | null;
  /**
   * The monitor's schedule spans (monitor_schedules) over the same window, in no order: [from,
   * until (Infinity: open), interval_s]; like `config`, only when its revision is not the one the
   * caller knows (a change of interval or status bumps it), else null.
   */
  schedule_spans: Array<[number, number, number]> | null;
  /** The series of (monitor, reporting node), null before its first stored check. */
  series_id: number | null;
  /** The monitor's config (defaults filled), only when its revision is not the one the caller knows; else null. */
  config: Record<string, unknown> | null;
}

/**
 * The monitors `ids` that exist, with their round history for `node_id` (the spans the node was
 * placed on each and the spans each had rounds at one interval: live, or ended less than
 * `history_ms` ago, so results the node buffered while it ran the monitor still count), how many
 * nodes each is placed on, the node's series of it, and its config and schedule spans when
 * `known_revisions` (same order as `ids`; -1 for none) does not hold its current revision. The
 * series is looked up only where `known_series` (same order; null for unknown) does not give it:
 * a series lives as long as its monitor (0025_checks.sql), so a known one still exists when the
 * monitor does. The placement count and the node's spans are read only where `known_placements`
 * (same order; -1 for none) does not hold the monitor's placement version: the version moves in
 * the transaction of every write that changes them (0100_monitor_placement_version.sql), so the
 * answer the caller read at that version is still the answer, but for spans that aged out of
 * `history_ms` since (the caller drops those).
 */
export async function ingestMonitors(tx: SqlExecutor, node_id: string, ids: string[], known_revisions: number[], history_ms: number,
  known_series: Array<number | null> = ids.map(() => null), known_placements: number[] = ids.map(() => -1)): Promise<IngestMonitorRow[]> {
  const since_s = history_ms / 1000;
  // Spans as 2-D arrays, one array subquery per table and unordered: ordered or per-column
  // aggregates tripled the cost of this read. Each monitor is read by its key (the lateral
  // subquery, kept apart by OFFSET 0): joined plainly, the planner hashed the batch's ids and
  // scanned the whole monitors table for every batch (0.75 ms per batch at 10,000 monitors,
  // growing with the table).
  return tx<IngestMonitorRow[]>`
    SELECT m.id, m.type, m.interval_s, m.revision::int AS revision, extract(epoch FROM m.created_at)::float8 * 1000 AS created_ms,
      m.placement_version::float8 AS placement_version,
      CASE WHEN m.placement_version IS DISTINCT FROM k.placement_version THEN
        (SELECT count(*) FROM monitor_placements a WHERE a.monitor_id = m.id AND a.ended_at IS NULL)::int END AS placed,
      CASE WHEN m.placement_version IS DISTINCT FROM k.placement_version THEN ARRAY(SELECT ARRAY[extract(epoch FROM x.placed_at)::float8 * 1000, coalesce(extract(epoch FROM x.ended_at)::float8 * 1000, 'Infinity')]
        FROM (SELECT p.placed_at, p.ended_at FROM monitor_placements p WHERE p.monitor_id = m.id AND p.node_id = ${node_id}
          UNION ALL SELECT q.placed_at, q.ended_at FROM monitor_placements_past q WHERE q.monitor_id = m.id AND q.node_id = ${node_id}) x
        WHERE x.ended_at IS NULL OR x.ended_at > now() - make_interval(secs => ${since_s})) END AS placed_spans,
      CASE WHEN m.revision IS DISTINCT FROM k.revision THEN ARRAY(SELECT ARRAY[extract(epoch FROM x.from_at)::float8 * 1000,
          coalesce(extract(epoch FROM x.until_at)::float8 * 1000, 'Infinity'), x.interval_s]
        FROM monitor_schedules x WHERE x.monitor_id = m.id
          AND (x.until_at IS NULL OR x.until_at > now() - make_interval(secs => ${since_s}))) END AS schedule_spans,
      coalesce(k.series_id, (SELECT c.id FROM check_series c WHERE c.monitor_id = m.id AND c.node_id = ${node_id})) AS series_id,
      CASE WHEN m.revision IS DISTINCT FROM k.revision THEN m.config END AS config
    FROM unnest(${ids}::text[], ${known_revisions}::bigint[], ${known_series}::int[], ${known_placements}::bigint[]) AS k(id, revision, series_id, placement_version)
    CROSS JOIN LATERAL (SELECT * FROM monitors WHERE id = k.id OFFSET 0) m`;
}

/**
 * Create the series of (monitor, `node_id`) for `missing` (monitors the node has no series of yet).
 * @returns monitor id → series id (made now, or by a concurrent batch meanwhile)
 */
export async function createSeries(tx: SqlExecutor, node_id: string, missing: string[]): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  missing = [...missing].sort();
  const made = await tx<{ id: number; monitor_id: string }[]>`
    INSERT INTO check_series (monitor_id, node_id) SELECT m, ${node_id} FROM unnest(${missing}::text[]) AS m
    ON CONFLICT (monitor_id, node_id) DO NOTHING RETURNING id, monitor_id`;
  for (const r of made) ids.set(r.monitor_id, r.id);
  if (made.length < missing.length) {
    // Created meanwhile by a concurrent batch (ON CONFLICT waited for it to commit): now visible.
    const again = await tx<{ id: number; monitor_id: string }[]>`
      SELECT id, monitor_id FROM check_series WHERE node_id = ${node_id} AND monitor_id = ANY(${missing}::text[])`;
    for (const r of again) ids.set(r.monitor_id, r.id);
  }
  return ids;
}

/** One check row to insert (0025_checks.sql `checks`). */
export interface CheckInsert {
  series_id: number;
  scheduled_at: string;
  start_offset_ms: number;
  duration_ms: number;
  response_ms: number | null;
  success: boolean;
  error_class: string | null;
  error: string | null;
  /** JSON text, or null. */
  assertions: string | null;
  /** JSON text, or null (uncompressed: control-plane checks). */
  output: string | null;
  /** The output compressed (checks/output-codec.ts encodeOutput) as `\x…` hex text, or null; node checks use this, not `output`. */
  output_z?: string | null;
}

/**
 * Insert `rows` in one statement, skipping those stored before (same series and scheduled_at),
 * in key order so that concurrent batches lock rows in the same order.
 * @returns keys `series_id/epoch ms` of the rows inserted now
 */
export async function insertChecks(tx: SqlExecutor, rows: CheckInsert[]): Promise<Set<string>> {
  const col = <K extends keyof CheckInsert>(k: K) => rows.map((r) => r[k]);
  const inserted = await tx<{ series_id: number; scheduled_at: Date }[]>`
    INSERT INTO checks (scheduled_at, series_id, start_offset_ms, duration_ms, response_ms, success, error_class, error, assertions, output, output_z)
    SELECT * FROM unnest(${col('scheduled_at')}::timestamptz[], ${col('series_id')}::int[], ${col('start_offset_ms')}::int[],
      ${col('duration_ms')}::int[], ${col('response_ms')}::real[], ${bools(col('success'))}::text[]::boolean[], ${col('error_class')}::text[],
      ${col('error')}::text[], ${col('assertions')}::text[]::jsonb[], ${col('output')}::text[]::jsonb[], ${rows.map((r) => r.output_z ?? null)}::text[]::bytea[])
    ORDER BY 2, 1
    ON CONFLICT (series_id, scheduled_at) DO NOTHING
    RETURNING series_id, scheduled_at`;
  return new Set(inserted.map((r) => `${r.series_id}/${r.scheduled_at.getTime()}`));
}

/** What newly stored checks add to one round. */
export interface RoundAdd {
  monitor_id: string;
  scheduled_at: string;
  deadline_at: string;
  interval_s: number;
  /** Nodes placed now (the round's expected reports when it is new). */
  expected: number;
  reported: number;
  failed: number;
}

/**
 * Make sure the rounds of newly stored checks exist and are dirty (to be judged): a new round is
 * inserted (late when created after its deadline; `reported`/`failed` hold this batch's counts
 * until the verdict job recounts them from the checks). An existing round is written only when
 * it was judged already (dirty again: it is judged again) or its deadline has just passed (late):
 * while it waits, further reports of it cost no row version. Rows are written in key order (no
 * deadlock between batches of different nodes for the same rounds).
 */
export async function addToRounds(tx: SqlExecutor, adds: RoundAdd[]): Promise<void> {
  const col = <K extends keyof RoundAdd>(k: K) => adds.map((a) => a[k]);
  await tx`
    INSERT INTO check_rounds AS r (scheduled_at, deadline_at, monitor_id, interval_s, expected, reported, failed, late)
    SELECT u.at, u.deadline, u.m, u.iv, u.ex::smallint, u.n::smallint, u.f::smallint, u.deadline < now()
    FROM unnest(${col('scheduled_at')}::timestamptz[], ${col('deadline_at')}::timestamptz[], ${col('monitor_id')}::text[],
      ${col('interval_s')}::int[], ${col('expected')}::int[], ${col('reported')}::int[], ${col('failed')}::int[])
      AS u(at, deadline, m, iv, ex, n, f)
    ORDER BY u.m, u.at
    ON CONFLICT (monitor_id, scheduled_at) DO UPDATE SET dirty = true, late = r.late OR r.deadline_at < now()
      WHERE NOT r.dirty OR (NOT r.late AND r.deadline_at < now())`;
}

/**
 * A node check to store with what its round needs (see {@link storeNodeChecks}). Instants travel
 * as epoch ms and the output as base64 (Postgres makes timestamps and bytes of them): ISO text (24
 * characters against 13 digits) and `\x` hex (2 characters a byte against 4/3) made a row's
 * parameters about 280 bytes instead of 190, through the driver's escaping, the socket and
 * Postgres's parsing.
 */
export interface NodeCheckInsert extends Omit<CheckInsert, 'scheduled_at' | 'output' | 'output_z'> {
  /** The round's start (the check's scheduled_at), epoch ms. */
  scheduled_ms: number;
  /** The output's stored bytes as base64 (checks/output-codec.ts encodeOutputBase64), or null. */
  output_b64: string | null;
  monitor_id: string;
  /** The round's deadline, ms after its start. */
  deadline_offset_ms: number;
  interval_s: number;
  /** Nodes placed now (the round's expected reports when it is new). */
  expected: number;
  /**
   * The monitor's revision and placement version the check was judged at, when they were not read
   * in this batch (the check store's remembered view): the row is stored only if the monitor still
   * has both, else its monitor is returned as stale. Null: read in this batch, stored as it is.
   */
  judged_at?: { revision: number; placement_version: number } | null;
}

/**
 * Store a batch of node checks in ONE statement (one round trip, atomic on its own, so a batch
 * needs no transaction around it): the checks are inserted in key order, skipping those stored
 * before (same series and scheduled_at); `rows` may hold several nodes' checks of one round (the
 * check store writes several nodes' batches in one statement: a round's row then takes the
 * earliest deadline, the largest interval and expected count its rows carry; of rows with the
 * same (series, scheduled_at), the first stored wins); the rounds of those inserted now get their reports as
 * {@link addToRounds} does (from the rows actually inserted, counted in SQL); the hours (UTC) they
 * start in that ended before `hour_ms` (epoch ms, the start of the caller's current hour) are
 * marked for the rollup job. Row order and lock order are the same as in the separate
 * statements, so concurrent batches of different nodes for the same rounds do not deadlock.
 *
 * `judgeable`: a round that got checks now can be judged once this statement commits, by the
 * conditions the verdict job claims rounds on (decide.db.ts claimMonitors) that cost no read of
 * the checks, taken from the round rows the statement wrote (RETURNING): past its deadline,
 * judged before (dirty again now), or new and complete with this statement's checks alone (a
 * monitor placed on one node). A round that waits and got one more report is not written and
 * needs no wake: the verdict job locks a round before it counts its checks, so the pass that
 * judges it counts this one. A round of several nodes completed before its deadline is not seen
 * here (counting the other nodes' checks of the round made every batch cost Postgres about 8
 * times as much, docs/benchmarks.md "Alert path"): the poll judges it.
 *
 * `stale`: the monitors of rows carrying `judged_at` whose revision or placement version moved
 * since (or that are gone): none of their rows was stored; the caller reads them and judges again.
 * @returns how many checks were inserted now, whether a round they went to is judgeable, and the stale monitors
 */
export async function storeNodeChecks(tx: SqlExecutor, rows: NodeCheckInsert[], hour_ms: number): Promise<{ inserted: number; judgeable: boolean; stale: string[] }> {
  if (rows.length === 0) return { inserted: 0, judgeable: false, stale: [] };
  const col = <K extends keyof NodeCheckInsert>(k: K) => rows.map((r) => r[k] ?? null);
  const [out] = await tx<{ inserted: number; judgeable: boolean; stale: string[] }[]>`
    WITH input AS MATERIALIZED (
      SELECT u.*, 'epoch'::timestamptz + u.at_ms * interval '1 millisecond' AS at,
        'epoch'::timestamptz + (u.at_ms + u.deadline_offset_ms) * interval '1 millisecond' AS deadline_at,
        u.revision IS NULL OR EXISTS (SELECT 1 FROM monitors m WHERE m.id = u.monitor_id AND m.revision = u.revision
          AND m.placement_version = u.placement_version) AS fresh
      FROM unnest(${col('scheduled_ms')}::int8[], ${col('series_id')}::int[], ${col('start_offset_ms')}::int[],
        ${col('duration_ms')}::int[], ${col('response_ms')}::real[], ${bools(rows.map((r) => r.success))}::text[]::boolean[],
        ${col('error_class')}::text[], ${col('error')}::text[], ${col('assertions')}::text[]::jsonb[], ${col('output_b64')}::text[],
        ${col('monitor_id')}::text[], ${col('deadline_offset_ms')}::int[], ${col('interval_s')}::int[], ${col('expected')}::int[],
        ${rows.map((r) => r.judged_at?.revision ?? null)}::int8[], ${rows.map((r) => r.judged_at?.placement_version ?? null)}::int8[])
        WITH ORDINALITY AS u(at_ms, series_id, start_offset_ms, duration_ms, response_ms, success, error_class, error, assertions, output_b64,
          monitor_id, deadline_offset_ms, interval_s, expected, revision, placement_version, ord)
    ),
    ins AS (
      INSERT INTO checks (scheduled_at, series_id, start_offset_ms, duration_ms, response_ms, success, error_class, error, assertions, output_z)
      SELECT at, series_id, start_offset_ms, duration_ms, response_ms, success, error_class, error, assertions, decode(output_b64, 'base64')
      FROM input WHERE fresh ORDER BY series_id, at, ord
      ON CONFLICT (series_id, scheduled_at) DO NOTHING
      RETURNING series_id, scheduled_at
    ),
    added AS MATERIALIZED (
      SELECT DISTINCT ON (i.series_id, i.at) i.* FROM ins JOIN input i ON i.series_id = ins.series_id AND i.at = ins.scheduled_at AND i.fresh
      ORDER BY i.series_id, i.at, i.ord
    ),
    rounds AS (
      INSERT INTO check_rounds AS r (scheduled_at, deadline_at, monitor_id, interval_s, expected, reported, failed, late)
      SELECT at, min(deadline_at), monitor_id, max(interval_s), max(expected)::smallint, count(*)::smallint, (count(*) FILTER (WHERE NOT success))::smallint, min(deadline_at) < now()
      FROM added GROUP BY monitor_id, at
      ORDER BY monitor_id, at
      ON CONFLICT (monitor_id, scheduled_at) DO UPDATE SET dirty = true, late = r.late OR r.deadline_at < now()
        WHERE NOT r.dirty OR (NOT r.late AND r.deadline_at < now())
      RETURNING r.verdict IS NOT NULL OR r.deadline_at <= now() OR r.reported >= r.expected AS judgeable
    ),
    hours AS (
      INSERT INTO check_rollup_dirty (hour)
      SELECT DISTINCT 'epoch'::timestamptz + (at_ms - at_ms % 3600000) * interval '1 millisecond' FROM added WHERE at_ms < ${hour_ms}::int8
      ON CONFLICT (hour) DO NOTHING
    )
    SELECT (SELECT count(*)::int FROM added) AS inserted, EXISTS (SELECT 1 FROM rounds WHERE judgeable) AS judgeable,
      ARRAY(SELECT DISTINCT monitor_id FROM input WHERE NOT fresh) AS stale`;
  return out!;
}
