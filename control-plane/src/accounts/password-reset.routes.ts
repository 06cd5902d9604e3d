import { createRoute } from '@hono/zod-openapi';
import { forgotPasswordRequestSchema, passwordResetRequestedSchema, resetPasswordRequestSchema, tokenResponseSchema } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { findUserById } from './accounts.db.js';
import { refuseResetToken, requestPasswordReset } from './password-reset.js';
import { findResetToken } from './password-reset.db.js';
import { setNewPassword } from './password-set.js';
import { STRENGTH_UNAVAILABLE } from './password-strength.js';
import { hashSecret } from './secrets.js';
import { openSession } from './session-tokens.js';
import { checkTotp } from './totp.js';

const FORGOT_ANSWER = 'if an account has this address, a password reset link is on its way to it';

const forgot = createRoute({
  method: 'post', path: '/password/forgot', tags: ['auth'],
  summary: 'E-mail a single-use password reset link (the same answer whether or not an account has the address)',
  request: { body: jsonBody(forgotPasswordRequestSchema) },
  responses: {
    200: jsonOk(passwordResetRequestedSchema, 'accepted; a link goes out only to an active account with this address, at most one a minute'),
    400: jsonError('VALIDATION_FAILED'),
    429: jsonError('RATE_LIMIT_EXCEEDED (per source IP, as every anonymous route)'),
  },
});
const reset = createRoute({
  method: 'post', path: '/password/reset', tags: ['auth'],
  summary: 'Set a new password with the token of a reset link; signs out every session and opens a new one',
  request: { body: jsonBody(resetPasswordRequestSchema) },
  responses: {
    200: jsonOk(tokenResponseSchema, 'password set, address verified; token response of a new session'),
    400: jsonError('VALIDATION_FAILED `details.reason` token_unknown, token_used or token_expired; AUTH_PASSWORD_WEAK; AUTH_PASSWORD_REUSED'),
    401: jsonError('AUTH_2FA_REQUIRED, AUTH_2FA_INVALID (account with two-factor authentication: `otp`)'),
    403: jsonError('AUTH_ACCOUNT_DISABLED'),
    429: jsonError('RATE_LIMIT_EXCEEDED'),
    503: jsonError(STRENGTH_UNAVAILABLE),
  },
});

/**
 * `/v1/auth/password` (docs/api/accounts.md "Passwords"): `forgot` e-mails a reset link
 * (password-reset.ts), `reset` uses its token: checks it, the second factor when on, then sets the
 * password (password-set.ts: strength, reuse, address verified, every session ended) and opens
 * a new session.
 */
export function passwordResetRouter(deps: AppDeps) {
  const r = createRouter();
  const log = deps.log.child({ module: 'password-reset' });

  r.openapi(forgot, async (c) => {
    const { email } = c.req.valid('json');
    // The work happens after the answer, so its time says nothing about whether the address has an account.
    void requestPasswordReset(deps, email).catch((err: unknown) => log.error({ err }, 'password reset e-mail could not be queued'));
    return ok(c, { message: FORGOT_ANSWER }, 200);
  });

  r.openapi(reset, async (c) => {
    const body = c.req.valid('json');
    const token_hash = hashSecret(body.token);
    const token = await findResetToken(deps.sql, token_hash);
    if (!token) throw refuseResetToken('token_unknown');
    if (token.used) throw refuseResetToken('token_used');
    if (token.expired) throw refuseResetToken('token_expired');
    const user = await findUserById(deps.sql, token.user_id);
    if (!user) throw refuseResetToken('token_unknown');
    if (user.status !== 'active') throw new ApiError('AUTH_ACCOUNT_DISABLED', 'account disabled');
    if (user.totp_secret) {
      if (body.otp === undefined || body.otp === '') throw new ApiError('AUTH_2FA_REQUIRED', 'this account has two-factor authentication: send the code in "otp"');
      if (!checkTotp(user.totp_secret, body.otp)) throw new ApiError('AUTH_2FA_INVALID', 'wrong two-factor code');
    }
    await setNewPassword(deps, user, body.new_password, { keep_session_id: null, reset_token_hash: token_hash });
    log.info({ user_id: user.id }, 'password reset through an e-mailed link');
    return ok(c, await openSession(deps, user.id), 200);
  });

  return r;
}
