import { deadlineSignal, type HttpParams } from '@vantage/shared-protocol';
import type { TargetPolicy } from '../target-policy.js';
import type { Failure } from './classify.js';
import { exchange, type HopMeasure, type Phases } from './exchange.js';
import { isRedirect, MAX_REDIRECTS, nextHop, parseTargetUrl, type HopRequest } from './redirects.js';

/** Options of the HTTP probe's factory (not part of the check params). */
export interface HttpProbeOptions {
  /** Extra trusted CA certificates, PEM (tests trust their generated CA this way). */
  ca?: string | string[];
  /** Body bytes read per response at most (default 8 MiB); the rest is cut, `body_truncated`. */
  body_cap_bytes?: number;
  /** Keep the body read (up to the cap) in `HopMeasure.body` (monitor checks; the probe drops it). */
  keep_body?: boolean;
  /** Accept an invalid certificate and report it in `HopMeasure.certificate_error` (an https monitor's ignore_tls_errors). */
  accept_invalid_certificate?: boolean;
}

export const DEFAULT_BODY_CAP_BYTES = 8 * 1024 * 1024;

/** A whole HTTP check in float ms, before rounding into the wire output. */
export interface HttpMeasure {
  final_url: string | null;
  /** The last exchange (the final response, or the one that failed). */
  last: HopMeasure | null;
  /** Phases summed over every exchange, like blackbox_exporter does across redirects. */
  phases: Phases | null;
  /**
   * Sum of every exchange's duration (resolution, then connect start → last byte; see
   * HopMeasure.total_ms), ms: time on the network, not our set-up or bookkeeping between hops.
   */
  total_ms: number;
  redirects: { url: string; status_code: number; location: string }[];
  failure: Failure | null;
}

/**
 * Run an HTTP check: parse the target URL, send the request, follow redirects by hand (at most
 * MAX_REDIRECTS, each hop resolved and policy-checked on its own) when `follow_redirects`.
 * Success is a final status below 400 (a 3xx not followed counts as an answer); 4xx/5xx fail
 * with error_class `target`. `signal` bounds everything; `params.timeout_ms` bounds the check too.
 * Never throws for target problems.
 */
export async function measureHttp(
  target: string, params: HttpParams, policy: TargetPolicy, signal: AbortSignal, opts: HttpProbeOptions = {},
): Promise<HttpMeasure> {
  const m: HttpMeasure = { final_url: null, last: null, phases: null, total_ms: 0, redirects: [], failure: null };
  const url = parseTargetUrl(target);
  if (!url) {
    m.failure = { error: `not an http(s) URL: ${target.slice(0, 200)}`, error_class: 'rejected' };
    return m;
  }
  // Not AbortSignal.any/timeout: their WeakRefs kept each check's sockets and buffers through
  // young-generation collections (shared-protocol deadline-signal.ts).
  const deadline = deadlineSignal(signal, params.timeout_ms);
  let req: HopRequest | null = { url, method: params.method, headers: { ...params.headers }, body: params.body };
  const sum: Phases = { dns_ms: 0, tcp_ms: 0, tls_ms: 0, ttfb_ms: 0, download_ms: 0 };
  try {
    while (req) {
      m.final_url = req.url.href;
      const hop = await exchange(req, {
        ip_version: params.ip_version, policy, signal: deadline.signal, timedOut: deadline.timedOut, timeout_ms: params.timeout_ms,
        body_cap_bytes: opts.body_cap_bytes ?? DEFAULT_BODY_CAP_BYTES, ca: opts.ca,
        keep_body: opts.keep_body, accept_invalid_certificate: opts.accept_invalid_certificate,
      });
      m.last = hop;
      m.total_ms += hop.total_ms;
      for (const k of Object.keys(sum) as (keyof Phases)[]) sum[k] += hop.phases[k];
      if (hop.resolved_address !== null) m.phases = sum;
      if (hop.failure) {
        m.failure = hop.failure;
        break;
      }
      const status = hop.status_code!;
      const location = hop.headers.location;
      if (!params.follow_redirects || !isRedirect(status) || location === undefined) break;
      m.redirects.push({ url: req.url.href, status_code: status, location });
      if (m.redirects.length > MAX_REDIRECTS) {
        m.failure = { error: `more than ${MAX_REDIRECTS} redirects`, error_class: 'target' };
        break;
      }
      req = nextHop(req, status, location);
      if (!req) {
        m.failure = { error: `redirect to an unusable location: ${location.slice(0, 200)}`, error_class: 'target' };
      }
    }
  } finally {
    deadline.dispose();
  }
  const status = m.last?.status_code ?? null;
  if (!m.failure && status !== null && status >= 400) m.failure = { error: `HTTP status ${status}`, error_class: 'target' };
  return m;
}
