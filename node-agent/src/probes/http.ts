import type { HttpOutput } from '@vantage/shared-protocol';
import { measureHttp, type HttpMeasure, type HttpProbeOptions } from './http/measure.js';
import type { Probe } from './types.js';

export type { HttpProbeOptions } from './http/measure.js';

/**
 * Round a float measure into the wire output (shared-protocol httpOutputSchema, docs/api/probes.md node
 * result): integer ms, timing summed over redirects, headers/tls/certificate of the last response.
 * `timing` is null when no address was resolved; phases not reached are 0.
 */
export function toHttpOutput(m: HttpMeasure): HttpOutput {
  const last = m.last;
  const r = Math.round;
  return {
    final_url: m.final_url,
    status_code: last?.status_code ?? null,
    response_ms: last?.status_code != null ? r(m.total_ms) : null,
    response_size: last?.response_size ?? null,
    headers: last?.headers ?? {},
    timing: m.phases
      ? { dns_ms: r(m.phases.dns_ms), tcp_ms: r(m.phases.tcp_ms), tls_ms: r(m.phases.tls_ms), ttfb_ms: r(m.phases.ttfb_ms), download_ms: r(m.phases.download_ms) }
      : null,
    tls: last?.tls ?? null,
    certificate: last?.certificate ?? null,
    redirects: m.redirects,
    resolved_address: last?.resolved_address ?? null,
    body_truncated: last?.body_truncated ?? false,
  };
}

/**
 * Build the HTTP/HTTPS probe (docs/api/probes.md params: method, timeout_ms, headers, body,
 * follow_redirects, ip_version; docs/api/probes.md result). `options.ca` adds trusted CAs (tests), and
 * `options.body_cap_bytes` bounds the bytes read per response. See http/measure.ts for the rules.
 */
export function createHttpProbe(options: HttpProbeOptions = {}): Probe<'http'> {
  return {
    type: 'http',
    async run(target, params, ctx) {
      const m = await measureHttp(target, params, ctx.policy, ctx.signal, options);
      // The wire carries integers (docs/api/probes.md); the node's log keeps the measured floats for anyone who wants them.
      ctx.log.debug({ target, response_ms: m.total_ms, timing: m.phases }, 'http timing before rounding (ms)');
      return { success: m.failure === null, error: m.failure?.error ?? null, error_class: m.failure?.error_class ?? null, output: toHttpOutput(m) };
    },
  };
}

/** The HTTP probe with the system's trusted roots only. */
export const httpProbe: Probe<'http'> = createHttpProbe();
