import { createRoute } from '@hono/zod-openapi';
import { accountDeleteRequestSchema, accountDeletionSchema, accountRestoredSchema, accountRestoreRequestSchema } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { requireAuth } from '../middleware/auth.js';
import { accountOf, confirmDeletion, requestDeletion, restore } from './account-deletion.js';
import { verifyLoginPassword } from './password-login.js';
import { checkLoginSecondFactor } from './recovery-codes.js';
import { findUserForLogin } from './username.js';

const remove = createRoute({
  method: 'delete', path: '/', operationId: 'deleteAccount', tags: ['account'], security: BEARER, middleware: [requireAuth({ scope: 'write' })],
  summary: 'Delete the account after a grace period (restorable until then); ends every session and key at once',
  request: { body: jsonBody(accountDeleteRequestSchema) },
  responses: {
    200: jsonOk(accountDeletionSchema, '{status: deleting, deletion_scheduled_at, restore_email}'),
    400: jsonError('VALIDATION_FAILED: password (or email_code for an account without password) missing'),
    401: jsonError('AUTH_CREDENTIALS_INVALID (wrong password), AUTH_OTP_INVALID / AUTH_OTP_EXPIRED (e-mail code), or an auth failure'),
    403: jsonError('FORBIDDEN: not a session (keys and tokens cannot delete an account), or `details.reason` login_too_old'),
    409: jsonError('CONFLICT: the only owner of teams (`details.teams[{id, name, other_members}]`)'),
    429: jsonError('AUTH_OTP_ATTEMPTS_EXCEEDED, or rate limit exceeded'),
  },
});

const restoreRoute = createRoute({
  method: 'post', path: '/account/restore', operationId: 'restoreAccount', tags: ['auth'],
  summary: 'Restore an account scheduled for deletion, with the e-mailed art_ token or its e-mail (or username) and password',
  request: { body: jsonBody(accountRestoreRequestSchema) },
  responses: {
    200: jsonOk(accountRestoredSchema, 'active again; earlier sessions and keys stay revoked: log in'),
    400: jsonError('VALIDATION_FAILED: neither a token nor e-mail and password'),
    401: jsonError('AUTH_INVALID_TOKEN (unknown, used or expired token), AUTH_CREDENTIALS_INVALID, AUTH_2FA_REQUIRED, AUTH_2FA_INVALID (`otp`: TOTP or recovery code)'),
    409: jsonError('CONFLICT: the account is not scheduled for deletion'),
  },
});

/** `DELETE /v1/account`: schedule the caller's account for deletion (docs/api/accounts.md "Account lifecycle"). */
export function accountDeletionRouter(deps: AppDeps) {
  const r = createRouter();
  r.openapi(remove, async (c) => {
    const principal = c.get('principal')!;
    const user = await accountOf(deps, principal.user_id);
    await confirmDeletion(deps, principal, user, c.req.valid('json'));
    const { purge_at, restore_email } = await requestDeletion(deps, user);
    return ok(c, { status: 'deleting' as const, deletion_scheduled_at: purge_at.toISOString(), restore_email }, 200);
  });
  return r;
}

/**
 * `POST /v1/auth/account/restore` (docs/api/accounts.md "Account lifecycle"): by token, or by
 * e-mail (or username) and password with the same checks and the same answer for an unknown
 * account as login (and the TOTP code when 2FA is on).
 */
export function accountRestoreRouter(deps: AppDeps) {
  const r = createRouter();
  r.openapi(restoreRoute, async (c) => {
    const body = c.req.valid('json');
    if (body.token !== undefined) return ok(c, { user_id: await restore(deps, { token: body.token }), status: 'active' as const }, 200);
    const user = await findUserForLogin(deps.sql, body.email!);
    // The same password check and second factor as login (accounts/password-login.ts, recovery-codes.ts).
    const valid = await verifyLoginPassword(deps, user, body.password!);
    if (!user || !valid) throw new ApiError('AUTH_CREDENTIALS_INVALID', 'wrong email or password');
    await checkLoginSecondFactor(deps, user, { otp: body.otp });
    return ok(c, { user_id: await restore(deps, { user_id: user.id }), status: 'active' as const }, 200);
  });
  return r;
}
