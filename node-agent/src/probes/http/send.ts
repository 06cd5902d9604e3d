import type { Client } from 'undici';
import { joinRawHeaders } from './headers.js';

/** What one request got back; `t_headers`/`t_end` are performance.now() ms. */
export interface Sent {
  status_code: number;
  headers: Record<string, string>;
  t_headers: number;
  t_end: number;
  /** Body bytes received (framing removed), counted up to the cut. */
  response_size: number;
  body_truncated: boolean;
  /** The body bytes up to the cap, when the caller asked to keep them; else null. */
  body: Buffer[] | null;
}

/** Thrown (rejected) when the request failed before or while the response came; `partial` holds what did arrive. */
export class SendError extends Error {
  constructor(override readonly cause: unknown, readonly partial: Sent | null) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'SendError';
  }
}

const CUT = Symbol('body cap reached');

/**
 * Send one request on `client` through undici's dispatch handler API (the request() promise API
 * adds about half a millisecond between first byte and headers, which would skew ttfb; measured
 * by test/bench/probe-bench-http-tcp.ts). The body is counted and dropped (kept up to the cap
 * when `keep_body`: monitor assertions read it); past `body_cap_bytes` the request is aborted and
 * the result marked `body_truncated`. `signal` aborts it.
 * Rejects with SendError on connection, TLS, protocol or abort failures.
 */
export function send(
  client: Client,
  req: { path: string; method: string; headers: Record<string, string>; body: string | undefined },
  signal: AbortSignal,
  body_cap_bytes: number,
  keep_body = false,
): Promise<Sent> {
  return new Promise((resolve, reject) => {
    let sent: Sent | null = null;
    let abort: ((err?: Error) => void) | null = null;
    let settled = false;
    const settle = (err: unknown) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      if (err === CUT && sent) {
        sent.t_end = performance.now();
        resolve(sent);
      } else if (err) reject(new SendError(err, sent));
      else resolve(sent!);
    };
    const onAbort = () => {
      if (abort) abort(signal.reason as Error);
      else settle(signal.reason);
    };
    if (signal.aborted) return settle(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      client.dispatch({ path: req.path, method: req.method as 'GET', headers: req.headers, body: req.body }, {
        onConnect(abortFn: (err?: Error) => void) {
          abort = abortFn;
          if (signal.aborted) abortFn(signal.reason as Error);
        },
        onHeaders(status_code: number, raw: Buffer[]) {
          const t = performance.now();
          sent = { status_code, headers: joinRawHeaders(raw), t_headers: t, t_end: t, response_size: 0, body_truncated: false, body: keep_body ? [] : null };
          return true;
        },
        onData(chunk: Buffer) {
          const before = sent!.response_size;
          sent!.response_size += chunk.length;
          if (sent!.body && before < body_cap_bytes) sent!.body.push(chunk.subarray(0, body_cap_bytes - before));
          if (sent!.response_size > body_cap_bytes) {
            sent!.body_truncated = true;
            settle(CUT);
            abort?.(new Error('body cap reached'));
            return false;
          }
          return true;
        },
        onComplete() {
          if (sent) sent.t_end = performance.now();
          settle(null);
        },
        onError(err: Error) {
          settle(err);
        },
      } as never);
    } catch (err) {
      settle(err);
    }
  });
}
