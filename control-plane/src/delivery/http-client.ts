import { isIP, type LookupFunction } from 'node:net';
import { Agent, request } from 'undici';
import { WEBHOOK_LIMITS } from '@vantage/shared-protocol';
import { checkHost, type OutboundPolicy } from './outbound-policy.js';

/** Response bytes read before the connection is dropped instead of drained (keeps it reusable for small answers). */
const DRAIN_MAX_BYTES = 64 * 1024;

/** How one HTTP attempt ended: a response (any status), or an error with whether the policy refused it. */
export type HttpResult =
  | { kind: 'response'; status_code: number; response_body: string; latency_ms: number }
  | { kind: 'error'; error: string; refused: boolean; latency_ms: number };

/** The outbound HTTP client of the delivery engine. */
export interface OutboundHttp {
  /**
   * POST `body` to `url` with `headers`: no redirects followed, the whole attempt bounded by
   * `timeout_ms` (and `signal`), the first 1 KB of the response kept. Never throws.
   * `opts.method` sends another method instead (an SMS gateway's PUT or GET; GET sends no body).
   */
  post(url: string, body: string, headers: Record<string, string>, opts: { timeout_ms: number; signal?: AbortSignal; method?: 'POST' | 'PUT' | 'GET' }): Promise<HttpResult>;
  close(): Promise<void>;
}

/** Thrown inside the connection's lookup when the policy refuses the host's addresses. */
class RefusedAddress extends Error {
  override name = 'RefusedAddress';
}

/** Find a RefusedAddress anywhere in an error's cause chain. */
function refusal(err: unknown): RefusedAddress | null {
  for (let e = err, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof RefusedAddress) return e;
  }
  return null;
}

/** A short readable description of a request failure (code and message of the innermost cause). */
function describe(err: unknown, timeout_ms: number): string {
  let e = err as (Error & { code?: string; cause?: unknown }) | undefined;
  for (let depth = 0; e?.cause && depth < 8; depth++) e = e.cause as typeof e;
  const name = e?.name ?? '';
  if (name === 'TimeoutError' || e?.code === 'UND_ERR_HEADERS_TIMEOUT' || e?.code === 'UND_ERR_BODY_TIMEOUT' || e?.code === 'UND_ERR_CONNECT_TIMEOUT') {
    return `timeout: no complete answer within ${timeout_ms} ms`;
  }
  if (name === 'AbortError') return 'aborted: the delivery worker stopped';
  const text = e?.message ?? String(err);
  return e?.code && !text.includes(e.code) ? `${e.code}: ${text}` : text;
}

/** Postgres text cannot hold NUL; a receiver's bytes are logged with it replaced. */
function storable(text: string): string {
  return text.replace(/\u0000/g, '\uFFFD');
}

/**
 * An undici connection pool whose every connection goes only to addresses the policy allows:
 * the lookup of each new connection resolves the host, refuses it when any address is refused
 * (docs/architecture/delivery.md "Address policy") and hands net/tls exactly the checked
 * addresses, so nothing resolves the name a second time (no DNS rebinding between check and
 * connect). IP-literal hosts never reach a lookup and are judged before the request.
 */
export function createOutboundHttp(policy: OutboundPolicy): OutboundHttp {
  const lookup: LookupFunction = (hostname, options, callback) => {
    checkHost(hostname, policy).then((check) => {
      if (!check.ok) {
        const err = check.refused ? new RefusedAddress(check.reason) : Object.assign(new Error(check.reason), { code: 'ENOTFOUND' });
        return (callback as (e: Error) => void)(err);
      }
      const family = typeof options === 'object' ? options.family : options;
      const usable = check.addresses.filter((a) => !family || isIP(a) === family);
      if (usable.length === 0) return (callback as (e: Error) => void)(Object.assign(new Error(`no IPv${family} address for ${hostname}`), { code: 'ENOTFOUND' }));
      if (typeof options === 'object' && options.all) {
        return (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, usable.map((address) => ({ address, family: isIP(address) })));
      }
      callback(null, usable[0]!, isIP(usable[0]!));
    }, (err: Error) => (callback as (e: Error) => void)(err));
  };
  const agent = new Agent({ connect: { lookup }, keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000 });

  async function post(url: string, body: string, headers: Record<string, string>, opts: { timeout_ms: number; signal?: AbortSignal; method?: 'POST' | 'PUT' | 'GET' }): Promise<HttpResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const host = new URL(url).hostname;
      const literal = host.startsWith('[') ? host.slice(1, -1) : host;
      if (isIP(literal)) {
        const check = await checkHost(literal, policy);
        if (!check.ok) return { kind: 'error', error: check.reason, refused: true, latency_ms: elapsed() };
      }
      const deadline = AbortSignal.timeout(opts.timeout_ms);
      const signal = opts.signal ? AbortSignal.any([opts.signal, deadline]) : deadline;
      const res = await request(url, {
        dispatcher: agent, method: opts.method ?? 'POST', body: opts.method === 'GET' ? null : body, headers, signal,
        headersTimeout: opts.timeout_ms, bodyTimeout: opts.timeout_ms,
      });
      const kept: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        if (size < WEBHOOK_LIMITS.response_log_max_bytes) kept.push(chunk.subarray(0, WEBHOOK_LIMITS.response_log_max_bytes - size));
        size += chunk.length;
        if (size > DRAIN_MAX_BYTES) {
          res.body.destroy();
          break;
        }
      }
      const response_body = storable(Buffer.concat(kept).toString('utf8'));
      return { kind: 'response', status_code: res.statusCode, response_body, latency_ms: elapsed() };
    } catch (err) {
      const refused = refusal(err);
      if (refused) return { kind: 'error', error: refused.message, refused: true, latency_ms: elapsed() };
      return { kind: 'error', error: storable(describe(err, opts.timeout_ms)), refused: false, latency_ms: elapsed() };
    }
  }

  return { post, close: () => agent.close() };
}
