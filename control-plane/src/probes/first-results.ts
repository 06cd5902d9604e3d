import type { Sql } from '../db/sql.js';
import { storeFirstResults, type NodeTaskResult } from './tasks.db.js';

interface Waiting { results: NodeTaskResult[]; resolve: (stored: Map<string, string> | null) => void; reject: (err: unknown) => void }

/** Results stored by one statement at most (a larger backlog takes several). */
const BATCH_MAX = 2000;

/**
 * First results of open tasks (tasks.db.ts storeFirstResults), stored for many nodes at once like
 * a group commit, without a timer: the first batch starts a write on the next turn of the event
 * loop, and every batch that arrives while a write is in flight goes into the following one. A
 * 1000-node fan-out's results then cost a few commits instead of 1000, each of which waited for
 * its own WAL flush. A caller's promise settles only after the statement holding its results
 * committed, so the hub's `result.ack` still follows the commit.
 * @param isRowError true for a database error caused by a row's values: then every caller of that
 *   write gets null and stores its batch by the detailed path, where a bad row costs only itself
 */
export function firstResultWriter(sql: Sql, isRowError: (err: unknown) => boolean) {
  const queue: Waiting[] = [];
  let flushing = false;

  const flush = async () => {
    while (queue.length > 0) {
      const batch: Waiting[] = [];
      let n = 0;
      while (queue.length > 0 && (batch.length === 0 || n + queue[0]!.results.length <= BATCH_MAX)) {
        const w = queue.shift()!;
        batch.push(w);
        n += w.results.length;
      }
      try {
        const stored = await storeFirstResults(sql, batch.flatMap((w) => w.results));
        for (const w of batch) w.resolve(new Map(w.results.flatMap((r) => (stored.has(r.result_id) ? [[r.result_id, stored.get(r.result_id)!] as [string, string]] : []))));
      } catch (err) {
        for (const w of batch) if (isRowError(err)) w.resolve(null); else w.reject(err);
      }
    }
    flushing = false;
  };

  /**
   * Store what can be stored at once of `results` (each carrying its sending node).
   * @returns result_id → group_id of the results stored, or null when the write met a row the
   *   database refuses (store them by the detailed path)
   */
  return function store(results: NodeTaskResult[]): Promise<Map<string, string> | null> {
    if (results.length === 0) return Promise.resolve(new Map());
    return new Promise((resolve, reject) => {
      queue.push({ results, resolve, reject });
      if (flushing) return;
      flushing = true;
      setImmediate(() => void flush());
    });
  };
}
