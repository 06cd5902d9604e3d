import type { FailureClass } from '@vantage/shared-protocol';

/** A classified failure of a network exchange. */
export interface Failure {
  error: string;
  error_class: FailureClass;
}

const REFUSED = new Set(['ECONNREFUSED']);
const UNREACHABLE = new Set(['EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN', 'EADDRNOTAVAIL']);
const TIMEOUT = new Set(['ETIMEDOUT']);
/** request.ts InvalidRequestError codes (Node's own names for the same faults). */
const BAD_INPUT = new Set(['ERR_INVALID_ARG_TYPE', 'ERR_INVALID_ARG_VALUE', 'ERR_INVALID_HTTP_TOKEN', 'ERR_INVALID_CHAR']);

function codeOf(err: unknown): string | undefined {
  let e: unknown = err;
  // An error may wrap the socket's in `cause`; use the innermost code.
  for (let depth = 0; depth < 4 && e && typeof e === 'object'; depth++) {
    const code = (e as { code?: unknown }).code;
    const cause = (e as { cause?: unknown }).cause;
    if (cause && typeof cause === 'object' && (cause as { code?: unknown }).code) {
      e = cause;
      continue;
    }
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}

/**
 * Classify a connection or request error by its errno or code: ECONNREFUSED → `refused`,
 * EHOSTUNREACH/ENETUNREACH → `unreachable`, ETIMEDOUT → `timeout`, a request the probe refuses
 * to send (request.ts: a forbidden header, say) → `rejected`, anything else the peer did (TLS or
 * certificate failure, reset, malformed or cut-short HTTP: response-parser.ts) → `target`. `timedOut` wins over the error itself,
 * since an abort by our own deadline surfaces as an abort error.
 */
export function classifyNetError(err: unknown, timedOut: boolean, timeout_ms: number): Failure {
  if (timedOut) return { error: `no complete answer within ${timeout_ms} ms`, error_class: 'timeout' };
  const code = codeOf(err);
  const message = err instanceof Error ? err.message : String(err);
  const text = code && !message.includes(code) ? `${code}: ${message}` : message;
  if (code && REFUSED.has(code)) return { error: `connection refused (${code})`, error_class: 'refused' };
  if (code && UNREACHABLE.has(code)) return { error: `unreachable (${code})`, error_class: 'unreachable' };
  if (code && TIMEOUT.has(code)) return { error: text, error_class: 'timeout' };
  if (code && BAD_INPUT.has(code)) return { error: `invalid request: ${message}`, error_class: 'rejected' };
  return { error: text.slice(0, 2000), error_class: 'target' };
}
