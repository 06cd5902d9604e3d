import { createRoute } from '@hono/zod-openapi';
import { EMAIL_OTP, emailOtpLoginRequestSchema, emailOtpSendRequestSchema, emailOtpSentSchema, tokenResponseSchema } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { clientIp } from '../http/client-ip.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { requireAuth } from '../middleware/auth.js';
import { findUserByEmail } from './accounts.db.js';
import { refuseInactiveAccount } from './account-status.js';
import { sendActionCode, sendLoginCode, useEmailCode } from './email-otp.js';
import { checkLoginSecondFactor } from './recovery-codes.js';
import { openSession } from './session-tokens.js';

const OTP_ERRORS = '401 AUTH_OTP_INVALID (wrong, used or superseded code, or no account), AUTH_OTP_EXPIRED; 429 AUTH_OTP_ATTEMPTS_EXCEEDED (5 wrong codes: ask for a new one)';

const sendLogin = createRoute({
  method: 'post', path: '/auth/otp/send', operationId: 'sendLoginCode', tags: ['auth'], summary: 'E-mail a 6-digit sign-in code (the same answer whether or not an account has the address)',
  request: { body: jsonBody(emailOtpSendRequestSchema) },
  responses: {
    200: jsonOk(emailOtpSentSchema, 'the same answer for every address'), 400: jsonError('VALIDATION_FAILED'),
    429: jsonError('RATE_LIMIT_EXCEEDED: 5 codes per address or 20 per source address per hour'),
  },
});
const login = createRoute({
  method: 'post', path: '/auth/otp/login', operationId: 'loginWithEmailCode', tags: ['auth'], summary: 'Log in with an e-mailed code (plus TOTP or a recovery code when 2FA is on)',
  request: { body: jsonBody(emailOtpLoginRequestSchema) },
  responses: {
    200: jsonOk(tokenResponseSchema, 'token response'), 400: jsonError('VALIDATION_FAILED'),
    401: jsonError(`${OTP_ERRORS}; AUTH_2FA_REQUIRED, AUTH_2FA_INVALID`), 403: jsonError('AUTH_ACCOUNT_DISABLED'), 410: jsonError('ACCOUNT_DELETED'),
    429: jsonError('AUTH_OTP_ATTEMPTS_EXCEEDED'),
  },
});
const sendAction = createRoute({
  method: 'post', path: '/account/otp/send', operationId: 'sendActionCode', tags: ['account'], security: BEARER, middleware: [requireAuth({ scope: 'write' })],
  summary: 'E-mail a 6-digit code to the account address, to confirm a sensitive action (turn TOTP off, new recovery codes)',
  responses: {
    200: jsonOk(emailOtpSentSchema, 'sent'), ...AUTH_ERRORS, 409: jsonError('CONFLICT: the account has no e-mail address'),
    429: jsonError('RATE_LIMIT_EXCEEDED: 5 codes per account per hour'),
  },
});

/**
 * E-mail one-time codes (docs/api/accounts.md "E-mail codes"), mounted at `/v1`: a sign-in code
 * (`POST /auth/otp/send`, then `POST /auth/otp/login`) and a code confirming a sensitive action
 * of the signed-in account (`POST /account/otp/send`, used as `email_code`).
 */
export function emailOtpRouter(deps: AppDeps) {
  const r = createRouter();

  r.openapi(sendLogin, async (c) => {
    await sendLoginCode(deps, c.req.valid('json').email, clientIp(c, deps.config.trust_proxy));
    return ok(c, { message: 'if an account has this address, a sign-in code is on its way', expires_in_s: EMAIL_OTP.ttl_s }, 200);
  });

  r.openapi(login, async (c) => {
    const body = c.req.valid('json');
    const user = await findUserByEmail(deps.sql, body.email);
    await useEmailCode(deps, user?.id ?? null, 'login', body.code);
    refuseInactiveAccount(user!);
    await checkLoginSecondFactor(deps, user!, body);
    return ok(c, await openSession(deps, user!.id), 200);
  });

  r.openapi(sendAction, async (c) => {
    const { email } = await sendActionCode(deps, c.get('principal')!.user_id);
    return ok(c, { message: `a confirmation code is on its way to ${email}`, expires_in_s: EMAIL_OTP.ttl_s }, 200);
  });

  return r;
}
