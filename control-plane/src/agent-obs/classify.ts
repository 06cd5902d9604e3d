import type { AgentEndpointCheckOutput, AgentObsFailureClass, MonitorResultEnvelope } from '@vantage/shared-protocol';

/**
 * The failure class of an agent endpoint check result (docs/api/agent-obs.md "Failure classes"),
 * null for a success:
 * - `timeout`: no answer in `timeout_ms`, or an answer slower than `failure_threshold.latency`;
 * - `5xx` / `4xx`: the endpoint answered with such a status; `5xx` also when it could not be
 *   reached at all (refused, unreachable, name not resolved: the service is unavailable);
 * - `malformed`: the answer is not the JSON the type expects (not JSON, or a required field of
 *   the chat/messages answer is missing);
 * - `semantic`: a well-formed answer that is wrong (a payload assertion, expected JSON, expected
 *   document ids or text, more tokens than `expected_tokens_max`, an unexpected 2xx/3xx status).
 * (`budget` is given by ingest, not here.)
 */
export function failureClassOf(r: Pick<MonitorResultEnvelope, 'success' | 'error' | 'error_class' | 'output'>): AgentObsFailureClass | null {
  if (r.success) return null;
  const o = r.output as AgentEndpointCheckOutput | null;
  const error = r.error ?? '';
  if (r.error_class === 'timeout' || /exceeds latency_sla_ms/.test(error)) return 'timeout';
  const status = o?.status_code ?? null;
  if (status === null) return '5xx';
  if (status >= 500) return '5xx';
  if (status >= 400) return '4xx';
  if (o && o.missing_fields.length > 0) return 'malformed';
  if (o?.response_preview !== null && o?.response_preview !== undefined && !looksLikeJson(o.response_preview)) return 'malformed';
  return 'semantic';
}

function looksLikeJson(preview: string): boolean {
  const s = preview.trimStart();
  return s.startsWith('{') || s.startsWith('[');
}
