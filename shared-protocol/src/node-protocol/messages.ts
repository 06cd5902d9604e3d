import { z } from 'zod';
import { idSchema } from '../ids.js';
import { LIMITS } from '../limits.js';
import { PROBE_PARAMS, PROBE_TYPES, type ProbeType } from '../probe/params.js';
import { PROBE_OUTPUTS, failureClassSchema } from '../probe/outputs.js';

/*
 * The WebSocket protocol between the control plane and a node. JSON text frames, discriminated on
 * `type`, one union per direction (nodeMessageSchema, serverMessageSchema). The upgrade request is
 * authenticated with `Authorization: Bearer <ent_… enrollment token | nk_… node credential>`; the
 * node's first message is `enroll` (token) or `hello` (credential), answered by `welcome`.
 */

const probeTypeEnum = z.enum(PROBE_TYPES);

function checkVariant<T extends ProbeType>(type: T) {
  return z.object({ type: z.literal(type), target: z.string().min(1).max(2048), params: PROBE_PARAMS[type] as (typeof PROBE_PARAMS)[T] });
}

/** A probe check to run, typed per probe type: `{ type, target, params }` with params already defaulted. */
export const checkSpecSchema = z.discriminatedUnion('type', [
  checkVariant('http'), checkVariant('ping'), checkVariant('dns'), checkVariant('tcp'), checkVariant('traceroute'),
]);
export type CheckSpec = z.infer<typeof checkSpecSchema>;

const outbox = z.object({ pending: z.number().int().min(0), dropped_total: z.number().int().min(0) });
const agentInfo = {
  protocol_version: z.number().int().min(1),
  agent_version: z.string().min(1).max(64),
  hostname: z.string().max(255).optional(),
  /** Node name chosen by the operator (installer --name); used at enrollment before the token label and hostname. */
  name: z.string().min(1).max(64).optional(),
  capabilities: z.array(probeTypeEnum).default([...PROBE_TYPES]),
  outbox: outbox.optional(),
};

// ───────────────────────────── node → control plane ─────────────────────────────

/**
 * First message of a node that connected with an `ent_` token: asks to be enrolled.
 * @example { "type": "enroll", "protocol_version": 1, "agent_version": "0.1.0", "hostname": "probe-1" }
 */
export const enrollMessageSchema = z.object({ type: z.literal('enroll'), ...agentInfo });

/**
 * First message of an enrolled node (connected with its `nk_` credential).
 * @example { "type": "hello", "protocol_version": 1, "agent_version": "0.1.0", "node_id": "n_…", "outbox": { "pending": 12, "dropped_total": 0 } }
 */
export const helloMessageSchema = z.object({ type: z.literal('hello'), node_id: idSchema('node'), ...agentInfo });

/**
 * Liveness ping, sent by either side every heartbeat interval; `sent_at` is the sender's clock (ms).
 * @example { "type": "heartbeat", "sent_at": 1795000000000 }
 */
export const heartbeatMessageSchema = z.object({ type: z.literal('heartbeat'), sent_at: z.number().int() });

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

function resultVariant<T extends ProbeType>(type: T) {
  return z.object({
    result_id: idSchema('result'),
    task_id: idSchema('probe_task').nullable(),
    monitor_id: idSchema('monitor').nullable(),
    type: z.literal(type),
    started_at: z.iso.datetime(),
    finished_at: z.iso.datetime(),
    success: z.boolean(),
    error: z.string().max(2000).nullable(),
    error_class: failureClassSchema.nullable(),
    output: (PROBE_OUTPUTS[type] as (typeof PROBE_OUTPUTS)[T]).nullable(),
  });
}

/**
 * One produced result, with a globally unique `result_id` made on the node when it was produced.
 * Exactly one of `task_id` (ad-hoc probe) and `monitor_id` (assignment run) is set.
 * `output` is null only when the check could not start (runner error); times are ISO 8601 UTC.
 * @example { "result_id": "r_…", "task_id": "pt_…", "monitor_id": null, "type": "tcp", "started_at": "2026-11-22T10:00:00.000Z", "finished_at": "2026-11-22T10:00:00.004Z", "success": true, "error": null, "error_class": null, "output": { "resolved_address": "198.18.1.10", "port": 443, "connect_ms": 0.4, "state": "open" } }
 */
export const resultEnvelopeSchema = z.discriminatedUnion('type', [
  resultVariant('http'), resultVariant('ping'), resultVariant('dns'), resultVariant('tcp'), resultVariant('traceroute'),
]).refine((r) => (r.task_id === null) !== (r.monitor_id === null), { message: 'exactly one of task_id and monitor_id must be set', path: ['task_id'] });
/** A result as it travels and is stored, typed per probe type. */
export type ResultEnvelope = z.infer<typeof resultEnvelopeSchema>;

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
  enrollMessageSchema, helloMessageSchema, heartbeatMessageSchema, taskAckMessageSchema,
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
 * Run one ad-hoc check; `timeout_ms` bounds the whole check on the node.
 * @example { "type": "task.run", "task_id": "pt_…", "timeout_ms": 10000, "check": { "type": "ping", "target": "198.18.1.10", "params": { "count": 4, "timeout_ms": 5000, "interval_ms": 1000, "ip_version": "auto" } } }
 */
export const taskRunMessageSchema = z.object({
  type: z.literal('task.run'),
  task_id: idSchema('probe_task'),
  timeout_ms: z.number().int().min(100).max(300_000),
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
 * One monitor the node runs on its own schedule (DESIGN.md "Monitors run on nodes").
 * @example { "monitor_id": "m_…", "interval_s": 60, "check": { "type": "http", "target": "https://example.com", "params": { … } } }
 */
export const assignmentSchema = z.object({
  monitor_id: idSchema('monitor'),
  interval_s: z.number().int().min(10).max(86_400),
  check: checkSpecSchema,
});
export type Assignment = z.infer<typeof assignmentSchema>;

/**
 * The full assignment set at `version`; replaces whatever the node held. Sent on every connect.
 * @example { "type": "assignments.full", "version": 42, "assignments": [] }
 */
export const assignmentsFullMessageSchema = z.object({
  type: z.literal('assignments.full'),
  version: z.number().int().min(0),
  assignments: z.array(assignmentSchema),
});

/**
 * Changes from `from_version` to `version`. A node whose version differs from `from_version`
 * ignores it and waits for the next full set (it acks its own version so the server resends).
 * @example { "type": "assignments.delta", "from_version": 42, "version": 43, "upsert": [], "remove": ["m_…"] }
 */
export const assignmentsDeltaMessageSchema = z.object({
  type: z.literal('assignments.delta'),
  from_version: z.number().int().min(0),
  version: z.number().int().min(1),
  upsert: z.array(assignmentSchema),
  remove: z.array(idSchema('monitor')),
});

/**
 * A message of the node's was refused; the connection stays up. `ref` names what it was about
 * (a batch id, a task id), `code` is an error code of spec part 7.
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
  welcomeMessageSchema, heartbeatMessageSchema, taskRunMessageSchema, taskCancelMessageSchema,
  resultAckMessageSchema, assignmentsFullMessageSchema, assignmentsDeltaMessageSchema, errorMessageSchema,
]);
export type ServerMessage = z.infer<typeof serverMessageSchema>;

export type EnrollMessage = z.infer<typeof enrollMessageSchema>;
export type HelloMessage = z.infer<typeof helloMessageSchema>;
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
