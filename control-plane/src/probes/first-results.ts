import { batchCalls } from '../db/batch.js';
import type { Sql } from '../db/sql.js';
import { storeFirstResults, type NodeTaskResult } from './tasks.db.js';
import { WriteLatency } from './store-latency.js';

/** Results stored by one statement at most (a larger backlog takes several). */
const BATCH_MAX = 2000;

/**
 * First results of open tasks (tasks.db.ts storeFirstResults), stored for many nodes at once like
 * a group commit ({@link batchCalls}): a 1000-node fan-out's results then cost a few commits
 * instead of 1000, each of which waited for its own WAL flush. A caller's promise settles only
 * after the statement holding its results committed, so the hub's `result.ack` still follows the
 * commit.
 * @param isRowError true for a database error caused by a row's values: then every caller of that
 *   write gets null and stores its batch by the detailed path, where a bad row costs only itself
 */
export function firstResultWriter(sql: Sql, isRowError: (err: unknown) => boolean) {
  const write = batchCalls<NodeTaskResult[], Map<string, string> | null>(async (batches) => {
    try {
      const stored = await storeFirstResults(sql, batches.flat());
      return batches.map((results) => new Map(results.flatMap((r) => (stored.has(r.result_id) ? [[r.result_id, stored.get(r.result_id)!] as [string, string]] : []))));
    } catch (err) {
      if (isRowError(err)) return batches.map(() => null);
      throw err;
    }
  }, { max: BATCH_MAX, weight: (results) => results.length });

  const latency = new WriteLatency();
  /**
   * Store what can be stored at once of `results` (each carrying its sending node).
   * @returns result_id → group_id of the results stored, or null when the write met a row the
   *   database refuses (store them by the detailed path)
   */
  const store = (results: NodeTaskResult[]): Promise<Map<string, string> | null> => {
    if (results.length === 0) return Promise.resolve(new Map());
    const done = latency.start();
    const written = write(results);
    written.then(done, done);
    return written;
  };
  /** The slowest store (queue wait and commit) since the last call, ms (store-latency.ts). */
  return Object.assign(store, { latencyMs: () => latency.take() });
}
