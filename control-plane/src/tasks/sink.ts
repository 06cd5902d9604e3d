import type { ResultEnvelope, TaskAckMessage } from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';
import type { Sql } from '../db/sql.js';
import { dropServerFailure, lockTask, markTaskRunning, unackedTasks, storedResultIds, storeMonitorResult, storeTaskResult } from '../db/tasks.js';
import type { ResultSink } from '../hub/contract.js';
import type { Logger } from '../log.js';
import { failTask } from './failures.js';
import { signalGroups } from './signals.js';

/** Reasons a result is refused (sent back to the node in the hub's `error` frame). */
export const REJECT = {
  not_assigned: 'task not assigned to this node',
  type_mismatch: 'result type does not match the task type',
  already_ended: 'task already has a different result',
} as const;

/**
 * The probe-task side of the hub (hub/contract.ts ResultSink; DESIGN.md delivery).
 *
 * `ingest(node_id, results)`: in ONE transaction, for each result (already validated by the hub
 * with resultEnvelopeSchema):
 * - task results: the task must exist and be assigned to `node_id` (else rejected "task not
 *   assigned to this node": forged or misrouted) and have the result's type; the result is
 *   inserted ON CONFLICT DO NOTHING and ends the task (completed on success, else failed). A
 *   result id stored before counts as stored (redelivery after a lost ack); a different result for
 *   a task that already has one (e.g. after the sweeper gave up on it) is rejected;
 * - monitor results (monitor_id set): stored idempotently in monitor_results (the monitor feature
 *   reads them later).
 * Resolves after COMMIT with `{ stored, rejected }`, so the hub's `result.ack` follows the commit;
 * a database error rejects the promise and nothing is acked.
 *
 * `taskAck(node_id, ack)`: accepted → the task is running; rejected → it ends failed with
 * "node rejected the task: <reason>" (class rejected). Acks for other nodes' tasks are ignored.
 */
export function createResultSink(deps: { sql: Sql; log: Logger; config?: Config }): ResultSink {
  const { sql } = deps;
  const log = deps.log.child({ module: 'tasks.sink' });

  async function ingest(node_id: string, results: ResultEnvelope[]) {
    const stored: string[] = [];
    const rejected: Array<{ result_id: string; reason: string }> = [];
    const groups: string[] = [];
    // Lock tasks in a fixed order so two batches touching the same tasks cannot deadlock.
    const ordered = [...results].sort((a, b) => (a.task_id ?? '').localeCompare(b.task_id ?? ''));
    await sql.begin(async (tx) => {
      const before = await storedResultIds(tx, ordered.map((r) => r.result_id));
      for (const r of ordered) {
        if (r.monitor_id !== null) {
          await storeMonitorResult(tx, {
            result_id: r.result_id, monitor_id: r.monitor_id, node_id, probe_type: r.type, success: r.success,
            error: r.error, error_class: r.error_class, output: r.output, started_at: r.started_at, finished_at: r.finished_at,
          });
          stored.push(r.result_id);
          continue;
        }
        const task = await lockTask(tx, r.task_id!);
        if (!task || task.node_id !== node_id) {
          rejected.push({ result_id: r.result_id, reason: REJECT.not_assigned });
          continue;
        }
        if (task.probe_type !== r.type) {
          rejected.push({ result_id: r.result_id, reason: `${REJECT.type_mismatch} (${r.type} for a ${task.probe_type} task)` });
          continue;
        }
        const row = {
          result_id: r.result_id, task_id: task.id, group_id: task.group_id, node_id, from_node: true, success: r.success,
          error: r.error, error_class: r.error_class, output: r.output, started_at: r.started_at, finished_at: r.finished_at,
        };
        groups.push(task.group_id);
        let inserted = await storeTaskResult(tx, row);
        // A result the node really produced outranks the failure we recorded for it at the
        // deadline (link cut, slow node): nothing a node measured is thrown away.
        if (!inserted && !before.has(r.result_id) && await dropServerFailure(tx, task.id)) inserted = await storeTaskResult(tx, row);
        if (inserted || before.has(r.result_id) || stored.includes(r.result_id)) stored.push(r.result_id);
        else rejected.push({ result_id: r.result_id, reason: REJECT.already_ended });
      }
    });
    if (rejected.length) log.debug({ node_id, rejected }, 'results rejected');
    signalGroups(groups);
    return { stored: [...new Set(stored)], rejected };
  }

  async function taskAck(node_id: string, ack: TaskAckMessage): Promise<void> {
    if (ack.accepted) {
      await markTaskRunning(sql, node_id, ack.task_id);
      return;
    }
    const reason = ack.reason ? `node rejected the task: ${ack.reason}` : 'node rejected the task';
    await failTask(sql, ack.task_id, reason, 'rejected', { node_id });
  }

  async function pendingTasks(node_id: string) {
    const rows = await unackedTasks(sql, node_id);
    return rows.map((r) => ({ type: 'task.run' as const, task_id: r.id, timeout_ms: r.timeout_ms, check: r.check }));
  }

  return { ingest, taskAck, pendingTasks };
}
