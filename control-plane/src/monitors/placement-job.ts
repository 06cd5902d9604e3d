import type { Config } from '../config/index.js';
import type { Sql } from '../db/sql.js';
import type { Logger } from '../log.js';
import { createPlacementEngine, PLACEMENT_BATCH, type PlacementEngine } from './placement-engine.js';
import { pruneEndedPlacements, queueMonitorsOfGoneNodes } from './placement.db.js';
import { pruneRoundHistory } from './round-history.db.js';

/**
 * How long an ended placement still lets its node deliver the monitor's results, ms: as long as
 * an agent keeps results in its outbox by default (7 days), so nothing it buffered while it ran
 * the monitor is refused.
 */
export const PLACEMENT_HISTORY_MS = 7 * 24 * 3600_000;
/** Ended placements are pruned at most this often, ms. */
const PRUNE_EVERY_MS = 3600_000;

export type PlacementJobConfig = Pick<Config, 'placement_grace_ms' | 'placement_interval_ms' | 'placement_rebalance_interval_ms' | 'placement_rebalance_moves_max'>;

/**
 * The placement job of one instance (any number may run: the queue is claimed with FOR UPDATE
 * SKIP LOCKED, the rebalancer with an advisory lock). Every `placement_interval_ms`:
 * 1. queue the monitors placed on nodes that are gone (offline past `placement_grace_ms`,
 *    disabled, banned, removed);
 * 2. work the queue until nothing is due (created or changed monitors that no request placed,
 *    monitors of gone nodes, monitors short of nodes retried);
 * 3. every `placement_rebalance_interval_ms`, one rebalance pass (better spread from new nodes);
 * 4. hourly, forget placements, and the spans of monitors' schedules and placements
 *    (round-history.db.ts), ended more than PLACEMENT_HISTORY_MS ago.
 * Errors are logged and the next pass tries again.
 * @returns `stop()` (waits for a pass in progress) and `runOnce()` (tests and benchmarks)
 */
export function startPlacementJob(deps: { sql: Sql; log: Logger; config: PlacementJobConfig; engine?: PlacementEngine }): { stop(): Promise<void>; runOnce(): Promise<void> } {
  const { sql, config } = deps;
  const log = deps.log.child({ module: 'monitors.placement-job' });
  const engine = deps.engine ?? createPlacementEngine({ sql, log: deps.log, config });
  let last_rebalance = Date.now();
  let last_prune = 0;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();

  async function pass(): Promise<void> {
    await queueMonitorsOfGoneNodes(sql, config.placement_grace_ms);
    while (!stopped && (await engine.runQueue()) === PLACEMENT_BATCH) { /* more are due */ }
    if (config.placement_rebalance_interval_ms > 0 && Date.now() - last_rebalance >= config.placement_rebalance_interval_ms) {
      last_rebalance = Date.now();
      await engine.rebalance();
    }
    if (Date.now() - last_prune >= PRUNE_EVERY_MS) {
      last_prune = Date.now();
      const pruned = await pruneEndedPlacements(sql, PLACEMENT_HISTORY_MS);
      const spans = await pruneRoundHistory(sql, PLACEMENT_HISTORY_MS);
      if (pruned + spans > 0) log.info({ pruned, spans }, 'old placements forgotten');
    }
  }

  const runOnce = (): Promise<void> => {
    running = running.then(pass).catch((err: unknown) => log.error({ err }, 'placement pass failed'));
    return running;
  };
  let busy = false;
  const timer = setInterval(() => {
    if (stopped || busy) return; // a long pass is not queued behind itself
    busy = true;
    void runOnce().finally(() => { busy = false; });
  }, config.placement_interval_ms);
  timer.unref();
  return {
    runOnce,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
