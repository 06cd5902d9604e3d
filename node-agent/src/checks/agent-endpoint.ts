import {
  RESPONSE_PREVIEW_MAX_CHARS, renderTemplate, type AgentEndpointCheckOutput, type AgentEndpointMonitorConfig, type HttpParams,
} from '@vantage/shared-protocol';
import type { JsonPathsOutcome, PatternSandbox } from './assertions/sandbox.js';
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
 * Where an answer keeps its model and token counts: OpenAI-compatible (`usage.prompt_tokens`,
 * `completion_tokens`, `total_tokens`) then Anthropic Messages (`usage.input_tokens`,
 * `output_tokens`); singular paths, so cheap to select.
 */
export const USAGE_PATHS = ['$.model', '$.usage.prompt_tokens', '$.usage.completion_tokens', '$.usage.total_tokens', '$.usage.input_tokens', '$.usage.output_tokens'];

type Usage = Pick<AgentEndpointCheckOutput, 'model' | 'prompt_tokens' | 'completion_tokens' | 'tokens_used'>;

/**
 * Token counts and model of an answer from the values USAGE_PATHS selected (in that order):
 * `usage.prompt_tokens` (else Anthropic's `usage.input_tokens`), `usage.completion_tokens` (else
 * `usage.output_tokens`), `usage.total_tokens` (their sum when absent), and `model`. Nulls for a
 * body that is not such JSON, and for `selected` null (a body cut at the cap).
 */
export function readUsage(selected: JsonPathsOutcome | null): Usage {
  const value = (i: number): unknown => {
    const r = selected?.ok ? selected.results[i] : undefined;
    return r?.ok && r.values.length === 1 ? r.values[0] : undefined;
  };
  const [model, prompt, completion] = [value(0), count(value(1)) ?? count(value(4)), count(value(2)) ?? count(value(5))];
  const total = count(value(3)) ?? (prompt !== null || completion !== null ? (prompt ?? 0) + (completion ?? 0) : null);
  return { model: typeof model === 'string' ? model.slice(0, 200) : null, prompt_tokens: prompt, completion_tokens: completion, tokens_used: total };
}

/**
 * The body's token usage and the `expected_fields` it lacks, from one parse in the sandbox (each
 * field is present as soon as it selects one value); `missing_error` says why when one could not
 * be selected (not JSON, a bound of the sandbox).
 */
async function readAnswer(ex: HttpExchange, expected_fields: string[], sandbox: PatternSandbox): Promise<{ usage: Usage; missing: string[]; missing_error: string | null }> {
  const got = await sandbox.jsonPaths(ex.body ?? '', [...USAGE_PATHS, ...expected_fields], { first_only: true });
  const usage = readUsage(ex.output.body_truncated ? null : got);
  const fields = got.ok ? got.results.slice(USAGE_PATHS.length) : null;
  const missing = expected_fields.filter((_, i) => !fields || !fields[i]!.ok || (fields[i] as { values: unknown[] }).values.length === 0);
  const failed = fields?.find((r) => !r.ok) as { error: string } | undefined;
  return { usage, missing, missing_error: !got.ok ? got.error : failed?.error ?? null };
}

function outputOf(ex: HttpExchange, usage: Usage): AgentEndpointCheckOutput {
  const o = ex.output;
  return {
    final_url: o.final_url, resolved_address: o.resolved_address, status_code: o.status_code, latency_ms: o.response_ms, timing: o.timing,
    response_size: o.response_size, body_truncated: o.body_truncated, ...usage,
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
      const answer = await readAnswer(ex, config.expected_fields, deps.sandbox);
      const output = outputOf(ex, answer.usage);
      const own = async (): Promise<Verdict> => {
        output.missing_fields = answer.missing;
        if (answer.missing.length > 0) {
          const why = answer.missing_error ? ` (${answer.missing_error})` : '';
          return { ok: false, error: `response lacks ${answer.missing.join(', ')}${why}`, error_class: 'assertion' };
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
