import type { Context, Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { newId } from '@vantage/shared-protocol';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { localiseMessage, pickLocale, specificDetail } from '../i18n/messages.js';
import type { Config } from '../config/index.js';
import { errorDocUrl } from './api-docs.routes.js';
import { routeTable } from './route-table.js';
import { classifyDbError } from './db-errors.js';
import { createLogger } from '../log.js';

/**
 * Turn an HTTPException from hono or its middleware into our error. A 415 (a body whose
 * Content-Type the route does not take: @hono/zod-openapi's check) becomes REQUEST_BODY_INVALID
 * saying which Content-Type to send; `content_type` is the request's, quoted in the message.
 */
function fromHttpException(err: HTTPException, content_type: string | undefined): ApiError {
  if (err.status === 413) return new ApiError('PAYLOAD_TOO_LARGE');
  if (err.status === 415) {
    const sent = content_type ? `Content-Type ${JSON.stringify(content_type.slice(0, 100))}` : 'no Content-Type';
    return new ApiError('REQUEST_BODY_INVALID', `the request body must be JSON sent with Content-Type: application/json (this request has ${sent})`);
  }
  if (err.status === 400) return new ApiError('REQUEST_BODY_INVALID', err.message || 'malformed request body');
  if (err.status === 401) return new ApiError('AUTH_REQUIRED');
  if (err.status === 404) return new ApiError('NOT_FOUND');
  if (err.status === 405) return new ApiError('METHOD_NOT_ALLOWED');
  return new ApiError(err.status >= 500 ? 'INTERNAL_ERROR' : 'VALIDATION_FAILED', err.status >= 500 ? undefined : err.message);
}

/** What the error envelope's `doc_url` is built from: the instance's public base URL (config/public-url.ts). */
export type DocUrlConfig = Pick<Config, 'public_url' | 'host' | 'port'>;

/**
 * Write the error envelope (docs/api/conventions.md, docs/api/errors.md):
 * `{ error: { code, message, request_id, details?, doc_url? }, request_id }` with the code's
 * status, the error's extra headers and X-Request-Id.
 * - `message` localised by Accept-Language (i18n/messages.ts localiseMessage): English keeps the
 *   route's specific message; in Chinese the code's message is shown and the route's specific
 *   English message, when it has one, goes to `details.message_en`.
 * - `doc_url` = `<public base URL>/docs/api/errors.md#<code in lower case>`, the code's entry in
 *   the errors page this instance serves (api-docs.routes.ts); left out when `config` is not given
 *   (bare test harnesses).
 */
export function errorResponse(c: Context<AppEnv>, err: ApiError, config?: DocUrlConfig): Response {
  const request_id = c.get('request_id') ?? newId('request');
  const locale = pickLocale(c.req.header('accept-language'));
  const message = localiseMessage(err.code, err.message, locale);
  const detail = locale === 'en' ? null : specificDetail(err.code, err.message);
  const details = detail && err.details?.message_en === undefined ? { ...err.details, message_en: detail } : err.details;
  const error = {
    code: err.code, message, request_id,
    ...(details ? { details } : {}),
    ...(config ? { doc_url: errorDocUrl(config, err.code) } : {}),
  };
  for (const [name, value] of Object.entries(err.headers ?? {})) c.header(name, value);
  c.header('X-Request-Id', request_id);
  return c.json({ error, request_id }, err.status as ContentfulStatusCode);
}

/** Retry-After (seconds) of a 503 while the database is away: about one reconnect cycle and a restart. */
export const DB_RETRY_AFTER_S = 5;

let fallbackLog: ReturnType<typeof createLogger> | undefined;

/** The ApiError a thrown value is answered with, and how loudly it is logged. */
function toApiError(err: Error, content_type: string | undefined): { api: ApiError; level: 'info' | 'warn' | 'error'; fields?: Record<string, unknown> } {
  if (err instanceof ApiError) {
    // Refusals (4xx) and expected unavailability (503: NODE_OFFLINE, UNAVAILABLE) are answers,
    // not faults; only a deliberate 500-class error is one.
    return { api: err, level: err.status < 500 ? 'info' : err.status === 503 ? 'warn' : 'error' };
  }
  if (err instanceof HTTPException) return { api: fromHttpException(err, content_type), level: err.status >= 500 ? 'error' : 'info' };
  const db = classifyDbError(err);
  if (db?.kind === 'unavailable') {
    return {
      api: new ApiError('UNAVAILABLE', 'database unavailable; retry shortly', undefined, { 'Retry-After': String(DB_RETRY_AFTER_S) }),
      level: 'warn', fields: { db_code: db.code, db_message: err.message },
    };
  }
  if (db?.kind === 'bad_input') {
    // Input validation should have refused this value before the query: warn so it gets fixed.
    return { api: new ApiError('VALIDATION_FAILED', 'a value in the request is not valid'), level: 'warn', fields: { db_code: db.code, db_message: err.message } };
  }
  return { api: new ApiError('INTERNAL_ERROR', 'internal server error'), level: 'error' };
}

/**
 * The app's one error handler: ApiError as is; HTTPException mapped by status (400 from hono's
 * JSON validator = REQUEST_BODY_INVALID, 415 = REQUEST_BODY_INVALID naming the Content-Type to
 * send, 413 = PAYLOAD_TOO_LARGE); a database that is away
 * (connection refused or reset, shutting down: docs/architecture/control-plane.md) 503
 * UNAVAILABLE with Retry-After; a value the database refused 400 VALIDATION_FAILED; anything
 * else 500 INTERNAL_ERROR without internals.
 *
 * Logging: refusals (4xx) at info and expected 503s at warn, one line with the code and no stack;
 * only unexpected exceptions and 500-class errors at error level with the stack.
 *
 * `config` gives every envelope its `doc_url` (errorResponse); createApp passes the app's.
 * @example app.onError(errorHandler(deps.config))
 */
export function errorHandler(config?: DocUrlConfig): (err: Error, c: Context<AppEnv>) => Response {
  return (err, c) => {
    const { api, level, fields } = toApiError(err, c.req.header('content-type'));
    const log = c.get('log') ?? (fallbackLog ??= createLogger('info').child({ module: 'http' }));
    if (level === 'error') log.error({ err, code: api.code }, err instanceof ApiError ? 'server error' : 'unhandled error');
    else log[level]({ code: api.code, status: api.status, reason: api.message, ...fields }, 'request refused');
    return errorResponse(c, api, config);
  };
}

/** {@link errorHandler} without a configuration: envelopes without `doc_url` (for harnesses that build no config). */
export const onError = errorHandler();

/**
 * notFound handler for the app: 405 METHOD_NOT_ALLOWED with an `Allow` header when the path
 * exists under other methods, else 404 NOT_FOUND (docs/api/conventions.md); `config` gives the
 * envelope its `doc_url` as in {@link errorResponse}.
 */
export function notFoundHandler(app: Hono<AppEnv>, config?: DocUrlConfig): (c: Context<AppEnv>) => Response {
  const table = routeTable(app);
  return (c) => {
    const methods = [...new Set(table().filter((r) => r.re.test(c.req.path)).map((r) => r.method))];
    if (methods.length > 0) {
      if (methods.includes('GET')) methods.push('HEAD');
      return errorResponse(c, new ApiError('METHOD_NOT_ALLOWED', `${c.req.method} not allowed; use ${methods.join(', ')}`, undefined, { Allow: methods.join(', ') }), config);
    }
    return errorResponse(c, new ApiError('NOT_FOUND', `no route for ${c.req.method} ${c.req.path}`.slice(0, 300)), config);
  };
}
