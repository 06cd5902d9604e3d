import { newId, type FailureClass } from '@vantage/shared-protocol';
import type { Sql } from '../db/sql.js';
import { lockTask, runningTasksNotHeld, storeTaskResult, type TaskRow } from './tasks.db.js';
import { signalGroups } from './signals.js';

type Executor = Parameters<typeof lockTask>[0];

/**
 * End an open task as failed with a result the control plane makes itself (`from_node` false, a
 * new `r_` id): node offline at dispatch, task rejected by the node, or no result by the deadline.
 * Runs inside `tx` when given (the sweeper's claim transaction; the caller signals streams after
 * its commit), else in its own transaction that locks the task first and signals the task's
 * group after commit; a task that already has a result, or (with `opts.node_id`) is assigned to
 * another node, is left alone. The failure is `replaceable` (default true): it stands in for a
 * result the control plane did not get, and the node's own result replaces it if it ever arrives
 * (nothing a node measured is lost). Only the node's own refusal of the task passes false.
 * @returns true when this call ended the task
 */
export async function failTask(sql: Sql, task_id: string, error: string, error_class: FailureClass, opts: { tx?: Executor; node_id?: string; replaceable?: boolean } = {}): Promise<boolean> {
  const run = async (t: Executor): Promise<string | null> => {
    const task: TaskRow | null = await lockTask(t, task_id);
    if (!task || task.status === 'completed' || task.status === 'failed') return null;
    if (opts.node_id !== undefined && task.node_id !== opts.node_id) return null;
    const stored = await storeTaskResult(t, {
      result_id: newId('result'), task_id, group_id: task.group_id, node_id: task.node_id, from_node: false,
      success: false, error, error_class, output: null, started_at: task.started_at, finished_at: new Date(),
      replaceable: opts.replaceable ?? true,
    });
    return stored ? task.group_id : null;
  };
  if (opts.tx) return (await run(opts.tx)) !== null;
  const group_id = (await sql.begin((t) => run(t))) as string | null;
  if (group_id) signalGroups([group_id]);
  return group_id !== null;
}

/**
 * A node said hello (hub) holding `tasks_held`: every task it had accepted (running) and no longer
 * holds, neither running nor with a result in its outbox, was lost when the agent restarted. Each
 * ends failed now with "node restarted" (class internal) instead of at its deadline; like every
 * failure the control plane records, a result the node does send later replaces it.
 * @param notHeld reads those tasks (default: one statement for this node; the sink batches hellos)
 * @returns how many tasks this call ended
 */
export async function failLostTasks(sql: Sql, node_id: string, tasks_held: string[], notHeld: (node_id: string, held: string[]) => Promise<string[]> = (id, held) => runningTasksNotHeld(sql, id, held)): Promise<number> {
  let n = 0;
  for (const task_id of await notHeld(node_id, tasks_held)) {
    const error = 'node restarted: the task was lost (the node came back neither running it nor holding its result)';
    if (await failTask(sql, task_id, error, 'internal', { node_id })) n++;
  }
  return n;
}

/**
 * The error the sweeper records for a task with no result by its deadline. The node's link state
 * says why when it can: a node that disconnected (offline since `last_seen_at`) and did not come
 * back is named so; otherwise the node stayed connected and silent.
 */
export function overdueError(task: Pick<TaskRow, 'status' | 'timeout_ms'>, node: { status: string; last_seen_at: Date | null } | null): string {
  const silent = task.status === 'queued'
    ? `no answer from the node: the task was not accepted within ${task.timeout_ms} ms plus grace`
    : `no result from the node within ${task.timeout_ms} ms plus grace`;
  if (!node || node.status === 'online') return silent;
  const at = node.last_seen_at ? ` at ${node.last_seen_at.toISOString()}` : '';
  return `${silent}: node disconnected${at} and did not come back`;
}
