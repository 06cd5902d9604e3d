import type { AgentObsConfig, AgentObsConfigRequest, AgentObsMonitor, AgentObsType, CreateAgentObsMonitor, PatchAgentObsMonitor } from '@vantage/shared-protocol';
import { toConfig, toRaw, type RawConfig } from '../monitor-form/config-values.js';
import { AGENT_OBS_CHECK_TYPES, PAYLOAD_ASSERTIONS } from './agent-obs-schemas.js';

/**
 * The agent-obs monitor form's values (text as typed) and the request bodies made of them
 * (docs/api/agent-obs.md "Monitors"). `endpoint_config` carries only its type's settings: llm
 * `api_style`, `model`, `prompt`, `max_tokens`; tool and other `method`, `body`, `expected_json`;
 * rag `query`, `expected_document_ids`, `expected_text`; every type `headers` and `timeout_ms`.
 * `payload_assertions` are the threshold's assertion rows (the monitor form's raw rows); the
 * config's `payload_template` and `expected_tokens_max` go to PUT …/config (docs/api/agent-obs.md
 * "The config"), with `model_name`: an llm monitor's Model field (the model its checks use: the
 * config's `model_name` overrides `endpoint_config.model`), another kind's saved one.
 */
export interface AgentObsValues {
  agent_name: string; type: AgentObsType; endpoint_url: string; frequency_seconds: string;
  latency_ms: string; status_codes: string; budget_per_check_usd: string; budget_monthly_usd: string; step_name: string;
  api_style: string; model: string; prompt: string; max_tokens: string;
  method: string; body: string; expected_json: string;
  query: string; expected_document_ids: string; expected_text: string;
  headers: string; timeout_ms: string; notification_channels: string[];
  payload_assertions: RawConfig[]; payload_template: string; expected_tokens_max: string; model_name: string;
}

/** A field the browser could not read (JSON that does not parse): its name and why. */
export class FieldProblem extends Error {
  constructor(readonly field: keyof AgentObsValues, message: string) { super(message); }
}

/** A new monitor's values: an llm endpoint checked every minute. */
export const EMPTY_VALUES: AgentObsValues = {
  agent_name: '', type: 'llm', endpoint_url: '', frequency_seconds: '60', latency_ms: '', status_codes: '', budget_per_check_usd: '',
  budget_monthly_usd: '', step_name: '', api_style: 'openai', model: '', prompt: '', max_tokens: '', method: '', body: '', expected_json: '',
  query: '', expected_document_ids: '', expected_text: '', headers: '', timeout_ms: '', notification_channels: [],
  payload_assertions: [], payload_template: '', expected_tokens_max: '', model_name: '',
};

const num = (s: string): number | undefined => (s.trim() === '' ? undefined : Number(s));
const str = (s: string): string | undefined => (s.trim() === '' ? undefined : s.trim());
function json(field: 'body' | 'expected_json' | 'payload_template', text: string): unknown {
  if (text.trim() === '') return undefined;
  try { return JSON.parse(text); } catch (err) { throw new FieldProblem(field, (err as Error).message); }
}
/** Drop the absent members, so the API fills its defaults. */
const defined = <T extends Record<string, unknown>>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

/** `Name: value` lines as a header record (a masked secret `••••abcd` sent back unchanged keeps it). */
function headersOf(text: string): Record<string, string> | undefined {
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  if (lines.length === 0) return undefined;
  return Object.fromEntries(lines.map((line) => {
    const colon = line.indexOf(':');
    return colon < 0 ? [line, ''] : [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
  }));
}

/** `endpoint_config` of the values' type. @throws FieldProblem when `body` or `expected_json` is not JSON */
export function endpointConfigOf(v: AgentObsValues): Record<string, unknown> {
  const every = { headers: headersOf(v.headers), timeout_ms: num(v.timeout_ms) };
  if (v.type === 'llm') return defined({ api_style: str(v.api_style), model: str(v.model), prompt: str(v.prompt), max_tokens: num(v.max_tokens), ...every });
  if (v.type === 'rag') {
    const ids = v.expected_document_ids.split(/[,\n]/).map((s) => s.trim()).filter(Boolean);
    return defined({ query: str(v.query), expected_document_ids: ids.length ? ids : undefined, expected_text: str(v.expected_text), ...every });
  }
  return defined({ method: str(v.method), body: json('body', v.body), expected_json: json('expected_json', v.expected_json), ...every });
}

/** `failure_threshold` with the assertion rows (none: left out). */
function thresholdOf(v: AgentObsValues): Record<string, unknown> {
  const assertions = v.payload_assertions.length ? toConfig([PAYLOAD_ASSERTIONS], { payload_assertions: v.payload_assertions }).payload_assertions : undefined;
  return defined({ latency: num(v.latency_ms), status_codes: str(v.status_codes), payload_assertions: assertions });
}

/** POST /v1/agent-obs/monitors body. @throws FieldProblem */
export function createBody(v: AgentObsValues): CreateAgentObsMonitor {
  return defined({
    agent_name: v.agent_name.trim(), type: v.type, endpoint_url: v.endpoint_url.trim(), frequency_seconds: Number(v.frequency_seconds),
    failure_threshold: thresholdOf(v), budget_per_check_usd: num(v.budget_per_check_usd), budget_monthly_usd: num(v.budget_monthly_usd),
    step_name: str(v.step_name), endpoint_config: endpointConfigOf(v), notification_channels: v.notification_channels.length ? v.notification_channels : undefined,
  }) as CreateAgentObsMonitor;
}

/** PATCH body: every field but `type`; a cleared budget or step is sent as null (none), the config and threshold whole. @throws FieldProblem */
export function patchBody(v: AgentObsValues): PatchAgentObsMonitor {
  return {
    agent_name: v.agent_name.trim(), endpoint_url: v.endpoint_url.trim(), frequency_seconds: Number(v.frequency_seconds),
    failure_threshold: thresholdOf(v), budget_per_check_usd: num(v.budget_per_check_usd) ?? null, budget_monthly_usd: num(v.budget_monthly_usd) ?? null,
    step_name: str(v.step_name) ?? null, endpoint_config: endpointConfigOf(v), notification_channels: v.notification_channels,
  } as PatchAgentObsMonitor;
}

const text = (x: unknown): string => (x === undefined || x === null ? '' : String(x));
const jsonText = (x: unknown): string => (x === undefined ? '' : JSON.stringify(x, null, 2));

/**
 * PUT …/config body: the monitor's endpoint, period and latency limit as on the form, the token
 * limit, the payload template (a JSON object; what is not an object is left for the schema to
 * refuse) and the model (see {@link AgentObsValues}); an empty one is left out, which clears it.
 * @throws FieldProblem when the template is not JSON
 */
export function configBody(v: AgentObsValues): AgentObsConfigRequest {
  return defined({
    obs_type: AGENT_OBS_CHECK_TYPES[v.type], endpoint_url: v.endpoint_url.trim(), check_interval_s: Number(v.frequency_seconds),
    latency_sla_ms: num(v.latency_ms), expected_tokens_max: num(v.expected_tokens_max), model_name: str(v.type === 'llm' ? v.model : v.model_name),
    payload_template: json('payload_template', v.payload_template) as AgentObsConfigRequest['payload_template'],
  }) as AgentObsConfigRequest;
}

/**
 * Whether PUT …/config is needed: the config's own settings differ from `saved` (token limit,
 * template, model); for a new monitor (null), whether a token limit or template is set (its model
 * is already the create request's).
 */
export function configChanged(body: AgentObsConfigRequest, saved: AgentObsConfig | null): boolean {
  const own = (c: { expected_tokens_max?: number | null; payload_template?: unknown; model_name?: string | null }) =>
    JSON.stringify([c.expected_tokens_max ?? null, c.payload_template ?? null, saved ? c.model_name ?? null : null]);
  return own(body) !== own(saved ?? {});
}

/** The form's values of a saved monitor and its config (an edit). */
export function valuesOf(m: AgentObsMonitor, config: AgentObsConfig | null = null): AgentObsValues {
  const c = m.endpoint_config;
  const th = m.failure_threshold;
  return {
    agent_name: m.agent_name, type: m.type, endpoint_url: m.endpoint_url, frequency_seconds: String(m.frequency_seconds),
    latency_ms: text(th.latency), status_codes: text(th.status_codes), budget_per_check_usd: text(m.budget_per_check_usd),
    budget_monthly_usd: text(m.budget_monthly_usd), step_name: text(m.step_name),
    api_style: text(c.api_style) || 'openai', model: text(config?.model_name ?? c.model), prompt: text(c.prompt), max_tokens: text(c.max_tokens),
    method: text(c.method), body: jsonText(c.body), expected_json: jsonText(c.expected_json),
    query: text(c.query), expected_document_ids: Array.isArray(c.expected_document_ids) ? c.expected_document_ids.join('\n') : '', expected_text: text(c.expected_text),
    headers: c.headers && typeof c.headers === 'object' ? Object.entries(c.headers as Record<string, string>).map(([k, val]) => `${k}: ${val}`).join('\n') : '',
    timeout_ms: text(c.timeout_ms), notification_channels: m.notification_channels,
    payload_assertions: (toRaw([PAYLOAD_ASSERTIONS], { payload_assertions: th.payload_assertions ?? [] }).payload_assertions as RawConfig[]),
    payload_template: config?.payload_template ? jsonText(config.payload_template) : '', expected_tokens_max: text(config?.expected_tokens_max), model_name: text(config?.model_name),
  };
}
