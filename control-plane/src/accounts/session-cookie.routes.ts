import { createRoute, z } from '@hono/zod-openapi';
import { tokenResponseSchema } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { refreshSession } from './session-tokens.js';
import { CLEARED_REFRESH_COOKIE, cookieMode, refreshFromCookie, REFRESH_COOKIE, SESSION_MODE_HEADER, sessionModeHeaders, tokensToCookie } from './session-cookie.js';

const refreshFromCookieRoute = createRoute({
  method: 'post', path: '/session/refresh', tags: ['auth'],
  summary: `Rotate the browser session held in the ${REFRESH_COOKIE} cookie (${SESSION_MODE_HEADER}: cookie required)`,
  request: { headers: sessionModeHeaders(true) },
  responses: {
    200: jsonOk(tokenResponseSchema, `new token response with \`refresh_token\` empty: the new refresh token is in the ${REFRESH_COOKIE} cookie`),
    400: jsonError(`VALIDATION_FAILED: the ${SESSION_MODE_HEADER} header is missing`),
    401: jsonError('AUTH_SESSION_INVALID: no cookie, or an unknown, rotated-out, revoked or expired refresh token (the cookie is cleared)'),
    403: jsonError('FORBIDDEN: the request came from another origin'),
  },
});

/**
 * `POST /v1/auth/session/refresh`: the cookie form of POST /v1/auth/refresh for the web console
 * (docs/api/accounts.md "Cookie sessions"). The refresh token is read from the HttpOnly cookie,
 * rotated as POST /v1/auth/refresh rotates it, and written back to the cookie; the page gets only
 * the access token. A refused token clears the cookie.
 */
export function sessionCookieRouter(deps: AppDeps) {
  const r = createRouter();
  r.openapi(refreshFromCookieRoute, async (c) => {
    cookieMode(c);
    const token = refreshFromCookie(c.req.header('Cookie'));
    const clear = { 'Set-Cookie': CLEARED_REFRESH_COOKIE };
    if (!token) throw new ApiError('AUTH_SESSION_INVALID', `no ${REFRESH_COOKIE} cookie: log in first`, undefined, clear);
    const tokens = await refreshSession(deps, token).catch((err: unknown) => {
      throw err instanceof ApiError && err.code === 'AUTH_SESSION_INVALID' ? new ApiError(err.code, err.message, err.details, clear) : err;
    });
    return ok(c, tokensToCookie(c, deps, tokens), 200);
  });
  return r;
}
