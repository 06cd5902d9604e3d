import { request } from 'undici';
import { deadlineSignal, WEBHOOK_LIMITS } from '@vantage/shared-protocol';
import { explainFailure, refusalOf, type OutboundConnector } from './connector.js';

/** Response bytes read before the connection is dropped instead of drained (keeps it reusable for small answers). */
const DRAIN_MAX_BYTES = 64 * 1024;

/** How one HTTP attempt ended: a response (any status), or an error with whether the policy refused it. */
export type HttpResult =
  | { kind: 'response'; status_code: number; response_body: string; latency_ms: number }
  | { kind: 'error'; error: string; refused: boolean; latency_ms: number };

/** The outbound HTTP client of the delivery engine (its connections are the connector's: closing that closes them). */
export interface OutboundHttp {
  /**
   * POST `body` to `url` with `headers`: no redirects followed, the whole attempt bounded by
   * `timeout_ms` (and `signal`), the first 1 KB of the response kept. Never throws.
   * `opts.method` sends another method instead (an SMS gateway's PUT or GET; GET sends no body).
   */
  post(url: string, body: string, headers: Record<string, string>, opts: { timeout_ms: number; signal?: AbortSignal; method?: 'POST' | 'PUT' | 'GET' }): Promise<HttpResult>;
}

/** A short readable description of a request failure that the policy did not refuse. */
function describe(err: unknown, timeout_ms: number): string {
  const f = explainFailure(err);
  if (f.kind === 'timeout') return `timeout: no complete answer within ${timeout_ms} ms`;
  if (f.kind === 'aborted') return 'aborted: the delivery worker stopped';
  return f.text;
}

/** Postgres text cannot hold NUL; a receiver's bytes are logged with it replaced. */
function storable(text: string): string {
  return text.replace(/\u0000/g, '\uFFFD');
}

/**
 * The delivery engine's HTTP client over the process's connector (connector.ts): every
 * connection goes only to addresses the policy allows (docs/architecture/delivery.md "Address
 * policy"); a refused one is an error with `refused: true` and the policy's reason.
 */
export function createOutboundHttp(connector: OutboundConnector): OutboundHttp {
  async function post(url: string, body: string, headers: Record<string, string>, opts: { timeout_ms: number; signal?: AbortSignal; method?: 'POST' | 'PUT' | 'GET' }): Promise<HttpResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    // Not AbortSignal.any/timeout: their WeakRefs kept each delivery's request and response
    // through young-generation collections (shared-protocol deadline-signal.ts).
    const deadline = deadlineSignal(opts.signal, opts.timeout_ms);
    const signal = deadline.signal;
    try {
      const res = await request(url, {
        dispatcher: connector.dispatcher, method: opts.method ?? 'POST', body: opts.method === 'GET' ? null : body, headers, signal,
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
      const refused = refusalOf(err);
      if (refused) return { kind: 'error', error: refused.message, refused: true, latency_ms: elapsed() };
      return { kind: 'error', error: storable(describe(err, opts.timeout_ms)), refused: false, latency_ms: elapsed() };
    } finally {
      deadline.dispose();
    }
  }

  return { post };
}
