import { createRoute } from '@hono/zod-openapi';
import { phoneBindRequestSchema, phoneBindStartedSchema, phoneVerifyRequestSchema, profileSchema } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { requireAuth } from '../middleware/auth.js';
import { toProfile } from './account.routes.js';
import { findUserById } from './accounts.db.js';
import { unbindPhone } from './phone.db.js';
import { startPhoneBinding, verifyPhoneBinding } from './phone.js';

const write = [requireAuth({ scope: 'write' })];

const start = createRoute({
  method: 'post', path: '/phone', operationId: 'startPhoneBinding', tags: ['account'], security: BEARER, middleware: write,
  summary: 'Send a verification code by SMS to bind a phone number (E.164)',
  request: { body: jsonBody(phoneBindRequestSchema) },
  responses: {
    200: jsonOk(phoneBindStartedSchema, 'code sent: {phone (masked), expires_at, resend_after_s}'),
    400: jsonError('VALIDATION_FAILED: not an E.164 number'), ...AUTH_ERRORS,
    409: jsonError('CONFLICT: another account has bound this number (`details.field` phone); no SMS sent'),
    429: jsonError('RATE_LIMIT_EXCEEDED: a code was sent less than phone_code_resend_s ago (Retry-After)'),
    503: jsonError('UNAVAILABLE: no SMS gateway configured (`details.setting`), or the gateway failed (`details.reason`)'),
  },
});
const verify = createRoute({
  method: 'post', path: '/phone/verify', operationId: 'verifyPhoneBinding', tags: ['account'], security: BEARER, middleware: write,
  summary: 'Bind the phone number with the code of its SMS',
  request: { body: jsonBody(phoneVerifyRequestSchema) },
  responses: {
    200: jsonOk(profileSchema, 'the profile with the phone bound (masked) and phone_verified true'),
    400: jsonError('VALIDATION_FAILED: not 6 digits'),
    401: jsonError('AUTH_OTP_INVALID (wrong code: `details.attempts_left`; or none asked for), AUTH_OTP_EXPIRED, or an auth failure'),
    403: AUTH_ERRORS[403],
    409: jsonError('CONFLICT: another account bound this number after the code was sent (`details.field` phone); the binding ends'),
    429: jsonError('AUTH_OTP_ATTEMPTS_EXCEEDED: ask for a new code'),
  },
});
const unbind = createRoute({
  method: 'delete', path: '/phone', operationId: 'unbindPhone', tags: ['account'], security: BEARER, middleware: write,
  summary: 'Unbind the phone number (and drop a binding under way)',
  responses: { 200: jsonOk(profileSchema, 'the profile without a phone'), ...AUTH_ERRORS },
});

/**
 * `/v1/account/phone`: bind a phone number by a code sent through the deployment's SMS gateway,
 * verify it, unbind it (docs/api/accounts.md "Phone"). The profile shows the number masked.
 */
export function phoneRouter(deps: AppDeps) {
  const r = createRouter();

  async function profileOf(user_id: string) {
    const user = await findUserById(deps.sql, user_id);
    if (!user) throw new ApiError('ACCOUNT_NOT_FOUND');
    return toProfile(user);
  }

  r.openapi(start, async (c) => ok(c, await startPhoneBinding(deps, c.get('principal')!.user_id, c.req.valid('json').phone), 200));

  r.openapi(verify, async (c) => {
    const user_id = c.get('principal')!.user_id;
    await verifyPhoneBinding(deps, user_id, c.req.valid('json').code);
    return ok(c, await profileOf(user_id), 200);
  });

  r.openapi(unbind, async (c) => {
    const user_id = c.get('principal')!.user_id;
    await unbindPhone(deps.sql, user_id);
    return ok(c, await profileOf(user_id), 200);
  });

  return r;
}
