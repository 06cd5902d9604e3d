import type { DecodedPacket } from 'dns-packet';

/** Why an exchange produced no reply: the caller maps these to a FailureClass. */
export type ExchangeFailure = 'timeout' | 'refused' | 'unreachable' | 'error' | 'aborted';

/**
 * One query/reply exchange with a server. `query_ms` is send → matching reply in ms (fractional,
 * performance.now()); for TCP it includes the connection handshake, as dig's "Query time" does.
 */
export type ExchangeResult =
  | { ok: true; reply: DecodedPacket; query_ms: number }
  | { ok: false; failure: ExchangeFailure; detail: string };

const FAILURE_OF_CODE: Record<string, ExchangeFailure> = {
  ECONNREFUSED: 'refused',
  ECONNRESET: 'refused',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
  EHOSTDOWN: 'unreachable',
  ENETDOWN: 'unreachable',
  EADDRNOTAVAIL: 'unreachable',
  ETIMEDOUT: 'timeout',
};

/** Map a socket error to an ExchangeFailure, keeping its code for the message. */
export function failureOf(err: NodeJS.ErrnoException): { ok: false; failure: ExchangeFailure; detail: string } {
  const code = err.code ?? err.message;
  return { ok: false, failure: FAILURE_OF_CODE[err.code ?? ''] ?? 'error', detail: code };
}

/**
 * Settle-once plumbing shared by the UDP and TCP transports: a timer for `timeout_ms`, the abort
 * `signal`, and a cleanup hook run exactly once before the promise resolves.
 */
export function settleOnce(
  timeout_ms: number,
  signal: AbortSignal,
  cleanup: () => void,
  resolve: (r: ExchangeResult) => void,
): (r: ExchangeResult) => void {
  let done = false;
  const finish = (r: ExchangeResult) => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
    cleanup();
    resolve(r);
  };
  const onAbort = () => finish({ ok: false, failure: 'aborted', detail: 'aborted' });
  const timer = setTimeout(() => finish({ ok: false, failure: 'timeout', detail: `no reply within ${timeout_ms} ms` }), Math.max(0, timeout_ms));
  if (signal.aborted) queueMicrotask(onAbort);
  else signal.addEventListener('abort', onAbort, { once: true });
  return finish;
}
