import {
  RESPONSE_PREVIEW_MAX_CHARS, renderTemplate, type AgentEndpointCheckOutput, type AgentEndpointMonitorConfig, type HttpParams,
} from '@vantage/shared-protocol';
import { httpExchange, judgeResponse, type HttpCheckDeps, type HttpExchange, type Verdict } from './http-request.js';
import { failed, passed, type Check, type CheckContext } from './types.js';

type AgentType = 'llm_endpoint' | 'tool_api' | 'rag';

/**
 * The request of an agent endpoint check: the config's method, headers and body, or, with
 * `payload_template`, the template rendered (shared-protocol checks/template.ts) as a JSON body
 * with `content-type: application/json` unless the headers name another.
 */
export function agentRequest(target: string, config: AgentEndpointMonitorConfig, ctx: Pick<CheckContext, 'monitor_id' | 'scheduled_at'>): HttpParams {
  const headers = { ...config.headers };
  let body = config.body;
  if (config.payload_template !== undefined) {
    body = JSON.stringify(renderTemplate(config.payload_template, {
      model_name: config.model_name ?? '', monitor_id: ctx.monitor_id, scheduled_at: ctx.scheduled_at, timestamp: new Date().toISOString(), target,
    }));
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  }
  return { method: config.method, timeout_ms: config.timeout_ms, headers, body, follow_redirects: config.follow_redirects, ip_version: config.ip_version };
}

const count = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : null);

/**
 * Token counts and model of an OpenAI-compatible answer: `usage.prompt_tokens`,
 * `usage.completion_tokens`, `usage.total_tokens` (their sum when absent), and `model`. Nulls for
 * a body that is not such JSON.
 */
export function readUsage(body: string | null): Pick<AgentEndpointCheckOutput, 'model' | 'prompt_tokens' | 'completion_tokens' | 'tokens_used'> {
  const none = { model: null, prompt_tokens: null, completion_tokens: null, tokens_used: null };
  if (!body) return none;
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    return none;
  }
  if (doc === null || typeof doc !== 'object') return none;
  const record = doc as Record<string, unknown>;
  const usage = (record.usage ?? null) as Record<string, unknown> | null;
  const prompt = count(usage?.prompt_tokens);
  const completion = count(usage?.completion_tokens);
  const total = count(usage?.total_tokens) ?? (prompt !== null || completion !== null ? (prompt ?? 0) + (completion ?? 0) : null);
  return { model: typeof record.model === 'string' ? record.model.slice(0, 200) : null, prompt_tokens: prompt, completion_tokens: completion, tokens_used: total };
}

function outputOf(ex: HttpExchange): AgentEndpointCheckOutput {
  const o = ex.output;
  return {
    final_url: o.final_url, resolved_address: o.resolved_address, status_code: o.status_code, latency_ms: o.response_ms, timing: o.timing,
    response_size: o.response_size, body_truncated: o.body_truncated, ...readUsage(o.body_truncated ? null : ex.body),
    response_preview: ex.body === null ? null : ex.body.slice(0, RESPONSE_PREVIEW_MAX_CHARS), missing_fields: [],
  };
}

/**
 * `llm_endpoint`, `tool_api` and `rag` checks (docs/api/checks.md "Agent endpoints"): one HTTP
 * call built from the config, judged in order: a usable response, `expected_status`, every
 * `expected_fields` JSONPath present, latency within `latency_sla_ms`, `tokens_used` (from the
 * OpenAI-compatible `usage`) within `expected_tokens_max`, then the assertions.
 */
export function createAgentEndpointCheck<T extends AgentType>(type: T, deps: HttpCheckDeps): Check<T> {
  return {
    type,
    async run(target, config: AgentEndpointMonitorConfig, ctx) {
      const ex = await httpExchange(target, agentRequest(target, config, ctx), ctx, deps);
      const output = outputOf(ex);
      const own = async (): Promise<Verdict> => {
        if (config.expected_fields.length > 0) {
          const found = await deps.sandbox.jsonPaths(ex.body ?? '', config.expected_fields);
          output.missing_fields = config.expected_fields.filter((_, i) => !found.ok || !found.results[i]!.ok || (found.results[i] as { values: unknown[] }).values.length === 0);
          if (output.missing_fields.length > 0) {
            const why = found.ok ? '' : ` (${found.error})`;
            return { ok: false, error: `response lacks ${output.missing_fields.join(', ')}${why}`, error_class: 'assertion' };
          }
        }
        if (config.latency_sla_ms !== undefined && output.latency_ms !== null && output.latency_ms > config.latency_sla_ms) {
          return { ok: false, error: `latency ${output.latency_ms} ms exceeds latency_sla_ms ${config.latency_sla_ms}`, error_class: 'assertion' };
        }
        if (config.expected_tokens_max !== undefined && output.tokens_used !== null && output.tokens_used > config.expected_tokens_max) {
          return { ok: false, error: `${output.tokens_used} tokens used, more than expected_tokens_max ${config.expected_tokens_max}`, error_class: 'assertion' };
        }
        return { ok: true };
      };
      const { verdict, assertions } = await judgeResponse(ex, config.expected_status, config.assertions, deps.sandbox, own);
      return verdict.ok ? passed<T>(output, assertions) : failed<T>(output, verdict.error, verdict.error_class, assertions);
    },
  };
}
