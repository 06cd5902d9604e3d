import type { Context, Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { newId } from '@vantage/shared-protocol';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { localiseMessage, pickLocale } from '../i18n/messages.js';

/** Turn an HTTPException from hono or its middleware into our error. */
function fromHttpException(err: HTTPException): ApiError {
  if (err.status === 413) return new ApiError('PAYLOAD_TOO_LARGE');
  if (err.status === 400) return new ApiError('REQUEST_BODY_INVALID', err.message || 'malformed request body');
  if (err.status === 401) return new ApiError('AUTH_REQUIRED');
  if (err.status === 404) return new ApiError('NOT_FOUND');
  if (err.status === 405) return new ApiError('METHOD_NOT_ALLOWED');
  if (err.status === 408) return new ApiError('REQUEST_TIMEOUT');
  return new ApiError(err.status >= 500 ? 'INTERNAL_ERROR' : 'VALIDATION_FAILED', err.status >= 500 ? undefined : err.message);
}

/**
 * Write the error envelope of spec part 7:
 * `{ error: { code, message, request_id, details? }, request_id }` with the code's status, the
 * error's extra headers and X-Request-Id; `message` localised by Accept-Language.
 */
export function errorResponse(c: Context<AppEnv>, err: ApiError): Response {
  const request_id = c.get('request_id') ?? newId('request');
  const message = localiseMessage(err.code, err.message, pickLocale(c.req.header('accept-language')));
  const body = { error: { code: err.code, message, request_id, ...(err.details ? { details: err.details } : {}) }, request_id };
  for (const [name, value] of Object.entries(err.headers ?? {})) c.header(name, value);
  c.header('X-Request-Id', request_id);
  return c.json(body, err.status as ContentfulStatusCode);
}

/**
 * The app's one error handler: ApiError as is; HTTPException mapped by status (400 from hono's
 * JSON validator = REQUEST_BODY_INVALID, 413 = PAYLOAD_TOO_LARGE); anything else is logged and
 * answered 500 INTERNAL_ERROR without internals.
 */
export function onError(err: Error, c: Context<AppEnv>): Response {
  let api: ApiError;
  if (err instanceof ApiError) api = err;
  else if (err instanceof HTTPException) api = fromHttpException(err);
  else {
    (c.get('log') ?? console).error({ err }, 'unhandled error');
    api = new ApiError('INTERNAL_ERROR', 'internal server error');
  }
  if (api.status >= 500 && err instanceof ApiError) c.get('log')?.error({ err }, 'server error');
  return errorResponse(c, api);
}

/** Compile a hono route path (`/v1/x/:id`, `{id}`, `*`) to a RegExp. */
function pathPattern(path: string): RegExp {
  const src = path.split('/').map((seg) => {
    if (seg === '*') return '.*';
    if (seg.startsWith(':') || /^\{.+\}$/.test(seg)) return '[^/]+';
    return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }).join('/');
  return new RegExp(`^${src}/?$`);
}

/**
 * notFound handler for the app: 405 METHOD_NOT_ALLOWED with an `Allow` header when the path
 * exists under other methods, else 404 NOT_FOUND (spec part 7).
 */
export function notFoundHandler(app: Hono<AppEnv>): (c: Context<AppEnv>) => Response {
  let table: Array<{ method: string; re: RegExp }> | undefined;
  return (c) => {
    table ??= app.routes.filter((r) => r.method !== 'ALL' && !r.path.endsWith('*')).map((r) => ({ method: r.method, re: pathPattern(r.path) }));
    const methods = [...new Set(table.filter((r) => r.re.test(c.req.path)).map((r) => r.method))];
    if (methods.length > 0) {
      if (methods.includes('GET')) methods.push('HEAD');
      return errorResponse(c, new ApiError('METHOD_NOT_ALLOWED', `${c.req.method} not allowed; use ${methods.join(', ')}`, undefined, { Allow: methods.join(', ') }));
    }
    return errorResponse(c, new ApiError('NOT_FOUND', `no route for ${c.req.method} ${c.req.path}`.slice(0, 300)));
  };
}
