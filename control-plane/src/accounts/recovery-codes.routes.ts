import { createRoute } from '@hono/zod-openapi';
import { recoveryCodesSchema, secondFactorProofSchema } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { requireAuth } from '../middleware/auth.js';
import { findUserById } from './accounts.db.js';
import { issueRecoveryCodes, proveSecondFactor } from './recovery-codes.js';

const regenerate = createRoute({
  method: 'post', path: '/recovery-codes', operationId: 'regenerateRecoveryCodes', tags: ['account'], security: BEARER, middleware: [requireAuth({ scope: 'write' })],
  summary: 'Replace the recovery codes with 10 new ones (shown once), confirmed by a TOTP code or an e-mail code',
  request: { body: jsonBody(secondFactorProofSchema) },
  responses: {
    200: jsonOk(recoveryCodesSchema, 'the new codes; the old ones stop working'), 400: jsonError('VALIDATION_FAILED: give exactly one of code, email_code'),
    ...AUTH_ERRORS, 401: jsonError('AUTH_2FA_INVALID (wrong TOTP code), AUTH_OTP_INVALID, AUTH_OTP_EXPIRED, or a bad credential'),
    409: jsonError('CONFLICT: TOTP is not enabled (recovery codes stand in for it)'), 429: jsonError('AUTH_OTP_ATTEMPTS_EXCEEDED, RATE_LIMIT_EXCEEDED'),
  },
});

/** `/v1/account/recovery-codes` (docs/api/accounts.md "Two-factor policy and recovery codes"): new recovery codes. */
export function recoveryCodesRouter(deps: AppDeps) {
  const r = createRouter();
  r.openapi(regenerate, async (c) => {
    const user = await findUserById(deps.sql, c.get('principal')!.user_id);
    if (!user) throw new ApiError('ACCOUNT_NOT_FOUND');
    if (!user.totp_secret) throw new ApiError('CONFLICT', 'two-factor authentication (TOTP) is not enabled: recovery codes come with it');
    await proveSecondFactor(deps, user, c.req.valid('json'));
    return ok(c, { recovery_codes: await issueRecoveryCodes(deps, user.id) }, 200);
  });
  return r;
}
