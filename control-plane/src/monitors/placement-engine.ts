import type { Config } from '../config/index.js';
import type { SqlExecutor } from '../contracts.js';
import type { Sql } from '../db/sql.js';
import type { Logger } from '../log.js';
import { signalAssignmentsChanged } from './assignment-signals.js';
import { improveSpread, placeMonitor, type PlacementNode } from './placement.js';
import {
  claimQueued, livePlacements, lockMonitor, lockMonitorsSkipping, onlineNodeIds, placedMonitorsPage, placementNodes, tryJobLock, writePlacements,
  type PlacementMonitorRow, type PlacementWrites,
} from './placement.db.js';

/** Monitors claimed from the queue per transaction. */
export const PLACEMENT_BATCH = 500;
/** A monitor short of nodes is tried again this much later, ms. */
export const SHORT_RETRY_MS = 15_000;
/** A request reuses a node snapshot this young (loads kept current in memory), ms. */
const SNAPSHOT_TTL_MS = 5_000;
/** Monitors the rebalancer looks at per pass (it walks them all, a page per pass). */
const REBALANCE_PAGE = 5_000;

export type PlacementConfig = Pick<Config, 'placement_grace_ms' | 'placement_rebalance_moves_max'>;

/** Monitor placement over the database (docs/api/monitors.md "Placement"). */
export interface PlacementEngine {
  /**
   * Place one monitor now (a request created, changed, paused, resumed it): lock it, drop nodes
   * that are gone or unfit, fill up to node_count, reach its nodes with a new version.
   * @returns its live placement's node ids, sorted ([] when it no longer exists)
   */
  placeNow(monitor_id: string): Promise<string[]>;
  /** Work up to PLACEMENT_BATCH due queued monitors (skipping ones locked elsewhere). @returns how many */
  runQueue(): Promise<number>;
  /**
   * One rebalance pass (one instance at a time, advisory lock): a page of active public monitors,
   * at most `placement_rebalance_moves_max` of them moved one node each towards a better spread,
   * only onto nodes below 1.25 times the mean load. @returns how many moved
   */
  rebalance(): Promise<number>;
}

const RETRY_CODES = new Set(['40P01', '40001']);

/** Run `fn` again (up to 3 times) when Postgres aborts it for a deadlock or serialization failure. */
async function retrying<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= 3 || !RETRY_CODES.has((err as { code?: string }).code ?? '')) throw err;
    }
  }
}

function emptyWrites(): PlacementWrites {
  return { end: [], add: [], revise: [], done: [], short: [], retry_ms: SHORT_RETRY_MS };
}

/**
 * Add `m`'s placement to `w` (placement.ts placeMonitor over `nodes`). Kept nodes whose revision
 * is behind the monitor's get it again (their versions are bumped).
 * @returns the node ids it ends up on
 */
function plan(m: PlacementMonitorRow, placed: Map<string, number>, nodes: Map<string, PlacementNode>, w: PlacementWrites, random: () => number): string[] {
  const change = placeMonitor(m, [...placed.keys()], nodes, random);
  for (const id of change.end) w.end.push([m.id, id]);
  for (const id of change.add) w.add.push([m.id, id, m.revision]);
  if (change.keep.some((id) => placed.get(id) !== m.revision)) w.revise.push([m.id, m.revision]);
  (change.short ? w.short : w.done).push(m.id);
  return [...change.keep, ...change.add].sort();
}

/**
 * Build the placement engine. Requests share a node snapshot for SNAPSHOT_TTL_MS (loads updated
 * as they place); the queue and the rebalancer read a fresh one per pass.
 * @param random [0,1) source for ties (tests pass a seeded one)
 */
export function createPlacementEngine(deps: { sql: Sql; log: Logger; config: PlacementConfig; random?: () => number }): PlacementEngine {
  const { sql, config } = deps;
  const log = deps.log.child({ module: 'monitors.placement' });
  const random = deps.random ?? Math.random;
  let cached: { at: number; nodes: Promise<Map<string, PlacementNode>> } | null = null;
  let rebalance_after = '';

  const snapshot = (tx: SqlExecutor) => placementNodes(tx, config.placement_grace_ms);
  const cachedSnapshot = (): Promise<Map<string, PlacementNode>> => {
    if (!cached || Date.now() - cached.at > SNAPSHOT_TTL_MS) {
      const nodes = snapshot(sql);
      cached = { at: Date.now(), nodes };
      nodes.catch(() => { cached = null; });
    }
    return cached.nodes;
  };

  async function placeNow(monitor_id: string): Promise<string[]> {
    // Read before the transaction: the snapshot query takes a pool connection of its own, and
    // with a pool of one (embedded mode, main.ts) it would wait forever for the transaction's.
    const snapshot_nodes = await cachedSnapshot();
    const out = await retrying(() => sql.begin(async (tx) => {
      const locked = await lockMonitor(tx, monitor_id);
      if (!locked) return { node_ids: [], bumped: [] };
      const { monitor: m, placed } = locked;
      let w = emptyWrites();
      let node_ids = plan(m, placed, snapshot_nodes, w, random);
      const added = w.add.map((a) => a[1]);
      if (w.short.length > 0 || (added.length > 0 && (await onlineNodeIds(tx, added)).length < added.length)) {
        // The snapshot is up to SNAPSHOT_TTL_MS old: a node that just came online may be missing
        // from it, one that just went away may still be in it. Plan again on a fresh one.
        const fresh = snapshot(tx);
        cached = { at: Date.now(), nodes: fresh };
        w = emptyWrites();
        node_ids = plan(m, placed, await fresh, w, random);
      }
      return { node_ids, bumped: await writePlacements(tx, w) };
    }));
    signalAssignmentsChanged(out.bumped);
    return out.node_ids;
  }

  async function runQueue(): Promise<number> {
    let nodes: Map<string, PlacementNode> | null = null;
    const out = await retrying(() => sql.begin(async (tx) => {
      const claimed = await claimQueued(tx, PLACEMENT_BATCH);
      if (claimed.length === 0) return { claimed: 0, w: emptyWrites(), bumped: [] as string[] };
      nodes ??= await snapshot(tx);
      const placed = await livePlacements(tx, claimed.map((m) => m.id));
      const w = emptyWrites();
      for (const m of claimed) plan(m, placed.get(m.id)!, nodes, w, random);
      return { claimed: claimed.length, w, bumped: await writePlacements(tx, w) };
    }));
    signalAssignmentsChanged(out.bumped);
    if (out.claimed > 0) {
      cached = null; // loads moved
      log.info({ monitors: out.claimed, added: out.w.add.length, ended: out.w.end.length, short: out.w.short.length }, 'placement pass');
    }
    return out.claimed;
  }

  async function rebalance(): Promise<number> {
    if (config.placement_rebalance_moves_max === 0) return 0;
    let signal: string[] = [];
    const moved = await retrying(() => sql.begin(async (tx) => {
      if (!(await tryJobLock(tx, 'placement:rebalance'))) return [];
      const nodes = await snapshot(tx);
      const online = [...nodes.values()].filter((n) => n.state === 'online');
      if (online.length < 2) return [];
      const load_cap = Math.ceil((1.25 * online.reduce((s, n) => s + n.load, 0)) / online.length) + 1;
      const page = await placedMonitorsPage(tx, rebalance_after, REBALANCE_PAGE);
      rebalance_after = page.length < REBALANCE_PAGE ? '' : page[page.length - 1]!.id;
      const moves = new Map<string, { remove: string; add: string }>();
      for (const m of page) {
        if (moves.size >= config.placement_rebalance_moves_max) break;
        const mv = improveSpread(m, m.node_ids, nodes, load_cap);
        if (mv) moves.set(m.id, mv);
      }
      if (moves.size === 0) return [];
      const locked = await lockMonitorsSkipping(tx, [...moves.keys()]);
      const placed = await livePlacements(tx, locked.map((m) => m.id));
      const w = emptyWrites();
      for (const m of locked) {
        const mv = moves.get(m.id)!;
        const now = placed.get(m.id)!;
        if (m.status !== 'active' || !now.has(mv.remove) || now.has(mv.add)) continue; // changed meanwhile
        w.end.push([m.id, mv.remove]);
        w.add.push([m.id, mv.add, m.revision]);
      }
      if (w.add.length === 0) return [];
      signal = await writePlacements(tx, w);
      return w.add;
    }));
    signalAssignmentsChanged(signal);
    if (moved.length > 0) {
      cached = null;
      log.info({ moved: moved.length }, 'rebalance: monitors moved for a better spread');
    }
    return moved.length;
  }

  return { placeNow, runQueue, rebalance };
}
