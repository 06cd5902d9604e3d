import { createRoute, z } from '@hono/zod-openapi';
import { loginRequestSchema, newId, refreshRequestSchema, registerRequestSchema, tokenResponseSchema } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { hashPassword } from './passwords.js';
import { verifyLoginPassword } from './password-login.js';
import { assertStrongPassword, STRENGTH_UNAVAILABLE } from './password-strength.js';
import { openSession, refreshSession } from './session-tokens.js';
import { sendVerificationEmail } from './email-verification.js';
import { checkLoginSecondFactor } from './recovery-codes.js';
import { findUserForLogin } from './username.js';
import { refuseInactiveAccount } from './account-status.js';
import { precheckRegistration, registerAccount } from './registration.js';
import { revokeSession } from './sessions.db.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { CLEARED_REFRESH_COOKIE, cookieMode, sessionModeHeaders, tokensToCookie } from './session-cookie.js';
import { requireAuth } from '../middleware/auth.js';
import { createRouter } from '../http/router.js';

const register = createRoute({
  method: 'post', path: '/register', tags: ['auth'], summary: 'Create an account (as VANTAGE_REGISTRATION allows); `X-Vantage-Session: cookie` puts the refresh token in a cookie',
  request: { body: jsonBody(registerRequestSchema), headers: sessionModeHeaders() },
  responses: {
    201: jsonOk(tokenResponseSchema, 'account created; token response; `meta.verification_email`: queued (SMTP), logged (no SMTP configured) or failed; `meta.is_admin`: true for the first account of the deployment'),
    400: jsonError('validation failed; AUTH_PASSWORD_WEAK (`details {score, min_score, warning, suggestions}`)'),
    403: jsonError('FORBIDDEN: registration closed, or an invite token required / unknown, used, expired or for another address (`details.setting` VANTAGE_REGISTRATION, `details.reason`)'),
    409: jsonError('ACCOUNT_EMAIL_TAKEN'),
    503: jsonError(STRENGTH_UNAVAILABLE),
  },
});
const login = createRoute({
  method: 'post', path: '/login', tags: ['auth'], summary: 'Log in with email (or username), password and optional TOTP; `X-Vantage-Session: cookie` puts the refresh token in a cookie',
  request: { body: jsonBody(loginRequestSchema), headers: sessionModeHeaders() },
  responses: { 200: jsonOk(tokenResponseSchema, 'token response'), 401: jsonError('AUTH_CREDENTIALS_INVALID, AUTH_2FA_REQUIRED, AUTH_2FA_INVALID (wrong TOTP or recovery code)'), 403: jsonError('AUTH_ACCOUNT_DISABLED'), 410: jsonError('ACCOUNT_DELETED: scheduled for deletion (`details.purge_at`); restore with POST /v1/auth/account/restore') },
});
const refresh = createRoute({
  method: 'post', path: '/refresh', tags: ['auth'], summary: 'Exchange a refresh token (rotating) for new tokens',
  request: { body: jsonBody(refreshRequestSchema) },
  responses: { 200: jsonOk(tokenResponseSchema, 'new token response'), 401: jsonError('AUTH_SESSION_INVALID') },
});
const logout = createRoute({
  method: 'post', path: '/logout', tags: ['auth'], summary: 'Revoke the current session', security: BEARER,
  middleware: [requireAuth()], request: { headers: sessionModeHeaders() },
  responses: { 200: jsonOk(z.null(), 'session revoked; in cookie mode the vantage_refresh cookie is cleared'), ...AUTH_ERRORS },
});

/**
 * `/v1/auth`: register (as VANTAGE_REGISTRATION allows: accounts/registration.ts), login (TOTP when 2FA is on), refresh, logout (docs/api/accounts.md, docs/api/conventions.md).
 * Register answers 201 with the token response; a wrong email and a wrong password give the same
 * AUTH_CREDENTIALS_INVALID after the same argon2id work (accounts/password-login.ts). With
 * `X-Vantage-Session: cookie` register and login put the refresh token in the HttpOnly cookie and
 * logout clears it (accounts/session-cookie.ts; docs/api/accounts.md "Cookie sessions").
 */
export function authRouter(deps: AppDeps) {
  const r = createRouter();
  const log = deps.log.child({ module: 'auth' });

  r.openapi(register, async (c) => {
    const body = c.req.valid('json');
    const cookie = cookieMode(c);
    // A refusal known before the hashing work costs none of it.
    await precheckRegistration(deps, body.invite_token);
    await assertStrongPassword(deps.config, body.password, { email: body.email });
    const user = await registerAccount(deps, { id: newId('user'), email: body.email, password_hash: await hashPassword(body.password), ...(body.invite_token ? { invite_token: body.invite_token } : {}) });
    // The verification e-mail is queued (or logged without SMTP); a failure costs only the e-mail: the user can ask again.
    const verification = await sendVerificationEmail(deps, user.id).catch((err: unknown) => {
      log.error({ err, user_id: user.id }, 'verification e-mail could not be queued');
      return null;
    });
    const verification_email = verification && 'sent' in verification ? verification.sent : 'failed';
    log.info({ user_id: user.id, verification_email, is_admin: user.is_admin }, user.is_admin ? 'first account registered: it is the administrator' : 'account registered');
    const tokens = await openSession(deps, user.id);
    return c.json({ data: cookie ? tokensToCookie(c, deps, tokens) : tokens, request_id: c.get('request_id'), meta: { verification_email, is_admin: user.is_admin } }, 201);
  });

  r.openapi(login, async (c) => {
    const body = c.req.valid('json');
    const cookie = cookieMode(c);
    // `email` may also be a username (docs/api/accounts.md "Username").
    const user = await findUserForLogin(deps.sql, body.email);
    const valid = await verifyLoginPassword(deps, user, body.password);
    if (!user || !valid) throw new ApiError('AUTH_CREDENTIALS_INVALID', 'wrong email or password');
    refuseInactiveAccount(user);
    // With TOTP on: the TOTP code or a recovery code (accounts/recovery-codes.ts).
    await checkLoginSecondFactor(deps, user, body);
    const tokens = await openSession(deps, user.id);
    return ok(c, cookie ? tokensToCookie(c, deps, tokens) : tokens, 200);
  });

  r.openapi(refresh, async (c) => ok(c, await refreshSession(deps, c.req.valid('json').refresh_token), 200));

  r.openapi(logout, async (c) => {
    const principal = c.get('principal')!;
    if (principal.kind !== 'session') throw new ApiError('FORBIDDEN', 'logout ends a session; revoke API keys and tokens with DELETE instead');
    const cookie = cookieMode(c);
    await revokeSession(deps.sql, principal.credential_id);
    if (cookie) c.header('Set-Cookie', CLEARED_REFRESH_COOKIE);
    return ok(c, null, 200);
  });

  return r;
}
