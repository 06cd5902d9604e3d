import type { ResultEnvelope, TaskAckMessage, TaskCancelMessage, TaskRunMessage } from '@vantage/shared-protocol';

/**
 * What the probe-task side needs from the node hub (hub/ implements it). Delivery is to the node
 * wherever it is connected: locally, or through Postgres LISTEN/NOTIFY to the instance holding
 * its socket (DESIGN.md scale-out); in embedded mode only locally held nodes are reachable.
 */
export interface NodeHub {
  /**
   * Send a task to a node. Resolves 'sent' when handed to the socket (locally or via NOTIFY to an
   * instance that the nodes table says holds it), 'offline' when no instance holds the node.
   */
  sendTask(node_id: string, message: TaskRunMessage): Promise<'sent' | 'offline'>;
  /** Ask a node to cancel a task (best effort; same delivery as sendTask). */
  cancelTask(node_id: string, message: TaskCancelMessage): Promise<'sent' | 'offline'>;
  /** Node ids whose sockets this instance holds right now. */
  localNodeIds(): string[];
  /** Close every socket with `server_shutdown` and stop listening for notifications. */
  close(): Promise<void>;
}

/**
 * What the hub hands results and task acks to (the probe-task side implements it).
 * `ingest` stores results idempotently (INSERT … ON CONFLICT DO NOTHING) and accepts a result only
 * when its task is assigned to `node_id` (or it is a monitor result of that node). It resolves
 * with the ids that are now durably stored, including ones stored earlier (so the node can delete
 * them), and the rejected ones with a reason; the hub sends `result.ack` for the stored ids only
 * after this resolves (ack after commit).
 */
export interface ResultSink {
  ingest(node_id: string, results: ResultEnvelope[]): Promise<{ stored: string[]; rejected: Array<{ result_id: string; reason: string }> }>;
  /** A node accepted or rejected a task; a rejection ends that node's part as failed with the reason. */
  taskAck(node_id: string, ack: TaskAckMessage): Promise<void>;
  /**
   * Tasks for `node_id` that it never acknowledged and whose deadline is still ahead: sent while it
   * was reconnecting, or relayed to an instance that died before delivering. The hub re-sends them
   * right after `welcome`; the agent accepts a task id it already holds as a duplicate and does not
   * run it twice.
   */
  pendingTasks(node_id: string): Promise<TaskRunMessage[]>;
}
