import { z } from 'zod';
import { textString } from '../parse.js';
import { jsonPathSchema } from '../checks/patterns.js';
import { templateFault } from '../checks/template.js';
import { LIMITS } from '../limits.js';
import { httpParamsSchema } from '../probe/params.js';
import { httpHeadersSchema } from '../http-headers.js';
import { assertionsSchema, expectedStatusSchema, ASSERTION_TEXT_MAX_CHARS } from './assertions.js';

/*
 * Config of the HTTP-like monitor types ( `config`: method, headers, body,
 * expected_status, assertions…). Each builds on the HTTP probe's params (docs/api/probes.md), so a check
 * sends exactly what an ad-hoc HTTP probe with the same fields would.
 */

/**
 * `http` monitor config: the HTTP probe params (method GET, timeout_ms 1000-30000 default 10000,
 * headers, body up to 32768 characters, follow_redirects true, ip_version auto) plus
 * `expected_status` (default `200-399`) and `assertions[]` (at most 20). The target is
 * an http:// or https:// URL.
 * @example { "method": "GET", "expected_status": "200-299", "assertions": [{ "type": "response_time", "op": "lt", "value": 800 }] }
 */
export const httpMonitorConfigSchema = httpParamsSchema.extend({
  // A secret header's mask stands for the stored secret (docs/api/monitors.md "Secrets in headers").
  headers: httpHeadersSchema({ masks: true }).default({}),
  expected_status: expectedStatusSchema('200-399'),
  assertions: assertionsSchema,
});
export type HttpMonitorConfig = z.infer<typeof httpMonitorConfigSchema>;

/**
 * `https` monitor config: the `http` config plus `ignore_tls_errors` (default false: an invalid,
 * expired or mismatched certificate fails the check). The target must be an https:// URL.
 * @example { "ignore_tls_errors": false, "assertions": [{ "type": "ssl_days_remaining", "op": "gt", "value": 14 }] }
 */
export const httpsMonitorConfigSchema = httpMonitorConfigSchema.extend({
  ignore_tls_errors: z.boolean().default(false),
});
export type HttpsMonitorConfig = z.infer<typeof httpsMonitorConfigSchema>;

/**
 * `keyword` monitor config: the `http` config plus `keyword` (required, 1-1024 characters) that
 * the response body must contain; `invert` (default false) makes its presence the failure;
 * `case_sensitive` default false.
 * @example { "keyword": "All systems operational", "invert": false, "case_sensitive": false }
 */
export const keywordMonitorConfigSchema = httpMonitorConfigSchema.extend({
  keyword: textString().min(1).max(ASSERTION_TEXT_MAX_CHARS),
  invert: z.boolean().default(false),
  case_sensitive: z.boolean().default(false),
});
export type KeywordMonitorConfig = z.infer<typeof keywordMonitorConfigSchema>;

/** Longest request an LLM, tool or RAG endpoint gets before the check fails, ms (ours). */
export const AGENT_ENDPOINT_TIMEOUT_MS_MAX = 120_000;

/**
 * Config of `llm_endpoint`, `tool_api` and `rag` monitors (agent observability): an HTTP
 * request like the `http` config, but `method` defaults to POST, `timeout_ms` to 30000 (up to
 * 120000: model answers are slow) and `expected_status` to `200-299`; `expected_fields` are
 * RFC 9535 JSONPaths (`$.choices[0].message`; no match()/search(): checks/patterns.ts) that
 * must be present in the JSON response, checked with `assertions[]`. `payload_template` (a JSON
 * object, instead of `body`) is sent as the JSON body with `{{model_name}}`, `{{monitor_id}}`,
 * `{{scheduled_at}}`, `{{timestamp}}` and `{{target}}` substituted (checks/template.ts);
 * `model_name` fills `{{model_name}}`; `latency_sla_ms` and `expected_tokens_max` (tokens of the
 * OpenAI-compatible `usage`) fail the check when exceeded.
 * @example { "method": "POST", "headers": { "content-type": "application/json" }, "body": "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"ping\"}]}", "expected_fields": ["$.choices[0].message.content"] }
 */
export const agentEndpointMonitorConfigSchema = httpMonitorConfigSchema.extend({
  method: httpParamsSchema.shape.method.unwrap().default('POST'),
  timeout_ms: z.number().int().min(1000).max(AGENT_ENDPOINT_TIMEOUT_MS_MAX).default(30_000),
  expected_status: expectedStatusSchema('200-299'),
  expected_fields: z.array(jsonPathSchema(ASSERTION_TEXT_MAX_CHARS)).max(20).default([]),
  // Agent observability (docs/api/checks.md): a JSON body built from a template, the model, and the limits.
  payload_template: z.record(z.string(), z.json()).optional()
    .refine((t) => t === undefined || templateFault(t) === null, { message: 'unknown template variable (see docs/api/checks.md)' })
    .refine((t) => t === undefined || JSON.stringify(t).length <= LIMITS.http_body_max_chars, { message: `at most ${LIMITS.http_body_max_chars} characters as JSON` }),
  model_name: textString().min(1).max(200).optional(),
  latency_sla_ms: z.number().int().min(1).max(AGENT_ENDPOINT_TIMEOUT_MS_MAX).optional(),
  expected_tokens_max: z.number().int().min(1).max(10_000_000).optional(),
}).refine((c) => c.payload_template === undefined || c.body === undefined, { message: 'give body or payload_template, not both', path: ['payload_template'] });
export type AgentEndpointMonitorConfig = z.infer<typeof agentEndpointMonitorConfigSchema>;
