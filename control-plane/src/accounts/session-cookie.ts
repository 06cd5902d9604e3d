import type { Context } from 'hono';
import { z } from '@hono/zod-openapi';
import type { TokenResponse } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';

/** Name of the cookie holding a browser session's refresh token (docs/api/accounts.md "Cookie sessions"). */
export const REFRESH_COOKIE = 'vantage_refresh';
/** The request header that selects cookie mode; its value must be `cookie`. */
export const SESSION_MODE_HEADER = 'X-Vantage-Session';
/** The only path (and below) the browser sends the cookie to. */
const COOKIE_PATH = '/v1/auth';
const ATTRIBUTES = `Path=${COOKIE_PATH}; HttpOnly; Secure; SameSite=Strict`;
/** A Set-Cookie value that removes the refresh cookie (logout, refused refresh). */
export const CLEARED_REFRESH_COOKIE = `${REFRESH_COOKIE}=; Max-Age=0; ${ATTRIBUTES}`;

/**
 * The request-header schema of routes with a cookie mode (OpenAPI `in: header`):
 * `x-vantage-session: cookie`, optional unless `required`.
 */
export function sessionModeHeaders(required = false) {
  const mode = z.literal('cookie').openapi({ description: 'cookie mode: the refresh token travels in the HttpOnly vantage_refresh cookie, never in the body' });
  return z.object({ 'x-vantage-session': required ? mode : mode.optional() });
}

/** The host (`name:port`) of an Origin header, or null for `null` and anything that is no URL. */
function originHost(origin: string): string | null {
  try { return new URL(origin).host || null; } catch { return null; }
}

/**
 * Whether the request asks for cookie mode (`X-Vantage-Session: cookie`; the header schema has
 * already refused other values). In cookie mode a request whose `Origin` is present and names
 * another host than its own is refused (403 FORBIDDEN). With SameSite=Strict and the custom
 * header (which a cross-site form cannot send, and a cross-site fetch sends only after a CORS
 * preflight this API never grants) this keeps the cookie routes CSRF-safe (OWASP CSRF Prevention
 * Cheat Sheet: "Custom Request Headers", "Verifying Origin").
 */
export function cookieMode(c: Context): boolean {
  if (c.req.header(SESSION_MODE_HEADER) !== 'cookie') return false;
  const origin = c.req.header('Origin');
  if (origin !== undefined && originHost(origin) !== c.req.header('Host')) {
    throw new ApiError('FORBIDDEN', 'cookie sessions are used only from the same origin', { origin: origin.slice(0, 200) });
  }
  return true;
}

/** The refresh token in a Cookie request header, or null. */
export function refreshFromCookie(cookieHeader: string | undefined): string | null {
  for (const part of (cookieHeader ?? '').split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === REFRESH_COOKIE) return rest.join('=') || null;
  }
  return null;
}

/**
 * Put the refresh token of `tokens` in the HttpOnly, Secure, SameSite=Strict cookie (Path
 * /v1/auth, Max-Age `config.session_ttl_s` seconds) and return the token response with
 * `refresh_token` empty: in cookie mode page scripts never see it (RFC 6265bis §4.1.2).
 */
export function tokensToCookie(c: Context, deps: Pick<AppDeps, 'config'>, tokens: TokenResponse): TokenResponse {
  c.header('Set-Cookie', `${REFRESH_COOKIE}=${tokens.refresh_token}; Max-Age=${deps.config.session_ttl_s}; ${ATTRIBUTES}`, { append: true });
  return { ...tokens, refresh_token: '' };
}
