import type { HeadersOutput } from '@vantage/shared-protocol';
import { measureHttp, type HttpProbeOptions } from './http/measure.js';
import { analyse, securityOf } from './headers/analysis.js';
import type { Probe } from './types.js';

/** What we offer, so that `no_compression` means the server compresses nothing we can read. */
const ACCEPT_ENCODING = 'gzip, deflate, br';
/** Body bytes read at most: only the headers matter. */
const BODY_CAP_BYTES = 64 * 1024;

/**
 * Build the HTTP headers analysis probe (docs/api/probes.md "HTTP headers analysis"): a GET of
 * the target URL following redirects (the HTTP probe's rules: at most 10, each hop resolved and
 * policy-checked), then `hops[]`, the final response's `headers` (lower-case keys, repeated values
 * joined with ", "), `security` and `analysis` (headers/analysis.ts). Success as for the HTTP
 * probe: a final status below 400. `options.ca` adds trusted CAs (tests).
 */
export function createHeadersProbe(options: Pick<HttpProbeOptions, 'ca'> = {}): Probe<'headers'> {
  return {
    type: 'headers',
    async run(target, params, ctx) {
      const m = await measureHttp(target, {
        method: 'GET', timeout_ms: params.timeout_ms, headers: { 'accept-encoding': ACCEPT_ENCODING }, follow_redirects: true, ip_version: params.ip_version,
      }, ctx.policy, ctx.signal, { ...options, body_cap_bytes: BODY_CAP_BYTES });
      const headers = m.last?.headers ?? {};
      const security = securityOf(headers);
      const answered = m.last?.status_code != null;
      const output: HeadersOutput = {
        url: target,
        final_url: m.final_url,
        status_code: m.last?.status_code ?? null,
        response_ms: answered ? Math.round(m.total_ms) : null,
        resolved_address: m.last?.resolved_address ?? null,
        hops: m.redirects,
        headers,
        security,
        analysis: analyse(target, answered ? m.final_url : null, security),
      };
      return { success: m.failure === null, error: m.failure?.error ?? null, error_class: m.failure?.error_class ?? null, output };
    },
  };
}

/** The headers probe with the system's trusted roots only. */
export const headersProbe: Probe<'headers'> = createHeadersProbe();
