import type { Sql } from '../db/sql.js';
import { recordAttempts, type AttemptRecord } from './deliveries.db.js';

/** Attempts written per statement at most. */
const FLUSH_MAX = 500;

/**
 * Writes attempt outcomes in batches: every outcome that finishes within the same turn of the
 * event loop (and those that finish while a write is under way) goes into one statement
 * (recordAttempts), so a busy worker makes one round trip for many deliveries instead of one each.
 * `record` resolves once the outcome is committed (or rejects with the statement's error; the
 * claim then stays until its lease ends and the delivery is sent again).
 */
export function createRecorder(sql: Sql): { record(r: AttemptRecord): Promise<void> } {
  let queue: Array<{ r: AttemptRecord; resolve: () => void; reject: (e: unknown) => void }> = [];
  let scheduled = false;

  async function flush(): Promise<void> {
    scheduled = false;
    const batch = queue.slice(0, FLUSH_MAX);
    queue = queue.slice(batch.length);
    if (queue.length > 0) schedule();
    try {
      await recordAttempts(sql, batch.map((b) => b.r));
      for (const b of batch) b.resolve();
    } catch (err) {
      for (const b of batch) b.reject(err);
    }
  }

  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => void flush());
  }

  return {
    record(r) {
      return new Promise<void>((resolve, reject) => {
        queue.push({ r, resolve, reject });
        schedule();
      });
    },
  };
}
