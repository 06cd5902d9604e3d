import { createRoute } from '@hono/zod-openapi';
import { changePasswordRequestSchema, passwordChangedSchema } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { requireAuth } from '../middleware/auth.js';
import { findUserById } from './accounts.db.js';
import { setNewPassword } from './password-set.js';
import { STRENGTH_UNAVAILABLE } from './password-strength.js';
import { sessionAgeS } from './password-store.db.js';
import { verifyPassword } from './passwords.js';

const change = createRoute({
  method: 'post', path: '/password', tags: ['account'], security: BEARER, middleware: [requireAuth({ scope: 'write' })],
  summary: 'Change the password (session only); ends the account\'s other sessions and e-mails a notice',
  request: { body: jsonBody(changePasswordRequestSchema) },
  responses: {
    200: jsonOk(passwordChangedSchema, 'changed; `sessions_ended`: other sessions signed out'),
    400: jsonError('VALIDATION_FAILED (current_password missing), AUTH_PASSWORD_WEAK (`details {score, min_score, warning, suggestions}`), AUTH_PASSWORD_REUSED'),
    401: jsonError('AUTH_CREDENTIALS_INVALID: wrong current_password; or a missing, invalid, revoked or expired credential'),
    403: jsonError('FORBIDDEN: not a session (API keys and tokens cannot change a password), or (account without a password) a session older than VANTAGE_PASSWORD_SET_SESSION_MAX_AGE_S'),
    404: jsonError('ACCOUNT_NOT_FOUND'),
    429: AUTH_ERRORS[429],
    503: jsonError(STRENGTH_UNAVAILABLE),
  },
});

/**
 * `POST /v1/account/password` (docs/api/accounts.md "Passwords"): a signed-in user changes its
 * password with the current one. An account without a password (single sign-on) sets one without
 * `current_password`, only from a session opened at most `password_set_session_max_age_s` ago.
 * The new password meets the strength and reuse rules (password-set.ts); the calling session
 * stays, the others end; a notice e-mail is sent.
 */
export function passwordChangeRouter(deps: AppDeps) {
  const r = createRouter();

  r.openapi(change, async (c) => {
    const principal = c.get('principal')!;
    if (principal.kind !== 'session') throw new ApiError('FORBIDDEN', 'a password is changed from a signed-in session, not with an API key or token');
    const body = c.req.valid('json');
    const user = await findUserById(deps.sql, principal.user_id);
    if (!user) throw new ApiError('ACCOUNT_NOT_FOUND', 'account not found');
    if (user.password_hash !== '') {
      if (body.current_password === undefined) {
        throw new ApiError('VALIDATION_FAILED', 'current_password is required to change a password', { fields: [{ path: 'current_password', message: 'required' }] });
      }
      if (!(await verifyPassword(body.current_password, user.password_hash))) throw new ApiError('AUTH_CREDENTIALS_INVALID', 'current_password is wrong');
    } else {
      const max_age_s = deps.config.password_set_session_max_age_s;
      const age_s = await sessionAgeS(deps.sql, principal.credential_id, user.id);
      if (age_s === null || age_s > max_age_s) {
        throw new ApiError('FORBIDDEN', `this account has no password yet: set one within ${max_age_s} s of signing in (sign in again), or through a reset link (POST /v1/auth/password/forgot)`, {
          reason: 'session_too_old', setting: 'VANTAGE_PASSWORD_SET_SESSION_MAX_AGE_S', max_age_s,
        });
      }
    }
    const { sessions_ended } = await setNewPassword(deps, user, body.new_password, { keep_session_id: principal.credential_id });
    return ok(c, { message: 'password changed', sessions_ended }, 200);
  });

  return r;
}
