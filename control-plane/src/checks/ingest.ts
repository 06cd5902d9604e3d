import type { MonitorResultEnvelope, MonitorType } from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';
import type { MonitorResultStore, SqlExecutor } from '../contracts.js';
import { batchCalls } from '../db/batch.js';
import { PLACEMENT_HISTORY_MS } from '../monitors/placement-job.js';
import { createSeries, encodeGroups, ingestMonitors, storeNodeChecks, type IngestMonitorRow, type NodeCheckInsert, type StoreGroup } from './ingest.db.js';
import { ROUND_CLOCK_TOLERANCE_MS, roundOf, type RoundHistory } from './ingest-rounds.js';
import { checkRetention } from './retention.js';
import { NodeMonitorMap } from './node-monitor-map.js';
import { CHECK_TRAITS, roundDeadlineMs } from './traits.js';
import type { VerdictWake } from './verdict-wake.js';

/** Why a monitor result is refused (sent back to the node; it is acked, so the node drops it). */
export const CHECK_REJECT = {
  not_assigned: 'monitor not assigned to this node',
  type_mismatch: 'result type does not match the monitor type',
  too_old: 'round is older than the rounds retention (results are accepted for as long as rounds are kept)',
  in_future: 'scheduled_at lies in the future (is the node\'s clock set?)',
  far_start: 'started_at is more than a day away from scheduled_at',
} as const;

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/**
 * Most checks in one write statement of batches stored outside a transaction ({@link createCheckStore}):
 * several nodes' batches that wait together go into one statement, up to this many checks.
 */
export const WRITE_MAX_CHECKS = 1000;

/**
 * Shared write statements in flight at once per pool. With one, Postgres sat idle while the
 * statement's commit waited for its WAL flush and the next statement's parameters came in; with
 * two, the next one runs meanwhile (docs/benchmarks.md "Check ingest", 2026-12-04). They hold
 * different nodes' series (a node's batches are stored one after another, and storeNodeChecks
 * locks each node's series for the statement) and upsert rounds in key order, so where they meet
 * (a round several nodes report) the later one waits for the earlier one's commit, never in a cycle.
 */
export const WRITES_IN_FLIGHT = 2;

/** One batch's checks waiting for a shared write: its rows and the start of its current hour (epoch ms). */
export interface PendingWrite {
  rows: NodeCheckInsert[];
  hour_ms: number;
  /**
   * Its full batch rows encoded ahead (ingest.db.ts encodeGroups with `full_only`: indexes into
   * `rows`), while an earlier statement is in flight; the checks in `rest` are cut and encoded
   * with the other batches' rest when the statement is built. Absent: all of them then.
   */
  encoded?: { groups: StoreGroup[]; rest: number[] };
}

/** What a shared write reports to each of its batches (ingest.db.ts storeNodeChecks). */
interface Written {
  /** A round the statement wrote to is judgeable. */
  judgeable: boolean;
  /** Monitors whose rows carried a revision or placement version they no longer have: not stored. */
  stale: string[];
}

/**
 * Several batches' checks in one statement (storeNodeChecks), outside a transaction, in the
 * batches' order: of two rows for one (series, round) (a node that sent a result again before its
 * first batch was acked), the first that may be stored is. Hours are marked up to the latest batch's hour.
 * @returns per batch, the statement's {@link Written}
 */
export async function writeBatches(sql: SqlExecutor, batches: PendingWrite[]): Promise<Written[]> {
  const rows = batches.length === 1 ? batches[0]!.rows : batches.flatMap((b) => b.rows);
  const hour_ms = Math.max(...batches.map((b) => b.hour_ms));
  // Batch rows encoded ahead keep their checks; the rest of every batch is cut together, so
  // small batches of several nodes share rows.
  const groups: StoreGroup[] = [];
  const rest: number[] = [];
  let offset = 0;
  for (const b of batches) {
    if (b.encoded === undefined) for (let i = 0; i < b.rows.length; i++) rest.push(offset + i);
    else {
      for (const g of b.encoded.groups) groups.push(offset === 0 ? g : { rows: g.rows.map((i) => offset + i), batch: g.batch });
      for (const i of b.encoded.rest) rest.push(offset + i);
    }
    offset += b.rows.length;
  }
  if (rest.length > 0) for (const g of encodeGroups(rest.map((i) => rows[i]!)).groups) groups.push({ rows: g.rows.map((i) => rest[i]!), batch: g.batch });
  const { judgeable, stale } = await storeNodeChecks(sql, rows, hour_ms, groups);
  const written = { judgeable, stale };
  return batches.map(() => written);
}

/** What a monitor's revision fixes, as the check store remembers it. */
interface Fixed {
  revision: number;
  /** The monitor's type, interval and creation (epoch ms) at that revision (every change of the first two bumps it). */
  type: MonitorType;
  interval_s: number;
  created_ms: number;
  /** The round deadline offset, ms after the round's start. */
  deadline_ms: number;
  schedule_spans: RoundHistory['schedule_spans'];
}

/** What a monitor's placement version fixes for one node, as the check store remembers it. */
interface Placed {
  placement_version: number;
  /** Nodes the monitor is placed on. */
  placed: number;
  /** The node's placement spans (ingest.db.ts IngestMonitorRow `placed_spans`), aged ones included. */
  placed_spans: Array<[number, number]>;
}

/** A monitor of a batch: as read for the node, what its revision fixes, its placement, and its round history. */
interface Read {
  row: IngestMonitorRow;
  fixed: Fixed;
  /** Nodes the monitor is placed on now (a new round's expected reports). */
  placed: number;
  history: RoundHistory;
}

/** The error stored for a failed result that came without one. */
export const MISSING_ERROR = 'the node reported a failure without a reason';

/**
 * `error` and `error_class` that agree with `success` (docs/api/checks.md "Result": `error` is null
 * when up, else why): a success keeps no error; a failure without an error gets
 * {@link MISSING_ERROR} (class `internal`, unless the node gave one). A node's `success` is never
 * changed: it is what the verdict counts.
 */
export function agreeingOutcome(r: { success: boolean; error: string | null; error_class: string | null }): { error: string | null; error_class: string | null } {
  if (r.success) return { error: null, error_class: null };
  return { error: r.error === null || r.error.trim() === '' ? MISSING_ERROR : r.error, error_class: r.error_class ?? 'internal' };
}

/**
 * The check store (contracts.ts MonitorResultStore; docs/architecture/checks.md "Ingest"): what the
 * result sink hands every monitor result to. Per batch, whatever its size, at most two
 * statements: one reads the monitors and the node's series (a monitor's placement count and the
 * node's placement spans only when its placement version changed, its config and schedule spans
 * only when its revision changed), one stores the checks as batch rows (each stored once, by
 * the series' marks), adds them to their rounds and marks ended hours for the rollup job
 * (ingest.db.ts storeNodeChecks; a check sent again costs a second transaction there). A node's
 * first result of a monitor costs one more, creating its series.
 * Outside a transaction (the sink's usual monitor-only batch) the read is skipped when the store
 * remembers every monitor of the batch for the node and that view refuses nothing: the write then
 * stores each check only if its monitor still has the revision and placement version it was
 * judged at, and the results of monitors that moved are read and judged again. The batches
 * waiting together share one write statement ({@link writeBatches}: a group commit,
 * {@link WRITES_IN_FLIGHT} statements in flight, each up to {@link WRITE_MAX_CHECKS} checks).
 *
 * A result is refused ({@link CHECK_REJECT}) when its monitor is not placed on the node (nor was
 * within the placement history: monitors/placement-job.ts PLACEMENT_HISTORY_MS), when its type is
 * not the monitor's, when its round is older than the rounds retention or ahead of our clock (by
 * more than ROUND_CLOCK_TOLERANCE_MS), when it started more than a day from its round, or when its
 * round is not one the monitor had while the node was placed on it (checks/ingest-rounds.ts
 * roundOf: aligned to the monitor's phase and interval of the time, not before it was created,
 * not while paused). Everything else counts as stored: newly, or already (the same node's result
 * for the same round, whatever its result id), so the node can drop it. Rounds get the new
 * reports and become due for judging (checks/decide.ts); a round counts the interval it had.
 *
 * `success` is stored as the node sent it; `error` and `error_class` are made to agree with it
 * ({@link agreeingOutcome}): the shared result schema does not tie them together.
 *
 * With `wake`, a batch stored outside a transaction (committed when its write statement returns)
 * that leaves a round judgeable (ingest.db.ts storeNodeChecks) wakes the verdict job of this
 * process (verdict-wake.ts). A batch stored inside a caller's transaction wakes nothing (its
 * commit comes later): the job's poll judges it.
 */
export function createCheckStore(deps: { config: Pick<Config, 'plan' | 'checks_retention_days' | 'checks_rounds_retention_days' | 'checks_rollup_retention_days' | 'checks_round_grace_ms' | 'placement_grace_ms'>; wake?: VerdictWake }): MonitorResultStore {
  const retention_ms = checkRetention(deps.config).rounds_days * DAY_MS;
  const grace_ms = deps.config.checks_round_grace_ms;
  // How long after a schedule or placement change a node may still run the old one (ingest-rounds.ts roundOf).
  const lag_ms = Math.max(deps.config.placement_grace_ms, ROUND_CLOCK_TOLERANCE_MS);
  // monitor id → what its revision fixes (every change of a monitor bumps it: 0020_monitors.sql):
  // its round deadline offset (ms after the round's start) and its schedule spans.
  const known = new Map<string, Fixed>();
  // (node_id, monitor_id) → series id, as read or made committed (outside any transaction: a series
  // created in a transaction that then rolls back is never remembered). A series is deleted only
  // with its monitor, and then the read finds no monitor: a remembered id is always current.
  const series_ids = new NodeMonitorMap<number>();
  // (node_id, monitor_id) → the placement answer read at a placement version, as read committed
  // (like `series_ids`: a version written by a transaction that then rolls back is never seen).
  // Every write that changes a monitor's placements moves its version in the same transaction
  // (0100_monitor_placement_version.sql), so a read at the version held here returns no spans and
  // these are still the monitor's: a node placed anew is read afresh at its first result.
  const placements = new NodeMonitorMap<Placed>();
  // Per pool: batches stored outside a transaction share write statements (db/batch.ts batchCalls,
  // a group commit: WRITES_IN_FLIGHT statements in flight, the batches that came meanwhile in the next).
  const writers = new WeakMap<SqlExecutor, (w: PendingWrite) => Promise<Written>>();
  const writerOf = (sql: SqlExecutor) => {
    let w = writers.get(sql);
    if (!w) writers.set(sql, (w = batchCalls((batches: PendingWrite[]) => writeBatches(sql, batches), { max: WRITE_MAX_CHECKS, weight: (b) => b.rows.length, in_flight: WRITES_IN_FLIGHT })));
    return w;
  };

  /** What `m`'s revision fixes: as read now when its revision moved (remembered), else as `held` (the batch's view, same revision). */
  function fixedOf(m: IngestMonitorRow, held: Fixed | undefined): Fixed {
    if (m.config === null || m.schedule_spans === null) return held!;
    const fixed = {
      revision: m.revision, type: m.type, interval_s: m.interval_s, created_ms: m.created_ms,
      deadline_ms: roundDeadlineMs(m.type, m.config, m.interval_s, grace_ms), schedule_spans: m.schedule_spans,
    };
    known.set(m.id, fixed);
    return fixed;
  }

  /**
   * `m`'s placement for `node_id`: as read now when its placement version moved (remembered when
   * `remember`), else as `held`; spans that ended more than the placement history before `now`
   * left out, as the read leaves them out.
   */
  function placedOf(node_id: string, m: IngestMonitorRow, held: Placed | undefined, remember: boolean, now: number): Placed {
    let p = held!;
    if (m.placed !== null && m.placed_spans !== null) {
      p = { placement_version: m.placement_version, placed: m.placed, placed_spans: m.placed_spans };
      if (remember) placements.set(node_id, m.id, p);
    }
    const since = now - PLACEMENT_HISTORY_MS;
    return p.placed_spans.every(([, until]) => until > since) ? p : { ...p, placed_spans: p.placed_spans.filter(([, until]) => until > since) };
  }

  /** Why `r` is refused, or the interval its round had (`m`: its monitor as read for the node, if it exists). */
  function judge(r: MonitorResultEnvelope, m: Read | undefined, now: number): { reason: string } | { interval_s: number } {
    const scheduled = Date.parse(r.scheduled_at);
    if (!m || m.history.placed_spans.length === 0) return { reason: CHECK_REJECT.not_assigned };
    if (m.row.type !== r.type) return { reason: `${CHECK_REJECT.type_mismatch} (${r.type} for a ${m.row.type} monitor)` };
    if (scheduled < now - retention_ms) return { reason: CHECK_REJECT.too_old };
    if (scheduled > now + ROUND_CLOCK_TOLERANCE_MS) return { reason: CHECK_REJECT.in_future };
    if (Math.abs(Date.parse(r.started_at) - scheduled) > DAY_MS) return { reason: CHECK_REJECT.far_start };
    return roundOf(m.history, scheduled, lag_ms);
  }

  /**
   * The rows {@link ingestMonitors} would return for `ids` if nothing changed since the store last
   * read them for `node_id` (config, spans and counts left null: the held ones stand), or null when
   * one of them is not remembered with its series and placement for this node.
   */
  function remembered(node_id: string, ids: string[], held: Map<string, Fixed | undefined>, held_placed: Map<string, Placed | undefined>, node_series: ReadonlyMap<string, number>): IngestMonitorRow[] | null {
    const rows: IngestMonitorRow[] = [];
    for (const id of ids) {
      const k = held.get(id);
      const p = held_placed.get(id);
      const series_id = node_series.get(id);
      if (k === undefined || p === undefined || series_id === undefined) return null;
      rows.push({
        id, type: k.type, interval_s: k.interval_s, revision: k.revision, placement_version: p.placement_version, placed: null,
        created_ms: k.created_ms, placed_spans: null, schedule_spans: null, series_id, config: null,
      });
    }
    return rows;
  }

  /**
   * Store a batch. Outside a transaction, a batch whose monitors are all remembered for the node
   * (revision, placement version, series) and whose results are all accepted by that view skips
   * the read: each check carries the revision and placement version it was judged at and is
   * stored only if the monitor still has both (ingest.db.ts storeNodeChecks `judged_at`); the
   * results of monitors that moved meanwhile are read and judged again (`read`: always read).
   */
  async function store(tx: SqlExecutor, node_id: string, results: MonitorResultEnvelope[], read = false): Promise<{ stored: string[]; rejected: Array<{ result_id: string; reason: string }> }> {
    const stored: string[] = [];
    const rejected: Array<{ result_id: string; reason: string }> = [];
    if (results.length === 0) return { stored, rejected };
    const now = Date.now();
    const ids = [...new Set(results.map((r) => r.monitor_id))];
    if (known.size > 100_000) known.clear();
    if (series_ids.size > 200_000) series_ids.clear();
    if (placements.size > 200_000) placements.clear();
    const committed = !('savepoint' in tx);
    // This batch's view of what it remembers: the read brings config and schedule of every monitor
    // whose revision is not the one held here, so the rest is always in `held`.
    const held = new Map(ids.map((id) => [id, known.get(id)]));
    const node_placements = placements.of(node_id);
    const node_series = series_ids.of(node_id);
    const held_placed = new Map(ids.map((id) => [id, node_placements.get(id)]));
    const view = (rows: IngestMonitorRow[]) => new Map(rows.map((row): [string, Read] => {
      const fixed = fixedOf(row, held.get(row.id));
      const { placed, placed_spans } = placedOf(node_id, row, held_placed.get(row.id), committed, now);
      return [row.id, { row, fixed, placed, history: { id: row.id, created_ms: row.created_ms, placed_spans, schedule_spans: fixed.schedule_spans } }];
    }));
    // Accepted results with the interval their round had.
    const judgeAll = (monitors: Map<string, Read>) => {
      const accepted: Array<[MonitorResultEnvelope, number]> = [];
      const refused: Array<{ result_id: string; reason: string }> = [];
      for (const r of results) {
        const verdict = judge(r, monitors.get(r.monitor_id), now);
        if ('reason' in verdict) refused.push({ result_id: r.result_id, reason: verdict.reason });
        else accepted.push([r, verdict.interval_s]);
      }
      return { accepted, refused };
    };

    // The remembered view, when it covers the batch and refuses nothing (a refusal is read again:
    // the view may be what is out of date).
    const mine = committed && !read ? remembered(node_id, ids, held, held_placed, node_series) : null;
    let monitors = mine && view(mine);
    let judged = monitors && judgeAll(monitors);
    const guarded = judged !== null && judged.refused.length === 0;
    if (!guarded) {
      const rows = await ingestMonitors(tx, node_id, ids, ids.map((id) => held.get(id)?.revision ?? -1), PLACEMENT_HISTORY_MS,
        ids.map((id) => node_series.get(id) ?? null), ids.map((id) => held_placed.get(id)?.placement_version ?? -1));
      if (committed) for (const row of rows) if (row.series_id !== null) series_ids.set(node_id, row.id, row.series_id);
      monitors = view(rows);
      judged = judgeAll(monitors);
    }
    const { accepted } = judged!;
    rejected.push(...judged!.refused);
    if (accepted.length === 0) return { stored, rejected };

    const series = new Map<string, number>();
    for (const { row } of monitors!.values()) if (row.series_id !== null) series.set(row.id, row.series_id);
    const missing = [...new Set(accepted.map(([r]) => r.monitor_id))].filter((id) => !series.has(id));
    if (missing.length > 0) {
      for (const [id, s] of await createSeries(tx, node_id, missing)) {
        series.set(id, s);
        // Committed already outside a transaction: the next batch need not read it.
        if (committed) series_ids.set(node_id, id, s);
      }
    }

    // One row per (series, round): a round sent twice in one batch is stored once. Rounds seen are
    // kept per series as numbers: a joined `series/scheduled` key cost ~2 µs a result to build
    // (a 13-digit number made text) and hash.
    const inserts: NodeCheckInsert[] = [];
    const seen = new Map<number, Set<number>>();
    for (const [r, interval_s] of accepted) {
      stored.push(r.result_id);
      const { fixed, placed, row } = monitors!.get(r.monitor_id)!;
      const series_id = series.get(r.monitor_id)!;
      const scheduled = Date.parse(r.scheduled_at);
      let rounds = seen.get(series_id);
      if (rounds === undefined) seen.set(series_id, (rounds = new Set()));
      else if (rounds.has(scheduled)) continue;
      rounds.add(scheduled);
      const started = Date.parse(r.started_at);
      const output = r.output as Record<string, unknown> | null;
      inserts.push({
        series_id, scheduled_ms: scheduled, start_offset_ms: started - scheduled,
        duration_ms: Date.parse(r.finished_at) - started, response_ms: CHECK_TRAITS[r.type].responseMs(output),
        success: r.success, ...agreeingOutcome(r),
        assertions: r.assertions.length > 0 ? r.assertions : null, output,
        monitor_id: r.monitor_id, node_id, deadline_offset_ms: fixed.deadline_ms, interval_s, expected: placed,
        judged_at: guarded ? { revision: row.revision, placement_version: row.placement_version } : null,
      });
    }
    const hour_ms = Math.floor(now / HOUR_MS) * HOUR_MS;
    if (!committed) {
      // Inside the caller's transaction: its own statement, and no wake (the commit is not ours
      // to see: the poll judges those rounds).
      await storeNodeChecks(tx, inserts, hour_ms);
      return { stored, rejected };
    }
    // Committed when it returns (the statement is atomic on its own).
    // Full batch rows are encoded now, while the statement in flight runs, not when the
    // next is built (the database would wait for it).
    const written = await writerOf(tx)({ rows: inserts, hour_ms, encoded: encodeGroups(inserts, true) });
    if (written.judgeable) deps.wake?.wake();
    const stale = new Set(written.stale);
    if (!guarded || !inserts.some((r) => stale.has(r.monitor_id))) return { stored, rejected };
    // Monitors that moved since they were remembered: their results read and judged again.
    const again = results.filter((r) => stale.has(r.monitor_id));
    const redo = new Set(again.map((r) => r.result_id));
    const o = await store(tx, node_id, again, true);
    return { stored: [...stored.filter((id) => !redo.has(id)), ...o.stored], rejected: [...rejected, ...o.rejected] };
  }

  return { store };
}
