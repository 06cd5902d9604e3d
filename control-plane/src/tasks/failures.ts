import { newId, type FailureClass } from '@vantage/shared-protocol';
import type { Sql } from '../db/sql.js';
import { lockTask, storeTaskResult, type TaskRow } from '../db/tasks.js';
import { signalGroups } from './signals.js';

type Executor = Parameters<typeof lockTask>[0];

/**
 * End an open task as failed with a result the control plane makes itself (`from_node` false, a
 * new `r_` id): node offline at dispatch, task rejected by the node, or no result by the deadline.
 * Runs inside `tx` when given (the sweeper's claim transaction; the caller signals streams after
 * its commit), else in its own transaction that locks the task first and signals the task's
 * group after commit; a task that already has a result, or (with `opts.node_id`) is assigned to
 * another node, is left alone.
 * @returns true when this call ended the task
 */
export async function failTask(sql: Sql, task_id: string, error: string, error_class: FailureClass, opts: { tx?: Executor; node_id?: string } = {}): Promise<boolean> {
  const run = async (t: Executor): Promise<string | null> => {
    const task: TaskRow | null = await lockTask(t, task_id);
    if (!task || task.status === 'completed' || task.status === 'failed') return null;
    if (opts.node_id !== undefined && task.node_id !== opts.node_id) return null;
    const stored = await storeTaskResult(t, {
      result_id: newId('result'), task_id, group_id: task.group_id, node_id: task.node_id, from_node: false,
      success: false, error, error_class, output: null, started_at: task.started_at, finished_at: new Date(),
    });
    return stored ? task.group_id : null;
  };
  if (opts.tx) return (await run(opts.tx)) !== null;
  const group_id = (await sql.begin((t) => run(t))) as string | null;
  if (group_id) signalGroups([group_id]);
  return group_id !== null;
}
