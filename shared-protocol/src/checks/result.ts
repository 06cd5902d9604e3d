import { z } from 'zod';
import { idSchema } from '../ids.js';
import { MONITOR_CONFIGS } from '../monitors/config.js';
import { MONITOR_LIMITS } from '../monitors/types.js';
import { assertionResultSchema } from './assertion-result.js';
import { CHECK_OUTPUTS } from './outputs.js';
import { checkFailureClassSchema, type NodeCheckType } from './types.js';

function specVariant<T extends NodeCheckType>(type: T) {
  return z.object({
    type: z.literal(type),
    target: z.string().min(1).max(MONITOR_LIMITS.target_max_chars),
    config: MONITOR_CONFIGS[type] as (typeof MONITOR_CONFIGS)[T],
  });
}

/**
 * The check of a monitor assignment: the monitor's `type`, `target` and `config` (the monitor
 * type's config schema, defaults filled; docs/api/monitors.md). The node runs it every round.
 * @example { "type": "http", "target": "https://example.com/health", "config": { "method": "GET", "expected_status": "200-399", "assertions": [] } }
 */
export const monitorCheckSpecSchema = z.discriminatedUnion('type', [
  specVariant('http'), specVariant('https'), specVariant('keyword'), specVariant('ping'), specVariant('tcp'), specVariant('dns'),
  specVariant('traceroute'), specVariant('ssl_expiry'), specVariant('rbl'), specVariant('llm_endpoint'), specVariant('tool_api'),
  specVariant('rag'), specVariant('browser'),
]);
export type MonitorCheckSpec = z.infer<typeof monitorCheckSpecSchema>;
/** The check spec of one type. */
export type MonitorCheckSpecOf<T extends NodeCheckType> = Extract<MonitorCheckSpec, { type: T }>;

/**
 * Fields of one monitor check result (docs/api/checks.md "Result"), typed by check type. The
 * node-protocol result envelope (node-protocol/messages.ts) adds `result_id` and `task_id: null`.
 */
export function checkResultFields<T extends NodeCheckType>(type: T) {
  return {
    monitor_id: idSchema('monitor'),
    type: z.literal(type),
    /** The round this run belongs to: (monitor_id, node, scheduled_at) identifies a result. */
    scheduled_at: z.iso.datetime(),
    started_at: z.iso.datetime(),
    finished_at: z.iso.datetime(),
    success: z.boolean(),
    /** Null on success; else why: the first failing condition's detail, or the probe's error. */
    error: z.string().max(2000).nullable(),
    error_class: checkFailureClassSchema.nullable(),
    /** One entry per configured assertion, in order, each evaluated (none for types without assertions). */
    assertions: z.array(assertionResultSchema).max(MONITOR_LIMITS.assertions_max),
    /** The type's output (outputs.ts); null only when the check produced nothing (runner error). */
    // z.nullable(), not .nullable(): the method would resolve through the union of every output.
    output: z.nullable(CHECK_OUTPUTS[type] as (typeof CHECK_OUTPUTS)[T]),
  };
}

function resultVariant<T extends NodeCheckType>(type: T) {
  return z.object(checkResultFields(type));
}

/**
 * One monitor check result as the node produces it, before the envelope's `result_id`.
 * @example { "monitor_id": "m_…", "type": "http", "scheduled_at": "2026-11-22T10:00:00.000Z", "started_at": "2026-11-22T10:00:00.002Z", "finished_at": "2026-11-22T10:00:00.090Z", "success": false, "error": "status_code 503 is not in [200,204]", "error_class": "assertion", "assertions": [{ "type": "status_code", "op": "in", "expected": [200, 204], "actual": 503, "ok": false, "detail": "status_code 503 is not in [200,204]" }], "output": { "status_code": 503, … } }
 */
export const checkResultSchema = z.discriminatedUnion('type', [
  resultVariant('http'), resultVariant('https'), resultVariant('keyword'), resultVariant('ping'), resultVariant('tcp'), resultVariant('dns'),
  resultVariant('traceroute'), resultVariant('ssl_expiry'), resultVariant('rbl'), resultVariant('llm_endpoint'), resultVariant('tool_api'),
  resultVariant('rag'), resultVariant('browser'),
]);
export type CheckResult = z.infer<typeof checkResultSchema>;
/** The check result of one type. */
export type CheckResultOf<T extends NodeCheckType> = Extract<CheckResult, { type: T }>;
