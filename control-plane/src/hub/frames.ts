import { describeIssues, fieldIssues, parseNodeMessage, resultEnvelopeSchema, type ResultBatchMessage, type ResultEnvelope } from '@vantage/shared-protocol';
import { recordOutboxStats } from '../db/nodes.js';
import { BAD_FRAMES_MAX, closeWith, sendError, sendFrame, type Conn, type HubCore } from './core.js';

/**
 * Handle one frame of an established node connection (after `welcome`). Every frame is validated
 * with the shared schemas; a bad one is answered with an `error` frame and costs only itself
 * (DESIGN.md protocol), unless BAD_FRAMES_MAX arrive in a row (then close 4000 protocol_error).
 */
export async function handleFrame(core: HubCore, conn: Conn, raw: Buffer): Promise<void> {
  const node_id = conn.node_id!;
  const parsed = parseNodeMessage(raw);
  if (!parsed.ok) {
    conn.bad_frames++;
    const code = parsed.error.includes('exceeds') ? 'PAYLOAD_TOO_LARGE' : 'VALIDATION_FAILED';
    sendError(conn, code, parsed.error);
    if (conn.bad_frames >= BAD_FRAMES_MAX) closeWith(conn, 'protocol_error');
    return;
  }
  conn.bad_frames = 0;
  const msg = parsed.value;
  switch (msg.type) {
    case 'heartbeat':
      return; // liveness is recorded on arrival (conn.last_frame_at)
    case 'task.ack':
      try {
        await core.results.taskAck(node_id, msg);
      } catch (err) {
        core.log.error({ err, node_id, task_id: msg.task_id }, 'task.ack handling failed');
        sendError(conn, 'INTERNAL_ERROR', 'task.ack could not be recorded', msg.task_id);
      }
      return;
    case 'result.batch':
      return ingestBatch(core, conn, node_id, msg);
    case 'outbox.stats':
      core.log.debug({ node_id, pending: msg.pending, dropped_total: msg.dropped_total }, 'node outbox');
      if (msg.dropped_total > 0) core.log.warn({ node_id, dropped_total: msg.dropped_total }, 'node dropped results from its outbox');
      // Kept on the node record: its owner sees what the node buffers and what it had to drop.
      return recordOutboxStats(core.sql, node_id, msg);
    case 'assignments.ack':
      core.log.debug({ node_id, version: msg.version }, 'assignments acked');
      return;
    case 'enroll':
    case 'hello':
      sendError(conn, 'CONFLICT', `${msg.type} is only valid as the first message`);
      return;
  }
}

/**
 * Store a result batch (DESIGN.md delivery): each result is validated with resultEnvelopeSchema
 * (invalid ones get an `error` frame and no ack), the valid ones go to ResultSink.ingest, and
 * `result.ack` lists the ids the sink reports durably stored: ack after commit. Results the sink
 * rejects (a task assigned to another node, a task that already has a node result) can never be
 * accepted, so they are reported in an `error` frame AND acked: the node drops them instead of
 * resending them until its outbox bound evicts them. Storage errors reject and ack nothing.
 */
async function ingestBatch(core: HubCore, conn: Conn, node_id: string, msg: ResultBatchMessage): Promise<void> {
  const ref = String(msg.batch_id);
  const valid: ResultEnvelope[] = [];
  const invalid: string[] = [];
  msg.results.forEach((item, i) => {
    const r = resultEnvelopeSchema.safeParse(item);
    if (r.success) valid.push(r.data);
    else invalid.push(`results[${i}]: ${describeIssues(fieldIssues(r.error))}`);
  });
  if (invalid.length > 0) sendError(conn, 'VALIDATION_FAILED', `result.batch ${ref}: ${invalid.join(' | ')}`, ref);
  if (valid.length === 0) return;
  let outcome: Awaited<ReturnType<HubCore['results']['ingest']>>;
  try {
    outcome = await core.results.ingest(node_id, valid);
  } catch (err) {
    core.log.error({ err, node_id, batch_id: msg.batch_id }, 'result ingest failed; node will resend');
    sendError(conn, 'INTERNAL_ERROR', `result.batch ${ref} was not stored; resend later`, ref);
    return;
  }
  if (outcome.rejected.length > 0) {
    core.log.warn({ node_id, rejected: outcome.rejected.slice(0, 10) }, 'results rejected');
    const reasons = outcome.rejected.map((r) => `${r.result_id}: ${r.reason}`).join(' | ');
    sendError(conn, 'FORBIDDEN', `result.batch ${ref}: rejected ${reasons}`, ref);
  }
  const settled = [...outcome.stored, ...outcome.rejected.map((r) => r.result_id)];
  sendFrame(conn, { type: 'result.ack', batch_id: msg.batch_id, result_ids: settled });
}
