import { describeIssues, fieldIssues, isId, parseBatchResults, parseNodeMessage, type ResultBatchMessage } from '@vantage/shared-protocol';
import { countRejectedResults } from '../nodes/nodes.db.js';
import { BAD_FRAMES_MAX, closeWith, sendError, sendFrame, type Conn, type HubCore } from './core.js';
import { noteClockOffset } from './clock-offset.js';
import { confirmEnrollment } from './handshake.js';

/**
 * Handle one frame of an established node connection (after `welcome`). Every frame is validated
 * with the shared schemas; a bad one is answered with an `error` frame and costs only itself
 * (docs/architecture/shared-protocol.md, node protocol), unless BAD_FRAMES_MAX arrive in a row (then close 4000 protocol_error).
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
      // Liveness is recorded on arrival (conn.last_frame_at); the node's clock offset is kept.
      return noteClockOffset(core, conn, node_id, msg);
    case 'task.ack':
      try {
        await core.results.taskAck(node_id, msg);
      } catch (err) {
        core.log.error({ err, node_id, task_id: msg.task_id }, 'task.ack handling failed');
        sendError(conn, 'INTERNAL_ERROR', 'task.ack could not be recorded', msg.task_id);
      }
      return;
    case 'result.batch':
      return ingestBatch(core, conn, node_id, msg, raw);
    case 'outbox.stats':
      core.log.debug({ node_id, pending: msg.pending, dropped_total: msg.dropped_total }, 'node outbox');
      if (msg.dropped_total > 0) core.log.warn({ node_id, dropped_total: msg.dropped_total }, 'node dropped results from its outbox');
      // Kept on the node record (written behind, coalesced: node-reports.ts): its owner sees
      // what the node buffers and what it had to drop.
      core.reports.outbox.note({ id: node_id, pending: msg.pending, dropped_total: msg.dropped_total, oldest_pending_at: msg.oldest_pending_at });
      return;
    case 'assignments.ack':
      core.log.debug({ node_id, version: msg.version }, 'assignments acked');
      return core.assignments?.acked(node_id, msg.version);
    case 'enroll.confirm':
      return confirmEnrollment(core, conn, msg);
    case 'enroll':
    case 'hello':
      sendError(conn, 'CONFLICT', `${msg.type} is only valid as the first message`);
      return;
  }
}

/**
 * Store a result batch (docs/architecture/node-agent.md, outbox and delivery): each result is
 * validated with resultEnvelopeSchema by shared-protocol parseBatchResults, which leaves out the
 * schema's sanitising walk when the frame's bytes `raw` cannot need it (invalid ones, e.g.
 * impossible measurements or a 1970 clock, are named in an `error` frame and,
 * when they carry a result id, acked so the node drops them: they would never become valid, and
 * resending them forever would hold up the outbox), the valid ones go to ResultSink.ingest, and
 * `result.ack` lists the ids the sink reports durably stored: ack after commit. Results the sink
 * rejects (a task assigned to another node, a task that already has a node result, a monitor not
 * assigned to the node) are counted on the node (results_rejected_total) and can never be
 * accepted, so they are reported in an `error` frame AND acked: the node drops them instead of
 * resending them until its outbox bound evicts them. Storage errors reject and ack nothing.
 */
async function ingestBatch(core: HubCore, conn: Conn, node_id: string, msg: ResultBatchMessage, raw: Buffer): Promise<void> {
  const ref = String(msg.batch_id);
  const parsed = parseBatchResults(raw, msg.results);
  const valid = parsed.valid;
  const invalid = parsed.invalid.map(({ index, error }) => `results[${index}]: ${describeIssues(fieldIssues(error))}`);
  const refused: string[] = [];
  for (const { item } of parsed.invalid) {
    const id = (item as { result_id?: unknown } | null)?.result_id;
    if (isId('result', id)) refused.push(id);
  }
  if (invalid.length > 0) sendError(conn, 'VALIDATION_FAILED', `result.batch ${ref}: ${invalid.join(' | ')}`, ref);
  if (valid.length === 0) {
    if (refused.length > 0) sendFrame(conn, { type: 'result.ack', batch_id: msg.batch_id, result_ids: refused });
    return;
  }
  let outcome: Awaited<ReturnType<HubCore['results']['ingest']>>;
  try {
    outcome = await core.results.ingest(node_id, valid);
  } catch (err) {
    core.log.error({ err, node_id, batch_id: msg.batch_id }, 'result ingest failed; node will resend');
    sendError(conn, 'INTERNAL_ERROR', `result.batch ${ref} was not stored; resend later`, ref);
    return;
  }
  if (outcome.rejected.length > 0) {
    core.log.warn({ node_id, rejected_count: outcome.rejected.length, rejected: outcome.rejected.slice(0, 10) }, 'results rejected');
    countRejectedResults(core.sql, node_id, outcome.rejected.length).catch((err: unknown) => core.log.warn({ err, node_id }, 'counting rejected results failed'));
    const reasons = outcome.rejected.map((r) => `${r.result_id}: ${r.reason}`).join(' | ');
    sendError(conn, 'FORBIDDEN', `result.batch ${ref}: rejected ${reasons}`, ref);
  }
  const settled = [...outcome.stored, ...outcome.rejected.map((r) => r.result_id), ...refused];
  sendFrame(conn, { type: 'result.ack', batch_id: msg.batch_id, result_ids: settled });
}
