import type { MonitorType } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';
import { inTransaction } from '../db/transaction.js';
import { boolTexts as bools } from '../db/array-text.js';
import { BATCH_MAX_CHECKS, encodeBatch, splitBatches, type BatchCheck, type EncodedBatch } from './batch-codec.js';

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

/**
 * A node check to store (the fields a batch keeps: batch-codec.ts BatchCheck) with what its round
 * needs (see {@link storeNodeChecks}).
 */
export interface NodeCheckInsert extends BatchCheck {
  monitor_id: string;
  /** The node that ran it (its series' node). */
  node_id: string;
  /** The round's deadline, ms after its start. */
  deadline_offset_ms: number;
  interval_s: number;
  /** Nodes placed now (the round's expected reports when it is new). */
  expected: number;
  /**
   * The monitor's revision and placement version the check was judged at, when they were not read
   * in this batch (the check store's remembered view): the check is stored only if the monitor still
   * has both, else its monitor is returned as stale. Null: read in this batch, stored as it is.
   */
  judged_at?: { revision: number; placement_version: number } | null;
}

/** What {@link storeNodeChecks} reports. */
export interface StoredNodeChecks {
  /** Checks stored now (not stored before). */
  inserted: number;
  /** A round they went to can be judged now. */
  judgeable: boolean;
  /** Monitors whose checks carried a revision or placement version they no longer have: none of their checks was stored. */
  stale: string[];
}

/** One batch row a store statement writes: the indexes of its checks in the statement's rows, in their order in the batch, and the batch encoded. */
export interface StoreGroup { rows: number[]; batch: EncodedBatch }

/**
 * `rows` cut into batch rows (batch-codec.ts splitBatches) and encoded; with `full_only`, only the
 * batches that are full (BATCH_MAX_CHECKS checks), the indexes of the other checks in `rest`.
 * What {@link storeNodeChecks} stores as given.
 */
export function encodeGroups(rows: BatchCheck[], full_only = false): { groups: StoreGroup[]; rest: number[] } {
  const groups: StoreGroup[] = [];
  const rest: number[] = [];
  for (const g of splitBatches(rows)) {
    if (full_only && g.length < BATCH_MAX_CHECKS) rest.push(...g);
    else groups.push({ rows: g, batch: encodeBatch(g.map((i) => rows[i]!)) });
  }
  return { groups, rest };
}

/** A check the first statement could not tell from one stored before: where it lies, and which input row it is. */
interface Maybe { batch_id: string; first_ms: number; pos: number; ord: number }

/**
 * A scalar subquery that takes the transaction-level advisory lock of each node in `node_ids`, in
 * the order of their keys, and counts them: two statements that may move the same series' marks
 * (a series is one node's) take their nodes' locks before any mark and hold them to their commit,
 * so they run one after the other and cannot deadlock on the marks, which a statement then moves
 * in whatever order its plan visits them. Two nodes whose keys collide only wait for each other.
 */
function nodeLocks(tx: SqlExecutor, node_ids: string[]) {
  return tx`(SELECT count(pg_advisory_xact_lock(hashtext('vantage.series_marks'), x.k))
    FROM (SELECT DISTINCT hashtext(n) AS k FROM unnest(${[...new Set(node_ids)]}::text[]) AS n ORDER BY 1) x)`;
}

/**
 * The CTEs `rounds` and `hours` of a store statement over the CTE `source` (the checks stored now:
 * at, at_ms, deadline_at, monitor_id, interval_s, expected, success): each check counted into its
 * round (a new round inserted, late when created after its deadline; an existing one gets the
 * counts added and is dirty again, late once its deadline has passed), rows in key order (no
 * deadlock between batches of different nodes for the same rounds); `rounds` returns whether each
 * round written can be judged now (decide.db.ts claimMonitors: past its deadline, judged before, or
 * complete). `hours`: the UTC hours they start in that ended before `hour_ms`, for the rollup job.
 */
function countedCtes(tx: SqlExecutor, source: 'added' | 'fresh', hour_ms: number) {
  return tx`
    rounds AS (
      INSERT INTO check_rounds AS r (scheduled_at, deadline_at, monitor_id, interval_s, expected, reported, failed, late)
      SELECT at, min(deadline_at), monitor_id, max(interval_s), max(expected)::smallint, count(*)::smallint, (count(*) FILTER (WHERE NOT success))::smallint, min(deadline_at) < now()
      FROM ${tx(source)} GROUP BY monitor_id, at
      ORDER BY monitor_id, at
      ON CONFLICT (monitor_id, scheduled_at) DO UPDATE SET reported = r.reported + excluded.reported, failed = r.failed + excluded.failed,
        dirty = true, late = r.late OR r.deadline_at < now()
      RETURNING r.verdict IS NOT NULL OR r.deadline_at <= now() OR r.reported >= r.expected AS judgeable
    ),
    hours AS (
      INSERT INTO check_rollup_dirty (hour)
      SELECT DISTINCT 'epoch'::timestamptz + (at_ms - at_ms % 3600000) * interval '1 millisecond' FROM ${tx(source)} WHERE at_ms < ${hour_ms}::int8
      ON CONFLICT (hour) DO NOTHING
    )`;
}

/**
 * Store node checks (several nodes' batches may come together) as batch rows
 * (0101_check_batches.sql; `groups`: every row in exactly one, by default cut by
 * checks/batch-codec.ts splitBatches and encoded here), keeping every check
 * stored once, in one statement when the checks come in order (a second transaction otherwise):
 *
 * - Each series' mark (`check_series.last_at`) tells a new check from one that may have been
 *   stored before: a check after the mark its series had is new (a node's outbox releases results
 *   in order); of two with the same (series, scheduled_at) in `rows` the first is. One UPDATE moves
 *   every mark to its series' latest check and returns the mark it replaced (`prev_at`,
 *   0104_check_series_prev_at.sql); the rows' nodes are locked first ({@link nodeLocks}), so
 *   statements over the same series wait for each other rather than deadlock. New checks are
 *   counted into their rounds (`reported`/`failed`, what the verdict job judges by: each check
 *   counted once, so no check is read to judge a round), which are made dirty (a new round is late
 *   when created after its deadline, an existing one when its deadline has passed); the UTC hours
 *   they start in that ended before `hour_ms` are marked for the rollup job.
 * - A check at or before its mark is stored hidden (the batch row's `hidden`), and then, in a
 *   transaction that holds its nodes' locks (the statement's snapshot then sees every batch
 *   committed before), looked up among the stored checks: found, it stays hidden (a duplicate);
 *   not found (a backlog sent out of order), it is shown and counted into its round (dirty
 *   again: judged again, late when past its deadline). Until that transaction commits it is invisible;
 *   should the process stop in between, the node, never acknowledged, sends it again (a row left
 *   with hidden checks that are never shown costs their bytes until its day is packed).
 * - Checks of monitors whose `judged_at` no longer holds are stored hidden and their monitors
 *   returned as `stale` (the caller reads them and judges again). A batch row with nothing to show
 *   is not written.
 *
 * `judgeable`: a round that got checks now can be judged once this commits, by the conditions
 * the verdict job claims rounds on (decide.db.ts claimMonitors), from the round rows written: past
 * its deadline, judged before, or complete (as many checks counted as nodes expected). A round the
 * verdict job is judging meanwhile is locked by it: the count waits for its commit and makes the
 * round dirty again.
 */
export async function storeNodeChecks(ex: SqlExecutor, rows: NodeCheckInsert[], hour_ms: number,
  groups: StoreGroup[] = encodeGroups(rows).groups): Promise<StoredNodeChecks> {
  if (rows.length === 0) return { inserted: 0, judgeable: false, stale: [] };
  const k = new Array<number>(rows.length);
  const pos = new Array<number>(rows.length);
  const encoded = groups.map((g, j) => {
    g.rows.forEach((i, p) => {
      k[i] = j + 1;
      pos[i] = p + 1;
    });
    return g.batch;
  });
  const col = <K extends keyof NodeCheckInsert>(key: K) => rows.map((r) => r[key] ?? null);
  const [out] = await ex<Array<{ inserted: number; judgeable: boolean; stale: string[]; maybe: Maybe[] | null }>>`
    WITH input AS MATERIALIZED (
      SELECT u.*, 'epoch'::timestamptz + u.at_ms * interval '1 millisecond' AS at,
        'epoch'::timestamptz + (u.at_ms + u.deadline_offset_ms) * interval '1 millisecond' AS deadline_at,
        u.revision IS NULL OR EXISTS (SELECT 1 FROM monitors m WHERE m.id = u.monitor_id AND m.revision = u.revision
          AND m.placement_version = u.placement_version) AS fresh
      FROM unnest(${col('scheduled_ms')}::int8[], ${col('series_id')}::int4[], ${bools(rows.map((r) => r.success))}::text[]::boolean[],
        ${col('monitor_id')}::text[], ${col('deadline_offset_ms')}::int[], ${col('interval_s')}::int[], ${col('expected')}::int[],
        ${rows.map((r) => r.judged_at?.revision ?? null)}::int8[], ${rows.map((r) => r.judged_at?.placement_version ?? null)}::int8[], ${k}::int4[], ${pos}::int4[])
        WITH ORDINALITY AS u(at_ms, series_id, success, monitor_id, deadline_offset_ms, interval_s, expected, revision, placement_version, k, pos, ord)
      WHERE ${nodeLocks(ex, rows.map((r) => r.node_id))} >= 0
    ),
    old AS MATERIALIZED (
      UPDATE check_series s SET prev_at = s.last_at, last_at = greatest(s.last_at, a.at)
      FROM (SELECT series_id, max(at) AS at FROM input WHERE fresh GROUP BY series_id) a WHERE s.id = a.series_id
      RETURNING s.id, s.prev_at AS last_at
    ),
    added AS MATERIALIZED (
      SELECT DISTINCT ON (i.series_id, i.at) i.* FROM input i JOIN old o ON o.id = i.series_id WHERE i.fresh AND i.at > o.last_at
      ORDER BY i.series_id, i.at, i.ord
    ),
    maybe AS MATERIALIZED (
      SELECT i.k, i.pos, i.ord FROM input i JOIN old o ON o.id = i.series_id WHERE i.fresh AND i.at <= o.last_at
    ),
    ${countedCtes(ex, 'added', hour_ms)},
    layout AS MATERIALIZED (
      SELECT i.k, array_agg(i.series_id ORDER BY i.pos) AS series, array_agg(i.pos ORDER BY i.pos) FILTER (WHERE a.ord IS NULL) AS hidden,
        count(a.ord) + count(m.ord) AS kept
      FROM input i LEFT JOIN added a ON a.ord = i.ord LEFT JOIN maybe m ON m.ord = i.ord GROUP BY i.k
    ),
    kept AS MATERIALIZED (
      SELECT b.*, l.series, l.hidden, nextval('check_batches_id_seq') AS id
      FROM unnest(${encoded.map((e) => e.first_ms)}::int8[], ${encoded.map((e) => e.last_ms)}::int8[],
        ${encoded.map((e) => e.dir.toString('base64'))}::text[], ${encoded.map((e) => e.data.toString('base64'))}::text[])
        WITH ORDINALITY AS b(first_ms, last_ms, dir, data, k)
      JOIN layout l ON l.k = b.k AND l.kept > 0
    ),
    stored AS (
      INSERT INTO check_batches (id, first_at, last_at, series, hidden, dir, data)
      SELECT b.id, 'epoch'::timestamptz + b.first_ms * interval '1 millisecond', 'epoch'::timestamptz + b.last_ms * interval '1 millisecond',
        b.series, b.hidden, decode(b.dir, 'base64'), decode(b.data, 'base64')
      FROM kept b
    )
    SELECT (SELECT count(*)::int FROM added) AS inserted, EXISTS (SELECT 1 FROM rounds WHERE judgeable) AS judgeable,
      ARRAY(SELECT DISTINCT monitor_id FROM input WHERE NOT fresh) AS stale,
      (SELECT json_agg(json_build_object('batch_id', b.id::text, 'first_ms', b.first_ms, 'pos', m.pos, 'ord', m.ord))
        FROM maybe m JOIN kept b ON b.k = m.k) AS maybe`;
  const result: StoredNodeChecks = { inserted: out!.inserted, judgeable: out!.judgeable, stale: out!.stale };
  if (out!.maybe === null) return result;
  const resolved = await inTransaction(ex, (tx) => resolveMaybe(tx, rows, out!.maybe!, hour_ms));
  return { inserted: result.inserted + resolved.inserted, judgeable: result.judgeable || resolved.judgeable, stale: result.stale };
}

/**
 * The second step of {@link storeNodeChecks} for checks stored hidden at or before their series'
 * mark (`maybe`: where each lies and its index + 1 in `rows`), in a transaction: their nodes are
 * locked first ({@link nodeLocks}; every statement that moves their series' marks takes them), so
 * the next statement's snapshot holds every batch committed before; a
 * check found among the stored checks stays hidden, the others are shown and go to their rounds
 * (counted, dirty again, late when past their deadline), and their hours are marked for the rollup job. A
 * batch row left with nothing to show (a batch sent again whole) is deleted.
 */
async function resolveMaybe(tx: SqlExecutor, rows: NodeCheckInsert[], maybe: Maybe[], hour_ms: number): Promise<{ inserted: number; judgeable: boolean }> {
  const of = maybe.map((m) => rows[m.ord - 1]!);
  await tx`SELECT ${nodeLocks(tx, of.map((r) => r.node_id))}`;
  const [out] = await tx<Array<{ inserted: number; judgeable: boolean }>>`
    WITH m AS (
      SELECT u.*, 'epoch'::timestamptz + u.at_ms * interval '1 millisecond' AS at,
        'epoch'::timestamptz + u.first_ms * interval '1 millisecond' AS first_at,
        'epoch'::timestamptz + (u.at_ms + u.deadline_offset_ms) * interval '1 millisecond' AS deadline_at
      FROM unnest(${maybe.map((m) => m.batch_id)}::int8[], ${maybe.map((m) => m.first_ms)}::int8[], ${maybe.map((m) => m.pos)}::int4[],
        ${of.map((r) => r.scheduled_ms)}::int8[], ${of.map((r) => r.series_id)}::int4[], ${bools(of.map((r) => r.success))}::text[]::boolean[],
        ${of.map((r) => r.monitor_id)}::text[], ${of.map((r) => r.deadline_offset_ms)}::int[], ${of.map((r) => r.interval_s)}::int[],
        ${of.map((r) => r.expected)}::int[])
        AS u(batch_id, first_ms, pos, at_ms, series_id, success, monitor_id, deadline_offset_ms, interval_s, expected)
    ),
    fresh AS MATERIALIZED (
      SELECT DISTINCT ON (m.series_id, m.at) m.* FROM m
      WHERE NOT EXISTS (SELECT 1 FROM check_entries(ARRAY[m.series_id], m.at, m.at + interval '1 millisecond'))
      ORDER BY m.series_id, m.at, m.batch_id, m.pos
    ),
    shown AS (
      UPDATE check_batches b SET hidden = NULLIF(ARRAY(SELECT h FROM unnest(b.hidden) AS h WHERE h <> ALL (f.ps) ORDER BY h), '{}')
      FROM (SELECT batch_id, first_at, array_agg(pos) AS ps FROM fresh GROUP BY 1, 2) f
      WHERE b.id = f.batch_id AND b.first_at = f.first_at
    ),
    gone AS (
      DELETE FROM check_batches b USING (SELECT DISTINCT batch_id, first_at FROM m) d
      WHERE b.id = d.batch_id AND b.first_at = d.first_at AND NOT EXISTS (SELECT 1 FROM fresh f WHERE f.batch_id = d.batch_id)
        AND cardinality(b.hidden) = cardinality(b.series)
    ),
    ${countedCtes(tx, 'fresh', hour_ms)}
    SELECT (SELECT count(*)::int FROM fresh) AS inserted, EXISTS (SELECT 1 FROM rounds WHERE judgeable) AS judgeable`;
  return out!;
}
