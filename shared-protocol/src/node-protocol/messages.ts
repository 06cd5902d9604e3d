import { z } from 'zod';
import { idSchema } from '../ids.js';
import { LIMITS } from '../limits.js';
import { BASE_PROBE_TYPES, PROBE_PARAMS, type ProbeType } from '../probe/params.js';
import { PUBLIC_ONLY, targetPolicySchema } from '../probe/address-policy.js';
import { PROBE_OUTPUTS, failureClassSchema } from '../probe/outputs.js';
import { jsonMayHoldUnstorable, markSanitized, sanitizeStrings } from '../probe/sanitize.js';
import { checkResultFields } from '../checks/result.js';
import { assignmentsDeltaMessageSchema, assignmentsFullMessageSchema } from './assignments.js';
import { NODE_CAPABILITIES, type NodeCheckType } from '../checks/types.js';
import { compileAccept, type Accept } from '../zod-accept.js';

/*
 * The WebSocket protocol between the control plane and a node. JSON text frames, discriminated on
 * `type`, one union per direction (nodeMessageSchema, serverMessageSchema). The upgrade request is
 * authenticated with `Authorization: Bearer <ent_… enrollment token | nk_… node credential>`; the
 * node's first message is `enroll` (token) or `hello` (credential), answered by `welcome`; after an
 * enrollment `welcome` the node confirms its new credential with `enroll.confirm`.
 */

function checkVariant<T extends ProbeType>(type: T) {
  return z.object({ type: z.literal(type), target: z.string().min(1).max(2048), params: PROBE_PARAMS[type] as (typeof PROBE_PARAMS)[T] });
}

/** A probe check to run, typed per probe type: `{ type, target, params }` with params already defaulted. */
export const checkSpecSchema = z.discriminatedUnion('type', [
  checkVariant('http'), checkVariant('ping'), checkVariant('dns'), checkVariant('tcp'), checkVariant('traceroute'),
  checkVariant('mtr'), checkVariant('smtp'), checkVariant('ntp'), checkVariant('headers'), checkVariant('speedtest'), checkVariant('ssl'),
]);
export type CheckSpec = z.infer<typeof checkSpecSchema>;

const outbox = z.object({ pending: z.number().int().min(0), dropped_total: z.number().int().min(0) });
const agentInfo = {
  protocol_version: z.number().int().min(1),
  agent_version: z.string().min(1).max(64),
  hostname: z.string().max(255).optional(),
  /** Node name chosen by the operator (installer --name); used at enrollment before the token label and hostname. */
  name: z.string().min(1).max(64).optional(),
  /**
   * What the node can run (checks/types.ts NODE_CAPABILITIES): probe types, and `browser` when its
   * Chromium starts (protocol 3). Absent = the probe types of the first releases (BASE_PROBE_TYPES), never `browser`.
   */
  capabilities: z.array(z.enum(NODE_CAPABILITIES)).max(NODE_CAPABILITIES.length * 2).default([...BASE_PROBE_TYPES]),
  outbox: outbox.optional(),
};

// ───────────────────────────── node → control plane ─────────────────────────────

/**
 * First message of a node that connected with an `ent_` token: asks to be enrolled.
 * @example { "type": "enroll", "protocol_version": 1, "agent_version": "0.1.0", "hostname": "probe-1" }
 */
export const enrollMessageSchema = z.object({ type: z.literal('enroll'), ...agentInfo });

/** Most task ids a `hello` lists in `tasks_held`; a node holding more omits the field. */
export const HELLO_TASKS_HELD_MAX = 5000;

/**
 * First message of an enrolled node (connected with its `nk_` credential). `tasks_held` lists the
 * ad-hoc tasks the node still has: queued or running, or with a result waiting in its outbox. Any
 * other task the control plane had seen it accept was lost (the agent restarted) and is failed at
 * once. Omitted (old agents, or more than HELLO_TASKS_HELD_MAX): nothing is concluded.
 * @example { "type": "hello", "protocol_version": 1, "agent_version": "0.1.0", "node_id": "n_…", "outbox": { "pending": 12, "dropped_total": 0 }, "tasks_held": ["pt_…"] }
 */
export const helloMessageSchema = z.object({
  type: z.literal('hello'), node_id: idSchema('node'), ...agentInfo,
  tasks_held: z.array(idSchema('probe_task')).max(HELLO_TASKS_HELD_MAX).optional(),
});

/**
 * The node's answer to an enrollment `welcome`, on the same connection, once it has stored the
 * credential: `proof` is `enrollProof(credential, node_id)` (enroll-proof.ts). Only then is the enrollment
 * token spent; the control plane answers `enroll.confirmed`. An enrollment connection that does
 * not confirm within the hello timeout is closed (4007); the node then confirms by reconnecting
 * with `hello` and its credential.
 * @example { "type": "enroll.confirm", "node_id": "n_…", "proof": "q3v…(43 base64url characters)" }
 */
export const enrollConfirmMessageSchema = z.object({
  type: z.literal('enroll.confirm'),
  node_id: idSchema('node'),
  proof: z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'must be 43 base64url characters (enrollProof)'),
});

/** Largest clock offset or round trip a node may report, ms (a day: beyond that the clock is simply wrong). */
export const CLOCK_REPORT_MAX_MS = 86_400_000;
/**
 * A node whose clock is off by more than this is flagged `clock_skewed` (docs/api/nodes.md): its
 * rounds no longer start together with the other nodes' (agents correct for their measured offset).
 */
export const CLOCK_SKEW_MAX_MS = 1000;

/**
 * Liveness ping, sent by either side every heartbeat interval; `sent_at` is the sender's clock
 * (epoch ms). A node adds its clock measurement (docs/architecture/node-agent.md "Clock"):
 * `clock_offset_ms` = node clock minus control-plane clock (positive: the node is ahead), estimated
 * NTP-style from the control plane's heartbeat `sent_at`, its arrival time and `rtt_ms`, the round
 * trip of a WebSocket ping (offset = arrival - sent_at - rtt_ms / 2). Both are absent until
 * measured. The control plane flags a node more than 1000 ms off (docs/api/nodes.md).
 * @example { "type": "heartbeat", "sent_at": 1795000000000, "clock_offset_ms": -12, "rtt_ms": 3 }
 */
export const heartbeatMessageSchema = z.object({
  type: z.literal('heartbeat'),
  sent_at: z.number().int(),
  clock_offset_ms: z.number().int().min(-CLOCK_REPORT_MAX_MS).max(CLOCK_REPORT_MAX_MS).optional(),
  rtt_ms: z.number().int().min(0).max(CLOCK_REPORT_MAX_MS).optional(),
});

/**
 * The node's answer to `task.run`: accepted (queued or running) or rejected with a reason
 * (queue full, unsupported type, target refused by node policy).
 * @example { "type": "task.ack", "task_id": "pt_…", "accepted": false, "reason": "queue full (256 tasks)" }
 */
export const taskAckMessageSchema = z.object({
  type: z.literal('task.ack'),
  task_id: idSchema('probe_task'),
  accepted: z.boolean(),
  reason: z.string().max(500).optional(),
});

/** Results older than this are refused: no node measured anything before Vantage existed (a node whose clock says 1970 has not set it). */
export const EARLIEST_RESULT_AT = '2024-01-01T00:00:00.000Z';
const EARLIEST_RESULT_MS = Date.parse(EARLIEST_RESULT_AT);
/** How far ahead of the receiver's clock a result may claim to have finished (clock skew allowed), ms. */
export const RESULT_FUTURE_SKEW_MS = 24 * 3600_000;
/** The longest a single check can last from start to finish, ms (every check is bounded well below). */
export const RESULT_DURATION_MAX_MS = 3600_000;

function resultVariant<T extends ProbeType>(type: T) {
  return z.object({
    result_id: idSchema('result'),
    task_id: idSchema('probe_task'),
    monitor_id: z.null(),
    type: z.literal(type),
    started_at: z.iso.datetime(),
    finished_at: z.iso.datetime(),
    success: z.boolean(),
    error: z.string().max(2000).nullable(),
    error_class: failureClassSchema.nullable(),
    output: (PROBE_OUTPUTS[type] as (typeof PROBE_OUTPUTS)[T]).nullable(),
  });
}

/** The result of an ad-hoc probe task (`task_id` set), typed per probe type. */
export const taskResultEnvelopeSchema = z.discriminatedUnion('type', [
  resultVariant('http'), resultVariant('ping'), resultVariant('dns'), resultVariant('tcp'), resultVariant('traceroute'),
  resultVariant('mtr'), resultVariant('smtp'), resultVariant('ntp'), resultVariant('headers'), resultVariant('speedtest'), resultVariant('ssl'),
]);
export type TaskResultEnvelope = z.infer<typeof taskResultEnvelopeSchema>;

function monitorResultVariant<T extends NodeCheckType>(type: T) {
  return z.object({ result_id: idSchema('result'), task_id: z.null(), ...checkResultFields(type) });
}

/**
 * The result of one monitor check round on this node (`monitor_id` set): the check result of
 * checks/result.ts (type = the monitor type, `scheduled_at` of its round, per-assertion results,
 * the type's output; docs/api/checks.md) plus `result_id`.
 */
export const monitorResultEnvelopeSchema = z.discriminatedUnion('type', [
  monitorResultVariant('http'), monitorResultVariant('https'), monitorResultVariant('keyword'), monitorResultVariant('ping'),
  monitorResultVariant('tcp'), monitorResultVariant('dns'), monitorResultVariant('traceroute'), monitorResultVariant('ssl_expiry'),
  monitorResultVariant('rbl'), monitorResultVariant('llm_endpoint'), monitorResultVariant('tool_api'), monitorResultVariant('rag'),
  monitorResultVariant('browser'),
]);
export type MonitorResultEnvelope = z.infer<typeof monitorResultEnvelopeSchema>;

const hasValue = (v: unknown, key: string) => typeof v === 'object' && v !== null && (v as Record<string, unknown>)[key] != null;

/**
 * One produced result, with a globally unique `result_id` made on the node when it was produced.
 * Exactly one of `task_id` (ad-hoc probe: {@link taskResultEnvelopeSchema}) and `monitor_id`
 * (monitor check: {@link monitorResultEnvelopeSchema}) is set; the owner decides which shape
 * applies. `output` is null only when the check could not start (runner error); times are ISO
 * 8601 UTC, not before {@link EARLIEST_RESULT_AT}, at most {@link RESULT_FUTURE_SKEW_MS} ahead of
 * the validating side's clock, and `finished_at` is 0 to {@link RESULT_DURATION_MAX_MS} after
 * `started_at`. Strings are sanitised on parsing (probe/sanitize.ts: NUL and lone surrogates
 * become U+FFFD), so a parsed result can always be stored.
 * @example { "result_id": "r_…", "task_id": "pt_…", "monitor_id": null, "type": "tcp", "started_at": "2026-11-22T10:00:00.000Z", "finished_at": "2026-11-22T10:00:00.004Z", "success": true, "error": null, "error_class": null, "output": { "resolved_address": "198.18.1.10", "port": 443, "connect_ms": 0.4, "state": "open" } }
 */
export const resultEnvelopeSchema = z.preprocess(sanitizeStrings, z.unknown().transform(checkedEnvelope));

/**
 * {@link resultEnvelopeSchema} without its sanitising walk: for a result parsed from JSON text that
 * probe/sanitize.ts jsonMayHoldUnstorable cleared (it holds no text the walk would change, so the
 * parse is the same). Pick between the two with {@link resultEnvelopeSchemaFor}.
 */
export const clearedResultEnvelopeSchema = z.unknown().transform(checkedEnvelope);

/**
 * The schema for the results parsed from the JSON text `text` (a node's `result.batch` frame as
 * received): {@link clearedResultEnvelopeSchema} when the text cannot hold what sanitising
 * replaces (most frames: no walk), else {@link resultEnvelopeSchema}. Either builds the same result.
 */
export function resultEnvelopeSchemaFor(text: string | Buffer): typeof resultEnvelopeSchema | typeof clearedResultEnvelopeSchema {
  return jsonMayHoldUnstorable(text) ? resultEnvelopeSchema : clearedResultEnvelopeSchema;
}

// The two result schemas' fast yes (zod-accept.ts), compiled on first use (nothing runs when the
// module loads): most results are exactly what the schema would return, and are used as they are,
// without zod's per-field garbage.
let acceptTaskResult: Accept | undefined;
let acceptMonitorResult: Accept | undefined;

/**
 * The checks of {@link resultEnvelopeSchema} on an already sanitised value. A value the schema
 * would return unchanged is returned itself (not a copy).
 */
function checkedEnvelope(value: unknown, ctx: z.RefinementCtx): TaskResultEnvelope | MonitorResultEnvelope {
  const task = hasValue(value, 'task_id');
  if (task === hasValue(value, 'monitor_id')) {
    ctx.addIssue({ code: 'custom', path: ['task_id'], message: 'exactly one of task_id and monitor_id must be set' });
    return z.NEVER;
  }
  const schema = task ? taskResultEnvelopeSchema : monitorResultEnvelopeSchema;
  const accept = task ? (acceptTaskResult ??= compileAccept(schema)) : (acceptMonitorResult ??= compileAccept(schema));
  let r: TaskResultEnvelope | MonitorResultEnvelope;
  if (accept(value)) r = value as TaskResultEnvelope | MonitorResultEnvelope;
  else {
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) ctx.addIssue({ ...issue } as Parameters<typeof ctx.addIssue>[0]);
      return z.NEVER;
    }
    r = parsed.data;
  }
  const started = Date.parse(r.started_at);
  const finished = Date.parse(r.finished_at);
  if (started < EARLIEST_RESULT_MS) ctx.addIssue({ code: 'custom', path: ['started_at'], message: `must not be before ${EARLIEST_RESULT_AT} (is the node's clock set?)` });
  if (finished > Date.now() + RESULT_FUTURE_SKEW_MS) ctx.addIssue({ code: 'custom', path: ['finished_at'], message: 'lies more than a day in the future (is the node\'s clock set?)' });
  if (finished < started || finished - started > RESULT_DURATION_MAX_MS) {
    ctx.addIssue({ code: 'custom', path: ['finished_at'], message: `must be 0 to ${RESULT_DURATION_MAX_MS} ms after started_at` });
  }
  return r;
}
/** A result as it travels and is stored: a task result (typed per probe type) or a monitor result (typed per check type). */
export type ResultEnvelope = TaskResultEnvelope | MonitorResultEnvelope;

/**
 * The results of a node's `result.batch` frame, each validated with the schema
 * {@link resultEnvelopeSchemaFor} picks for the frame's bytes `frame`: `valid` in the batch's
 * order, and every `invalid` item with its index and zod error. `valid` is a new array marked as
 * holding only sanitised text (probe/sanitize.ts markSanitized: every result in it was built from
 * sanitised or cleared input), so the result sink does not walk it again (one mark a batch,
 * not one a result); it must not be given other results.
 */
export function parseBatchResults(frame: string | Buffer, items: unknown[]): { valid: ResultEnvelope[]; invalid: Array<{ index: number; item: unknown; error: z.ZodError }> } {
  const schema = resultEnvelopeSchemaFor(frame);
  const valid: ResultEnvelope[] = [];
  const invalid: Array<{ index: number; item: unknown; error: z.ZodError }> = [];
  items.forEach((item, index) => {
    const r = schema.safeParse(item);
    if (r.success) valid.push(r.data);
    else invalid.push({ index, item, error: r.error });
  });
  return { valid: markSanitized(valid), invalid };
}

/**
 * A batch of results from the outbox, oldest first. The control plane stores them idempotently and
 * answers `result.ack` with the ids it committed; the node deletes only acked results.
 * @example { "type": "result.batch", "batch_id": 17, "results": [ { "result_id": "r_…", … } ] }
 */
export const resultBatchMessageSchema = z.object({
  type: z.literal('result.batch'),
  batch_id: z.number().int().min(0),
  results: z.array(z.unknown()).min(1).max(LIMITS.result_batch_max),
});

/**
 * Outbox health: results dropped by the node's count/age bound since it started counting.
 * @example { "type": "outbox.stats", "pending": 120, "dropped_total": 3, "oldest_pending_at": "2026-11-22T09:59:00.000Z" }
 */
export const outboxStatsMessageSchema = z.object({
  type: z.literal('outbox.stats'),
  pending: z.number().int().min(0),
  dropped_total: z.number().int().min(0),
  oldest_pending_at: z.iso.datetime().nullable(),
});

/**
 * The node stored the assignment set up to `version`.
 * @example { "type": "assignments.ack", "version": 42 }
 */
export const assignmentsAckMessageSchema = z.object({ type: z.literal('assignments.ack'), version: z.number().int().min(0) });

/** Every message a node may send (validated by the control plane; a bad one costs only itself). */
export const nodeMessageSchema = z.discriminatedUnion('type', [
  enrollMessageSchema, enrollConfirmMessageSchema, helloMessageSchema, heartbeatMessageSchema, taskAckMessageSchema,
  resultBatchMessageSchema, outboxStatsMessageSchema, assignmentsAckMessageSchema,
]);
export type NodeMessage = z.infer<typeof nodeMessageSchema>;

// ───────────────────────────── control plane → node ─────────────────────────────

/**
 * Answer to `hello`/`enroll`. After an enrollment it carries the node's new `credential`
 * (`nk_…`, shown once; the node stores it before anything else).
 * @example { "type": "welcome", "protocol_version": 1, "node_id": "n_…", "node_name": "probe-1", "heartbeat_interval_ms": 10000, "server_time": "2026-11-22T10:00:00.000Z", "credential": null }
 */
export const welcomeMessageSchema = z.object({
  type: z.literal('welcome'),
  protocol_version: z.number().int().min(1),
  node_id: idSchema('node'),
  node_name: z.string(),
  heartbeat_interval_ms: z.number().int().min(1000),
  server_time: z.iso.datetime(),
  credential: z.string().nullable(),
});

/**
 * The enrollment is confirmed: the token is spent and the credential is the node's for good.
 * @example { "type": "enroll.confirmed", "node_id": "n_…" }
 */
export const enrollConfirmedMessageSchema = z.object({ type: z.literal('enroll.confirmed'), node_id: idSchema('node') });

/**
 * Run one ad-hoc check; `timeout_ms` bounds the whole check on the node. `policy` is the target
 * policy of whoever asked for the task (probe/address-policy.ts): public addresses plus the
 * deployment's allow-list, and `allow_private` only when the requester is the node's owner with
 * a write-capable credential. The node runs the check under the intersection of this policy and
 * its operator's own, on every address it connects to (each redirect hop, the DNS `server`);
 * absent = public addresses only.
 * @example { "type": "task.run", "task_id": "pt_…", "timeout_ms": 10000, "policy": { "allow_private": false, "allow_cidrs": ["198.18.0.0/15"] }, "check": { "type": "ping", "target": "198.18.1.10", "params": { "count": 4, "timeout_ms": 5000, "interval_ms": 1000, "ip_version": "auto" } } }
 */
export const taskRunMessageSchema = z.object({
  type: z.literal('task.run'),
  task_id: idSchema('probe_task'),
  timeout_ms: z.number().int().min(100).max(300_000),
  policy: targetPolicySchema.default(() => ({ ...PUBLIC_ONLY, allow_cidrs: [] })),
  check: checkSpecSchema,
});

/**
 * Stop a task that is queued or running; the node reports it as a failed result (class cancelled).
 * @example { "type": "task.cancel", "task_id": "pt_…" }
 */
export const taskCancelMessageSchema = z.object({ type: z.literal('task.cancel'), task_id: idSchema('probe_task') });

/**
 * Results committed by the control plane: the node may delete them from its outbox.
 * @example { "type": "result.ack", "batch_id": 17, "result_ids": ["r_…"] }
 */
export const resultAckMessageSchema = z.object({
  type: z.literal('result.ack'),
  batch_id: z.number().int().min(0),
  result_ids: z.array(idSchema('result')),
});

/**
 * A message of the node's was refused; the connection stays up. `ref` names what it was about
 * (a batch id, a task id), `code` is an error code of docs/api/conventions.md.
 * @example { "type": "error", "code": "VALIDATION_FAILED", "message": "result.batch: results[0].result_id: must be a result id (r_…)", "ref": "17" }
 */
export const errorMessageSchema = z.object({
  type: z.literal('error'),
  code: z.string(),
  message: z.string(),
  ref: z.string().nullable(),
});

/** Every message the control plane may send (validated by the node). */
export const serverMessageSchema = z.discriminatedUnion('type', [
  welcomeMessageSchema, enrollConfirmedMessageSchema, heartbeatMessageSchema, taskRunMessageSchema, taskCancelMessageSchema,
  resultAckMessageSchema, assignmentsFullMessageSchema, assignmentsDeltaMessageSchema, errorMessageSchema,
]);
export type ServerMessage = z.infer<typeof serverMessageSchema>;
/** A control-plane message as a sender may write it: fields with defaults (a task's `policy`) may be left out. */
export type ServerMessageInput = z.input<typeof serverMessageSchema>;

export type EnrollMessage = z.infer<typeof enrollMessageSchema>;
export type HelloMessage = z.infer<typeof helloMessageSchema>;
export type EnrollConfirmMessage = z.infer<typeof enrollConfirmMessageSchema>;
export type EnrollConfirmedMessage = z.infer<typeof enrollConfirmedMessageSchema>;
export type HeartbeatMessage = z.infer<typeof heartbeatMessageSchema>;
export type TaskAckMessage = z.infer<typeof taskAckMessageSchema>;
export type ResultBatchMessage = z.infer<typeof resultBatchMessageSchema>;
export type OutboxStatsMessage = z.infer<typeof outboxStatsMessageSchema>;
export type WelcomeMessage = z.infer<typeof welcomeMessageSchema>;
export type TaskRunMessage = z.infer<typeof taskRunMessageSchema>;
export type TaskCancelMessage = z.infer<typeof taskCancelMessageSchema>;
export type ResultAckMessage = z.infer<typeof resultAckMessageSchema>;
export type AssignmentsFullMessage = z.infer<typeof assignmentsFullMessageSchema>;
export type AssignmentsDeltaMessage = z.infer<typeof assignmentsDeltaMessageSchema>;
