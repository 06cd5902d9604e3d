import { ERROR_STATUS, type ErrorCode } from '@vantage/shared-protocol';

/**
 * The control plane's one error type (one error class carrying a code). Throw it from a
 * route or a query function; the app's single `onError` turns it into the error envelope (docs/api/conventions.md)
 * with the status of `code` (shared-protocol ERROR_STATUS).
 *
 * @param code    stable error code (docs/api/conventions.md) clients branch on
 * @param message English developer message; the handler localises known codes by Accept-Language
 * @param details field-level details (docs/api/conventions.md `details`), e.g. `{ fields: [{ path, message }] }`
 * @param headers extra response headers (Retry-After and X-RateLimit-* on 429)
 */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly details?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
  ) {
    super(message ?? code);
    this.name = 'ApiError';
    this.status = ERROR_STATUS[code];
  }
}
