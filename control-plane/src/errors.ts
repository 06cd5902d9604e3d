import { ERROR_STATUS, type ErrorCode } from '@vantage/shared-protocol';

/**
 * The control plane's one error type (one error class carrying a code). Throw it from a
 * route or a query function; the app's single error handler (http/errors.ts) turns it into the error
 * envelope (docs/api/conventions.md) with the status of `code` (shared-protocol ERROR_STATUS) and a
 * `doc_url` to the code's entry in docs/api/errors.md.
 *
 * @param code    stable error code (docs/api/conventions.md) clients branch on
 * @param message English developer message naming the field, limit or reason. The handler shows it
 *                as `message` to English readers and, for zh-CN/zh-TW, shows the code's translated
 *                message (i18n/messages.ts) and keeps this one in `details.message_en`
 *                (docs/api/errors.md "Messages"); omitted = the code's generic message
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
