import type net from 'node:net';
import { resolveTarget, type IpVersion } from '../resolve.js';
import type { TargetPolicy } from '../target-policy.js';
import type { CertificateFacts } from './certificate.js';
import { classifyNetError, type Failure } from './classify.js';
import { dialPinned, type ConnectMarks } from './connect.js';
import type { HopRequest } from './redirects.js';
import { requestBytes } from './request.js';
import { ResponseReader, SendError, type Sent } from './wire.js';

/** Phase durations of one exchange in ms (floats), blackbox_exporter's boundaries; 0 when not reached. */
export interface Phases {
  /** start → address resolved (blackbox "resolve"); 0 when no resolver was asked (an IP literal, localhost). */
  dns_ms: number;
  /** TCP connect started → connected ("connect"): just before connect(2) to the 'connect' event. */
  tcp_ms: number;
  /** TCP connected → TLS handshake done ("tls"); 0 for http. */
  tls_ms: number;
  /** connection ready (request written) → response headers ("processing"). */
  ttfb_ms: number;
  /** response headers → last body byte or the cap ("transfer"). */
  download_ms: number;
}

/** What one request/response exchange measured. */
export interface HopMeasure {
  resolved_address: string | null;
  status_code: number | null;
  headers: Record<string, string>;
  phases: Phases;
  /**
   * The exchange on the network, ms (float): resolution, then connect start → last body byte.
   * Building the request between the two is ours, not the target's, and is left out.
   */
  total_ms: number;
  /** Body bytes received (as sent on the wire, after chunked framing); null without a response. */
  response_size: number | null;
  body_truncated: boolean;
  tls: { cipher: string; version: string } | null;
  certificate: CertificateFacts | null;
  /** OpenSSL's reason for an invalid certificate that was accepted (`accept_invalid_certificate`); else null. */
  certificate_error: string | null;
  /** The body bytes read (up to the cap) when `keep_body`; else null. */
  body: Buffer | null;
  failure: Failure | null;
}

export interface ExchangeOptions {
  ip_version: IpVersion;
  policy: TargetPolicy;
  /** Aborts on the probe deadline or the runner's signal. */
  signal: AbortSignal;
  /** True once `signal` aborted because of the probe's own timeout_ms (for classification). */
  timedOut: () => boolean;
  timeout_ms: number;
  /** Body bytes read at most; beyond it the body is cut and `body_truncated` set. */
  body_cap_bytes: number;
  ca?: string | string[];
  /** Keep the body bytes read (monitor assertions); default false: counted and dropped. */
  keep_body?: boolean;
  /** See ConnectPlan.accept_invalid_certificate. */
  accept_invalid_certificate?: boolean;
}

const zeroPhases = (): Phases => ({ dns_ms: 0, tcp_ms: 0, tls_ms: 0, ttfb_ms: 0, download_ms: 0 });

/**
 * One HTTP/1.1 exchange on a connection of its own: resolve the URL's host once with
 * resolveTarget (policy checked after resolution, docs/architecture/probes.md, target safety),
 * dial that address (connect.ts; Host header and SNI from the URL), write the request
 * (request.ts), read the response as it arrives (wire.ts, response-parser.ts), counting the body
 * up to `body_cap_bytes` and dropping it unless `keep_body`. The probe owns this exchange rather
 * than going through an HTTP client library so that every read is timed in its own callback
 * (docs/benchmarks.md, "HTTP probe timing inside running agents"). Never throws for network or
 * target problems: they come back in `failure`.
 */
export async function exchange(req: HopRequest, opts: ExchangeOptions): Promise<HopMeasure> {
  const t0 = performance.now();
  const out: HopMeasure = {
    resolved_address: null, status_code: null, headers: {}, phases: zeroPhases(), total_ms: 0,
    response_size: null, body_truncated: false, tls: null, certificate: null, certificate_error: null, body: null, failure: null,
  };
  const resolved = await resolveTarget(req.url.hostname, opts.ip_version, opts.policy);
  const tDns = performance.now();
  // No resolver asked (an IP literal, localhost): nothing to time, like curl's namelookup for a
  // literal. Our own parsing and policy check are not the network's, so they are left out.
  const dnsMs = resolved.ok && !resolved.looked_up ? 0 : tDns - t0;
  out.phases.dns_ms = dnsMs;
  if (!resolved.ok) {
    out.failure = { error: resolved.error, error_class: resolved.error_class };
    out.total_ms = dnsMs;
    return out;
  }
  out.resolved_address = resolved.address;
  if (opts.signal.aborted) {
    out.failure = classifyNetError(opts.signal.reason, opts.timedOut(), opts.timeout_ms);
    out.total_ms = performance.now() - t0;
    return out;
  }

  let request: Buffer;
  try {
    request = requestBytes(req.url, req.method, req.headers, req.body);
  } catch (err) {
    out.failure = classifyNetError(err, false, opts.timeout_ms);
    out.total_ms = dnsMs;
    return out;
  }
  const marks: ConnectMarks = { tcp_start: null, tcp_done: null, tls_done: null, tls: null, certificate: null };
  const port = req.url.port ? Number(req.url.port) : req.url.protocol === 'https:' ? 443 : 80;
  const bare = req.url.hostname.replace(/^\[|\]$/g, '');
  const reader = new ResponseReader(req.method === 'HEAD', opts.body_cap_bytes, opts.keep_body ?? false);
  let socket: net.Socket | null = null;
  let sent: Sent | null = null;
  try {
    socket = await dialPinned({
      address: resolved.address, port, protocol: req.url.protocol,
      servername: bare === resolved.address || bare.includes(':') || /^[\d.]+$/.test(bare) ? null : bare,
      ca: opts.ca, accept_invalid_certificate: opts.accept_invalid_certificate, signal: opts.signal, on_read: reader.push,
    }, marks);
    sent = await reader.exchange(socket, request, opts.signal);
  } catch (err) {
    sent = err instanceof SendError ? err.partial : null;
    out.failure = classifyNetError(err instanceof SendError ? err.cause : err, opts.timedOut(), opts.timeout_ms);
  } finally {
    socket?.destroy();
  }
  const tEnd = !out.failure && sent ? sent.t_end : performance.now();
  if (sent) {
    out.status_code = sent.status_code;
    out.headers = sent.headers;
    out.response_size = sent.response_size;
    out.body_truncated = sent.body_truncated;
    out.body = sent.body ? Buffer.concat(sent.body) : null;
  }
  out.certificate_error = marks.certificate_error ?? null;
  out.tls = marks.tls;
  out.certificate = marks.certificate;
  const tcpDone = marks.tcp_done;
  const ready = marks.tls_done ?? tcpDone;
  if (tcpDone !== null) out.phases.tcp_ms = tcpDone - (marks.tcp_start ?? tDns);
  if (marks.tls_done !== null && tcpDone !== null) out.phases.tls_ms = marks.tls_done - tcpDone;
  if (sent && ready !== null) {
    // First byte as the read saw it (blackbox's GotFirstResponseByte).
    out.phases.ttfb_ms = sent.t_first - ready;
    out.phases.download_ms = tEnd - sent.t_first;
  }
  out.total_ms = dnsMs + (tEnd - (marks.tcp_start ?? tDns));
  return out;
}
