import type { MonitorResultEnvelope, MonitorType } from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';
import type { MonitorResultStore, SqlExecutor } from '../contracts.js';
import { PLACEMENT_HISTORY_MS } from '../monitors/placement-job.js';
import { createSeries, ingestMonitors, storeNodeChecks, type IngestMonitorRow, type NodeCheckInsert } from './ingest.db.js';
import { ROUND_CLOCK_TOLERANCE_MS, roundOf, type RoundHistory } from './ingest-rounds.js';
import { encodeOutput } from './output-codec.js';
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

/** What a monitor's revision fixes, as the check store remembers it. */
interface Fixed {
  revision: number;
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
 * result sink hands every monitor result to. Per batch, two statements whatever its size: one
 * reads the monitors and the node's series (a monitor's placement count and the node's placement
 * spans only when its placement version changed, its config and schedule spans only when its
 * revision changed), one stores the checks (ON CONFLICT DO NOTHING on (series, scheduled_at)),
 * adds them to their rounds and marks ended hours for the rollup job (ingest.db.ts
 * storeNodeChecks). A node's first result of a monitor costs one more, creating its series.
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
 * With `wake`, a batch stored outside a transaction (the sink's usual monitor-only batch: one
 * statement, committed when it returns) that leaves a round judgeable (ingest.db.ts
 * storeNodeChecks) wakes the verdict job of this process (verdict-wake.ts). A batch stored inside
 * a caller's transaction wakes nothing (its commit comes later): the job's poll judges it.
 */
export function createCheckStore(deps: { config: Pick<Config, 'plan' | 'checks_retention_days' | 'checks_rounds_retention_days' | 'checks_rollup_retention_days' | 'checks_round_grace_ms' | 'placement_grace_ms'>; wake?: VerdictWake }): MonitorResultStore {
  const retention_ms = checkRetention(deps.config).rounds_days * DAY_MS;
  const grace_ms = deps.config.checks_round_grace_ms;
  // How long after a schedule or placement change a node may still run the old one (ingest-rounds.ts roundOf).
  const lag_ms = Math.max(deps.config.placement_grace_ms, ROUND_CLOCK_TOLERANCE_MS);
  // monitor id → what its revision fixes (every change of a monitor bumps it: 0020_monitors.sql):
  // its round deadline offset (ms after the round's start) and its schedule spans.
  const known = new Map<string, Fixed>();
  // (node_id, monitor_id) → series id, as read committed (outside any transaction: a series created
  // in a transaction that then rolls back is never remembered). A series is deleted only with its
  // monitor, and then the read finds no monitor: a remembered id is always current.
  const series_ids = new NodeMonitorMap<number>();
  // (node_id, monitor_id) → the placement answer read at a placement version, as read committed
  // (like `series_ids`: a version written by a transaction that then rolls back is never seen).
  // Every write that changes a monitor's placements moves its version in the same transaction
  // (0100_monitor_placement_version.sql), so a read at the version held here returns no spans and
  // these are still the monitor's: a node placed anew is read afresh at its first result.
  const placements = new NodeMonitorMap<Placed>();

  /** What `m`'s revision fixes: as read now when its revision moved (remembered), else as `held` (the batch's view, same revision). */
  function fixedOf(m: IngestMonitorRow, held: Fixed | undefined): Fixed {
    if (m.config === null || m.schedule_spans === null) return held!;
    const fixed = { revision: m.revision, deadline_ms: roundDeadlineMs(m.type, m.config, m.interval_s, grace_ms), schedule_spans: m.schedule_spans };
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

  async function store(tx: SqlExecutor, node_id: string, results: MonitorResultEnvelope[]) {
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
    const rows = await ingestMonitors(tx, node_id, ids, ids.map((id) => held.get(id)?.revision ?? -1), PLACEMENT_HISTORY_MS,
      ids.map((id) => node_series.get(id) ?? null), ids.map((id) => held_placed.get(id)?.placement_version ?? -1));
    if (committed) for (const row of rows) if (row.series_id !== null) series_ids.set(node_id, row.id, row.series_id);
    const monitors = new Map(rows.map((row): [string, Read] => {
      const fixed = fixedOf(row, held.get(row.id));
      const { placed, placed_spans } = placedOf(node_id, row, held_placed.get(row.id), committed, now);
      return [row.id, { row, fixed, placed, history: { id: row.id, created_ms: row.created_ms, placed_spans, schedule_spans: fixed.schedule_spans } }];
    }));

    // Accepted results with the interval their round had.
    const accepted: Array<[MonitorResultEnvelope, number]> = [];
    for (const r of results) {
      const verdict = judge(r, monitors.get(r.monitor_id), now);
      if ('reason' in verdict) rejected.push({ result_id: r.result_id, reason: verdict.reason });
      else accepted.push([r, verdict.interval_s]);
    }
    if (accepted.length === 0) return { stored, rejected };

    const series = new Map<string, number>();
    for (const { row } of monitors.values()) if (row.series_id !== null) series.set(row.id, row.series_id);
    const missing = [...new Set(accepted.map(([r]) => r.monitor_id))].filter((id) => !series.has(id));
    if (missing.length > 0) for (const [id, s] of await createSeries(tx, node_id, missing)) series.set(id, s);

    // One row per (series, round): a round sent twice in one batch is stored once. Rounds seen are
    // kept per series as numbers: a joined `series/scheduled` key cost ~2 µs a result to build
    // (a 13-digit number made text) and hash.
    const inserts: NodeCheckInsert[] = [];
    const seen = new Map<number, Set<number>>();
    for (const [r, interval_s] of accepted) {
      stored.push(r.result_id);
      const { fixed, placed } = monitors.get(r.monitor_id)!;
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
        assertions: r.assertions.length > 0 ? JSON.stringify(r.assertions) : null,
        output_z: output === null ? null : encodeOutput(output),
        monitor_id: r.monitor_id, deadline_offset_ms: fixed.deadline_ms, interval_s, expected: placed,
      });
    }
    const { judgeable } = await storeNodeChecks(tx, inserts, Math.floor(now / HOUR_MS) * HOUR_MS);
    // Committed already unless `tx` is a transaction (its commit is not ours to see: the poll judges those rounds).
    if (judgeable && !('savepoint' in tx)) deps.wake?.wake();
    return { stored, rejected };
  }

  return { store };
}
