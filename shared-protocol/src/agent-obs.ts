import { z } from 'zod';
import { textString } from './parse.js';
import { timeParamSchema } from './monitors/history.js';
import { assertionsSchema, expectedStatusSchema } from './monitors/assertions.js';
import { httpHeadersSchema } from './http-headers.js';
import { httpParamsSchema } from './probe/params.js';

/**
 * Agent observability (docs/api/agent-obs.md): monitors of LLM, tool and RAG endpoints, the
 * events their checks produce, their cost against a monthly budget, and the resumable stream.
 */

/** Monitor kinds of the create request. */
export const AGENT_OBS_TYPES = ['llm', 'tool', 'rag', 'other'] as const;
export type AgentObsType = (typeof AGENT_OBS_TYPES)[number];
/** The node check type each kind runs as (`other` is a generic JSON endpoint: the tool check). */
export const AGENT_OBS_CHECK_TYPES = { llm: 'llm_endpoint', tool: 'tool_api', rag: 'rag', other: 'tool_api' } as const;
export type AgentObsCheckType = (typeof AGENT_OBS_CHECK_TYPES)[AgentObsType];
export const AGENT_OBS_STATUSES = ['active', 'paused', 'exceeded_budget'] as const;
export type AgentObsStatus = (typeof AGENT_OBS_STATUSES)[number];
/** Why a check failed: `budget` marks a result not counted because the monthly budget was spent. */
export const AGENT_OBS_FAILURE_CLASSES = ['timeout', '4xx', '5xx', 'malformed', 'semantic', 'budget'] as const;
export type AgentObsFailureClass = (typeof AGENT_OBS_FAILURE_CLASSES)[number];
/** Chat API dialects an `llm` monitor speaks. */
export const AGENT_OBS_LLM_STYLES = ['openai', 'anthropic'] as const;

/** Limits of docs/api/agent-obs.md. */
export const AGENT_OBS_LIMITS = {
  /** Shortest check period, s (the limit of agent-obs monitors). */
  frequency_s_min: 10,
  /** Longest check period, s (one day). */
  frequency_s_max: 86_400,
  /** Largest budget or per-check cost, USD. */
  usd_max: 1_000_000,
} as const;

const usd = z.number().min(0).max(AGENT_OBS_LIMITS.usd_max);
const frequency = z.number().int().min(AGENT_OBS_LIMITS.frequency_s_min).max(AGENT_OBS_LIMITS.frequency_s_max);
const endpointUrl = z.string().trim().max(2048).url().refine((u) => /^https?:\/\//i.test(u), { message: 'must be an http:// or https:// URL' });
const text = (max: number) => textString().min(1).max(max);

/**
 * `failure_threshold`: `latency` (ms: a slower answer fails the check), `status_codes` (the
 * statuses that count as success: `"200-299"`, `"200,204"` or an array of codes; default
 * 200-299) and `payload_assertions` (assertions on the answer, as for monitors).
 */
export const agentObsFailureThresholdSchema = z.strictObject({
  latency: z.number().int().min(1).max(120_000).optional(),
  status_codes: z.union([z.array(z.number().int().min(100).max(599)).min(1).max(50).transform((a) => a.join(',')), expectedStatusSchema('200-299')]).optional(),
  payload_assertions: assertionsSchema.optional(),
});
export type AgentObsFailureThreshold = z.infer<typeof agentObsFailureThresholdSchema>;

/**
 * `endpoint_config`, by type (every field optional): llm `api_style` (openai: a Chat Completions
 * API; anthropic: a Messages API), `model`, `prompt`, `max_tokens`; tool and other `method`,
 * `body` (JSON sent as is), `expected_json` (top-level fields the answer must equal); rag `query`,
 * `expected_document_ids`, `expected_text`. Every type: `headers` (secret values are stored
 * encrypted and read back masked), `timeout_ms` (1000-120000, default 30000).
 */
export const agentObsEndpointConfigSchema = z.strictObject({
  api_style: z.enum(AGENT_OBS_LLM_STYLES).optional(),
  model: text(200).optional(),
  prompt: text(8000).optional(),
  max_tokens: z.number().int().min(1).max(1_000_000).optional(),
  method: httpParamsSchema.shape.method.unwrap().optional(),
  headers: httpHeadersSchema({ masks: true }).optional(),
  body: z.unknown().optional(),
  expected_json: z.record(z.string().min(1).max(200), z.unknown()).optional(),
  query: text(8000).optional(),
  expected_document_ids: z.array(text(200)).max(50).optional(),
  expected_text: text(1024).optional(),
  timeout_ms: z.number().int().min(1000).max(120_000).optional(),
});
export type AgentObsEndpointConfig = z.infer<typeof agentObsEndpointConfigSchema>;

const monitorFields = {
  agent_name: text(200),
  endpoint_url: endpointUrl,
  frequency_seconds: frequency,
  failure_threshold: agentObsFailureThresholdSchema,
  budget_per_check_usd: usd.nullable().optional(),
  budget_monthly_usd: usd.nullable().optional(),
  step_name: text(200).nullable().optional(),
  endpoint_config: agentObsEndpointConfigSchema.optional(),
  notification_channels: z.array(z.string().min(1).max(64)).max(20).optional(),
};

/** CreateAgentObsMonitorRequest; `budget_per_check_usd` is required for `llm`. */
export const createAgentObsMonitorSchema = z.strictObject({ type: z.enum(AGENT_OBS_TYPES), ...monitorFields })
  .refine((m) => m.type !== 'llm' || (m.budget_per_check_usd !== undefined && m.budget_per_check_usd !== null),
    { message: 'required for type llm', path: ['budget_per_check_usd'] });
export type CreateAgentObsMonitor = z.infer<typeof createAgentObsMonitorSchema>;

/** PATCH: any field of the create request but `type`; `endpoint_config` and `failure_threshold` are replaced whole. */
export const patchAgentObsMonitorSchema = z.strictObject({
  agent_name: monitorFields.agent_name.optional(),
  endpoint_url: monitorFields.endpoint_url.optional(),
  frequency_seconds: monitorFields.frequency_seconds.optional(),
  failure_threshold: monitorFields.failure_threshold.optional(),
  budget_per_check_usd: monitorFields.budget_per_check_usd,
  budget_monthly_usd: monitorFields.budget_monthly_usd,
  step_name: monitorFields.step_name,
  endpoint_config: monitorFields.endpoint_config,
  notification_channels: monitorFields.notification_channels,
});
export type PatchAgentObsMonitor = z.infer<typeof patchAgentObsMonitorSchema>;

/** AgentObsMonitor. */
export const agentObsMonitorSchema = z.object({
  id: z.string(),
  owner_id: z.string(),
  agent_name: z.string(),
  type: z.enum(AGENT_OBS_TYPES),
  endpoint_url: z.string(),
  frequency_seconds: z.number().int(),
  failure_threshold: z.record(z.string(), z.unknown()),
  budget_per_check_usd: z.number().nullable(),
  budget_monthly_usd: z.number().nullable(),
  step_name: z.string().nullable(),
  endpoint_config: z.record(z.string(), z.unknown()),
  notification_channels: z.array(z.string()),
  status: z.enum(AGENT_OBS_STATUSES),
  paused_at: z.string().nullable(),
  total_cost_this_month_usd: z.number(),
  /** The monitor that runs the checks on nodes (docs/api/agent-obs.md "How checks run"). */
  check_monitor_id: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type AgentObsMonitor = z.infer<typeof agentObsMonitorSchema>;

/** AgentObsEvent: one check's outcome. */
export const agentObsEventSchema = z.object({
  id: z.string(),
  monitor_id: z.string(),
  owner_id: z.string(),
  occurred_at: z.string(),
  success: z.boolean(),
  latency_ms: z.number().int().nullable(),
  cost_usd: z.number().nullable(),
  failure_class: z.enum(AGENT_OBS_FAILURE_CLASSES).nullable(),
  failure_detail: z.record(z.string(), z.unknown()).nullable(),
  region: z.string().nullable(),
  trace_id: z.string().nullable(),
});
export type AgentObsEvent = z.infer<typeof agentObsEventSchema>;

/** Agent-obs config request (PUT): the check's endpoint, period and limits. */
export const agentObsConfigRequestSchema = z.strictObject({
  obs_type: z.enum(['llm_endpoint', 'tool_api', 'rag']),
  endpoint_url: endpointUrl,
  check_interval_s: frequency,
  latency_sla_ms: z.number().int().min(1).max(120_000).nullable().optional(),
  expected_tokens_max: z.number().int().min(1).max(10_000_000).nullable().optional(),
  model_name: text(200).nullable().optional(),
  payload_template: z.record(z.string(), z.unknown()).nullable().optional(),
});
export type AgentObsConfigRequest = z.infer<typeof agentObsConfigRequestSchema>;

/** Agent-obs config response `data`. */
export const agentObsConfigSchema = z.object({
  monitor_id: z.string(),
  obs_type: z.enum(['llm_endpoint', 'tool_api', 'rag']),
  endpoint_url: z.string(),
  check_interval_s: z.number().int(),
  latency_sla_ms: z.number().int().nullable(),
  expected_tokens_max: z.number().int().nullable(),
  model_name: z.string().nullable(),
  payload_template: z.record(z.string(), z.unknown()).nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type AgentObsConfig = z.infer<typeof agentObsConfigSchema>;

/** Agent-obs check record (`status` up or down). */
export const agentObsCheckSchema = z.object({
  id: z.string(),
  monitor_id: z.string(),
  obs_type: z.enum(['llm_endpoint', 'tool_api', 'rag']),
  checked_at: z.string(),
  status: z.enum(['up', 'down']),
  latency_ms: z.number().int().nullable(),
  tokens_used: z.number().int().nullable(),
  error_code: z.string().nullable(),
  response_preview: z.string().nullable(),
});
export type AgentObsCheck = z.infer<typeof agentObsCheckSchema>;

/** `{items[], limit, offset, total, next_cursor?}` of the checks list. */
export const agentObsCheckListSchema = z.object({
  items: z.array(agentObsCheckSchema), limit: z.number().int(), offset: z.number().int(), total: z.number().int(), next_cursor: z.string().optional(),
});

/** Checks list query: `limit` 1-100 (default 20); `cursor` (keyset mode, newest first) or `offset` (offset mode; default 0, and keyset mode's first page). */
export const agentObsCheckQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).max(1_000_000).optional(),
  cursor: z.string().max(200).optional(),
}).refine((q) => q.offset === undefined || q.cursor === undefined, { message: 'give cursor or offset, not both', path: ['cursor'] });

const bool = z.enum(['true', 'false']).transform((v) => v === 'true');
/** Events list query: filters `monitor_id`, `from`, `to`, `success`; `limit` 1-200 (default 50), `offset`; newest first. */
export const agentObsEventQuerySchema = z.object({
  monitor_id: z.string().max(64).optional(),
  from: timeParamSchema.optional(),
  to: timeParamSchema.optional(),
  success: bool.optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});

/** Stream query: optional `monitor_id`. */
export const agentObsStreamQuerySchema = z.object({ monitor_id: z.string().max(64).optional() });
