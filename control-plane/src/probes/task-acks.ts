import type { Sql } from '../db/sql.js';
import type { Logger } from '../log.js';
import { markTasksRunning } from './tasks.db.js';

/**
 * How long a node's acceptance of a task waits before it is written (ms). Most results come
 * sooner, and a task with a result needs no "running" row update at all: nodes answering at once
 * cost no ack write, and the acks of slower tasks are written in one statement per wait.
 */
export const ACK_WRITE_DELAY_MS = 200;

/** The `running` side of task acks (docs/api/probes.md status rule). */
export interface AckWriter {
  /** `node_id` accepted `task_id`: mark it running within `delay_ms`, unless its result comes first. */
  accepted(node_id: string, task_id: string): void;
  /** Results of `node_id` for these tasks were handled: their acks need no write. */
  settled(node_id: string, task_ids: Iterable<string>): void;
  /** Write every pending ack now. Resolves when written (errors are logged, not thrown). */
  flush(): Promise<void>;
}

/**
 * Task acks written late and in batches. The "running" state is advisory (a group is `running`
 * rather than `queued`; a task still `queued` is sent again when its node says hello, and the
 * agent ignores a task id it already holds), so it may lag by `delay_ms` and is committed
 * asynchronously (tasks.db.ts markTasksRunning). Before, every ack was its own transaction waiting
 * for a WAL flush: a 1000-node fan-out queued 1000 flushes ahead of its results.
 */
export function createAckWriter(sql: Sql, log: Logger, delay_ms = ACK_WRITE_DELAY_MS): AckWriter {
  const pending = new Map<string, string>();
  let timer: NodeJS.Timeout | null = null;
  let writing: Promise<void> = Promise.resolve();

  const flush = (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = null;
    const batch = [...pending].map(([task_id, node_id]) => ({ task_id, node_id }));
    pending.clear();
    writing = writing.then(async () => {
      if (batch.length === 0) return;
      try {
        await markTasksRunning(sql, batch);
      } catch (err) {
        log.warn({ err, acks: batch.length }, 'task acks not written; the tasks stay queued');
      }
    });
    return writing;
  };

  return {
    accepted(node_id, task_id) {
      pending.set(task_id, node_id);
      if (timer) return;
      timer = setTimeout(() => void flush(), delay_ms);
      timer.unref();
    },
    settled(node_id, task_ids) {
      for (const id of task_ids) if (pending.get(id) === node_id) pending.delete(id);
    },
    flush,
  };
}
