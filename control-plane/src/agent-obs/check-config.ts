import {
  AGENT_OBS_CHECK_TYPES, type AgentObsEndpointConfig, type AgentObsFailureThreshold, type AgentObsType, type Assertion,
} from '@vantage/shared-protocol';
import { ApiError } from '../errors.js';

/** Fields of the config request kept with the agent-obs monitor (the rest of it is the monitor's own fields). */
export interface CheckOptions {
  expected_tokens_max?: number | null;
  model_name?: string | null;
  payload_template?: Record<string, unknown> | null;
}

/** What the check of an agent-obs monitor is made from. */
export interface CheckSource {
  type: AgentObsType;
  failure_threshold: AgentObsFailureThreshold;
  endpoint_config: AgentObsEndpointConfig;
  options: CheckOptions;
}

/** Anthropic's Messages API requires its version header; this is the one its documentation names. */
const ANTHROPIC_VERSION = '2023-06-01';
const DEFAULT_MAX_TOKENS = 256;

function invalid(path: string, message: string): ApiError {
  return new ApiError('VALIDATION_FAILED', `${path}: ${message}`, { fields: [{ path, message }], in: 'body' });
}

/** A JSONPath selecting top-level member `key` (RFC 9535 name selector). */
function memberPath(key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `$.${key}` : `$[${JSON.stringify(key).replace(/^"|"$/g, "'")}]`;
}

const hasHeader = (headers: Record<string, string>, name: string) => Object.keys(headers).some((h) => h.toLowerCase() === name);

/**
 * The config of the llm_endpoint / tool_api / rag monitor that runs an agent-obs monitor's
 * checks (shared-protocol monitors/config-http.ts agentEndpointMonitorConfigSchema; the monitor
 * checker validates it and fills defaults), built as docs/api/agent-obs.md "What a check sends":
 * - llm: a JSON body for an OpenAI-compatible Chat Completions API (`api_style` openai, default)
 *   or an Anthropic-style Messages API (`anthropic`: `anthropic-version` header added), with
 *   `model`, `prompt` (one user message) and `max_tokens`; the answer's text must be present
 *   (`$.choices[0].message.content` / `$.content[0].text`);
 * - tool / other: `method` (POST with a body, else GET), `body` sent as JSON; every
 *   `expected_json` member becomes a json_path eq assertion;
 * - rag: POST `{ "query": … }` (or `body`); each of `expected_document_ids` and `expected_text`
 *   must appear in the answer (body_contains).
 * `failure_threshold` gives `latency_sla_ms` (latency), `expected_status` (status_codes) and the
 * assertions (payload_assertions); the config request's `payload_template` replaces the body.
 * @throws ApiError VALIDATION_FAILED (400) naming the field when the sources do not make a check
 */
export function checkConfigOf(src: CheckSource): Record<string, unknown> {
  const ec = src.endpoint_config;
  const ft = src.failure_threshold;
  const headers: Record<string, string> = { ...ec.headers };
  const assertions: Assertion[] = [...(ft.payload_assertions ?? [])];
  const template = src.options.payload_template ?? undefined;
  const config: Record<string, unknown> = {
    headers, timeout_ms: ec.timeout_ms ?? 30_000, expected_status: ft.status_codes ?? '200-299', assertions,
    ...(ft.latency !== undefined ? { latency_sla_ms: ft.latency } : {}),
    ...(src.options.expected_tokens_max ? { expected_tokens_max: src.options.expected_tokens_max } : {}),
  };
  const model = src.options.model_name ?? ec.model;
  if (model) config.model_name = model;
  const jsonBody = (body: unknown) => {
    if (!hasHeader(headers, 'content-type')) headers['content-type'] = 'application/json';
    return JSON.stringify(body);
  };

  switch (src.type) {
    case 'llm': {
      const style = ec.api_style ?? 'openai';
      config.method = ec.method ?? 'POST';
      config.expected_fields = [style === 'openai' ? '$.choices[0].message.content' : '$.content[0].text'];
      if (style === 'anthropic' && !hasHeader(headers, 'anthropic-version')) headers['anthropic-version'] = ANTHROPIC_VERSION;
      if (template) break;
      if (!model) throw invalid('endpoint_config.model', 'an llm monitor needs a model (or a payload_template)');
      if (!ec.prompt) throw invalid('endpoint_config.prompt', 'an llm monitor needs a prompt (or a payload_template)');
      const messages = [{ role: 'user', content: ec.prompt }];
      config.body = jsonBody(style === 'openai'
        ? { model, messages, ...(ec.max_tokens ? { max_tokens: ec.max_tokens } : {}) }
        : { model, max_tokens: ec.max_tokens ?? DEFAULT_MAX_TOKENS, messages });
      break;
    }
    case 'rag': {
      config.method = ec.method ?? 'POST';
      for (const id of ec.expected_document_ids ?? []) assertions.push({ type: 'body_contains', op: 'contains', value: id });
      if (ec.expected_text) assertions.push({ type: 'body_contains', op: 'contains', value: ec.expected_text });
      if (template) break;
      if (ec.body !== undefined) config.body = jsonBody(ec.body);
      else if (ec.query) config.body = jsonBody({ query: ec.query });
      else throw invalid('endpoint_config.query', 'a rag monitor needs a query (or a body, or a payload_template)');
      break;
    }
    case 'tool':
    case 'other': {
      for (const [key, value] of Object.entries(ec.expected_json ?? {})) {
        if (value === null || typeof value === 'object') throw invalid(`endpoint_config.expected_json.${key}`, 'must be a string, number or boolean');
        assertions.push({ type: 'json_path', op: 'eq', path: memberPath(key), value });
      }
      config.method = ec.method ?? (ec.body !== undefined || template ? 'POST' : 'GET');
      if (!template && ec.body !== undefined) config.body = jsonBody(ec.body);
      break;
    }
  }
  if (template) {
    config.payload_template = template;
    if (!hasHeader(headers, 'content-type')) headers['content-type'] = 'application/json';
  }
  if (assertions.length > 20) throw invalid('failure_threshold.payload_assertions', 'at most 20 assertions in all (expected_json, document ids and text count too)');
  return config;
}

/** The node check type of an agent-obs monitor type. */
export function checkTypeOf(type: AgentObsType) {
  return AGENT_OBS_CHECK_TYPES[type];
}
