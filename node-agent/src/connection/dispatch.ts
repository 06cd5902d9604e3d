import { describeIssues, isId, type NodeMessage, type RefusedAssignment, type ServerMessage } from '@vantage/shared-protocol';
import type { Logger } from 'pino';
import type { AssignmentScheduler } from '../assignments/scheduler.js';
import type { AssignmentStore } from '../assignments/store.js';
import type { OutboxSender } from '../outbox/sender.js';
import type { Job, TaskQueue } from '../tasks/queue.js';

export interface DispatchDeps {
  send: (message: NodeMessage) => boolean;
  queue: TaskQueue;
  /** Build the job for a `task.run` (agent.ts: a check job writing to the outbox). */
  taskJob: (run: Extract<ServerMessage, { type: 'task.run' }>) => Job;
  sender: OutboxSender;
  assignments: AssignmentStore;
  scheduler: AssignmentScheduler;
  log: Logger;
}

/**
 * Act on one validated control-plane message (the node side of node-protocol messages.ts; all
 * socket wiring stays in client.ts):
 * task.run → queue once per task id, answer task.ack (accepted, or rejected with the queue's reason);
 * task.cancel → abort; result.ack → delete from the outbox; assignments.full/delta → store,
 * reschedule, answer assignments.ack with the version held (a delta from another version is
 * ignored, so the ack tells the server to resend a full set); error → log (and free a refused batch).
 * An assignment the message's parser refused (`refused`: a config this agent's schemas do not
 * accept, a check type it does not know) costs only itself: it is logged with its monitor id and
 * field paths, left out of a full set, and dropped by a delta (the node stops running what it held
 * of that monitor rather than keep a revision the control plane replaced); the rest is applied.
 */
export function dispatch(m: ServerMessage, d: DispatchDeps): void {
  switch (m.type) {
    case 'task.run': {
      // `once`: a task.run sent again (a re-send after a reconnect) for a task this agent holds,
      // ran lately or has a result for is acked and not measured a second time.
      const r = d.queue.submit(m.task_id, d.taskJob(m), { once: true });
      if (r.accepted && r.duplicate) d.log.debug({ task_id: m.task_id }, 'task.run for a task already taken: acked, not run again');
      d.send(r.accepted ? { type: 'task.ack', task_id: m.task_id, accepted: true } : { type: 'task.ack', task_id: m.task_id, accepted: false, reason: r.reason });
      if (!r.accepted) d.log.warn({ task_id: m.task_id, reason: r.reason }, 'task rejected');
      return;
    }
    case 'task.cancel':
      if (!d.queue.cancel(m.task_id, 'task cancelled by the control plane')) d.log.debug({ task_id: m.task_id }, 'cancel for a task not held');
      return;
    case 'result.ack':
      d.sender.acked(m.batch_id, m.result_ids);
      return;
    case 'assignments.full':
      logRefused(m.refused, m.version, d.log);
      d.assignments.replaceAll(m.version, m.assignments);
      d.scheduler.sync(d.assignments.list());
      d.send({ type: 'assignments.ack', version: m.version });
      d.log.info({ version: m.version, count: m.assignments.length, refused: m.refused?.length ?? 0 }, 'assignments replaced');
      return;
    case 'assignments.delta': {
      const dropped = (m.refused ?? []).flatMap((r) => (r.monitor_id === null ? [] : [r.monitor_id]));
      const applied = d.assignments.applyDelta({ ...m, remove: [...m.remove, ...dropped] });
      if (applied) {
        logRefused(m.refused, m.version, d.log);
        d.scheduler.sync(d.assignments.list());
      } else d.log.warn({ held: d.assignments.version, from_version: m.from_version }, 'assignments delta for another version ignored');
      d.send({ type: 'assignments.ack', version: d.assignments.version });
      return;
    }
    case 'error':
      d.log.warn({ code: m.code, message: m.message, ref: m.ref }, 'control plane refused a message');
      // INTERNAL_ERROR on a batch = "not stored; resend later" (control-plane hub/frames.ts): retry.
      if (m.ref && /^\d+$/.test(m.ref)) d.sender.refused(Number(m.ref), m.code === 'INTERNAL_ERROR');
      return;
    case 'welcome':
    case 'heartbeat':
    case 'enroll.confirmed': // handled by the agent (agent.ts), which owns the enrollment
      return;
  }
}

/** One error line per refused assignment: its monitor id, where in the message and why. */
function logRefused(refused: readonly RefusedAssignment[] | undefined, version: number, log: Logger): void {
  for (const r of refused ?? []) {
    log.error({ monitor_id: r.monitor_id, index: r.index, version, fields: r.issues },
      `assignment refused, not run (the others are): ${describeIssues(r.issues).slice(0, 500)}`);
  }
}

/**
 * A frame that failed validation: when it was a `task.run` with a valid task id (e.g. a check type
 * this agent does not know), answer `task.ack` rejected so the task does not hang.
 */
export function rejectInvalid(json: unknown, error: string, send: (message: NodeMessage) => boolean): void {
  const m = json as { type?: unknown; task_id?: unknown } | null;
  if (m?.type === 'task.run' && isId('probe_task', m.task_id)) {
    send({ type: 'task.ack', task_id: m.task_id, accepted: false, reason: `unsupported type or invalid check: ${error}`.slice(0, 500) });
  }
}
