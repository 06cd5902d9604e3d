import type { Config } from '../config/index.js';
import type { Sql } from '../db/sql.js';
import { claimOverdueTasks } from './tasks.db.js';
import type { Logger } from '../log.js';
import { failTask, overdueError } from './failures.js';
import { nodeLinkStates } from '../nodes/nodes.db.js';
import { signalGroups } from './signals.js';

const BATCH = 200;

/**
 * One sweep: claim overdue open tasks (deadline = created + timeout_ms + task_grace_ms) with
 * FOR UPDATE SKIP LOCKED, so any number of instances can sweep one database, and end each as
 * failed: "no result from the node within <timeout_ms> ms" (class timeout), or "task was never
 * accepted by the node" when it was still queued, naming the time the node disconnected when it
 * is offline (failures.ts overdueError). Repeats while full batches come back.
 * @returns how many tasks this call ended
 */
export async function sweepOverdueTasks(sql: Sql): Promise<number> {
  let total = 0;
  for (;;) {
    const ended = await sql.begin(async (tx) => {
      const tasks = await claimOverdueTasks(tx, BATCH);
      const nodes = await nodeLinkStates(tx, [...new Set(tasks.map((task) => task.node_id))]);
      let n = 0;
      for (const task of tasks) {
        const error = overdueError(task, nodes.get(task.node_id) ?? null);
        if (await failTask(sql, task.id, error, 'timeout', { tx })) n++;
      }
      return { n, claimed: tasks.length, groups: tasks.map((task) => task.group_id) };
    });
    signalGroups(ended.groups);
    total += ended.n;
    if (ended.claimed < BATCH) return total;
  }
}

/**
 * Run {@link sweepOverdueTasks} every `config.task_sweep_interval_ms` until the returned stop
 * function is called (main.ts starts one per instance; errors are logged, the timer goes on).
 * @returns `stop()`: clears the timer and waits for a sweep in progress
 */
export function startTaskSweeper(deps: { sql: Sql; log: Logger; config: Pick<Config, 'task_sweep_interval_ms'> }): () => Promise<void> {
  const log = deps.log.child({ module: 'tasks.sweeper' });
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = sweepOverdueTasks(deps.sql)
      .then((n) => { if (n) log.info({ ended: n }, 'overdue probe tasks failed'); })
      .catch((err) => { log.error({ err }, 'task sweep failed'); })
      .finally(() => { running = null; });
  }, deps.config.task_sweep_interval_ms);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
