import { createRoute } from '@hono/zod-openapi';
import { emailVerifiedSchema, verificationSentSchema, verifyEmailQuerySchema, verifyEmailRequestSchema } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { requireAuth } from '../middleware/auth.js';
import { markEmailVerified } from './email-verification.db.js';
import { checkVerificationToken, sendVerificationEmail } from './email-verification.js';
import { jwtKey } from './jwt.js';

const TOKEN_ERRORS = {
  400: jsonError('VALIDATION_FAILED: no token'),
  401: jsonError('TOKEN_EXPIRED (ask for a new e-mail), AUTH_INVALID_TOKEN (bad signature, wrong address, not a verification token)'),
};
const verifyLink = createRoute({
  method: 'get', path: '/verify-email', tags: ['auth'],
  summary: 'Verify the account\'s e-mail address: the link in the verification e-mail',
  request: { query: verifyEmailQuerySchema },
  responses: { 200: jsonOk(emailVerifiedSchema, 'verified (again: an already verified address answers the same)'), ...TOKEN_ERRORS },
});
const verifyPost = createRoute({
  method: 'post', path: '/verify-email', tags: ['auth'],
  summary: 'Verify the account\'s e-mail address with the token of the verification e-mail',
  request: { body: jsonBody(verifyEmailRequestSchema) },
  responses: { 200: jsonOk(emailVerifiedSchema, 'verified'), ...TOKEN_ERRORS },
});
const resend = createRoute({
  method: 'post', path: '/verify-email/resend', tags: ['auth'], security: BEARER, middleware: [requireAuth({ scope: 'write' })],
  summary: 'Send the verification e-mail again (at most once a minute)',
  responses: {
    200: jsonOk(verificationSentSchema, '`email_delivery`: queued for SMTP, or logged when no SMTP server is configured'),
    409: jsonError('CONFLICT: the address is already verified'),
    ...AUTH_ERRORS,
    429: jsonError('RATE_LIMIT_EXCEEDED: an e-mail was sent less than a minute ago (Retry-After)'),
  },
});

/**
 * `/v1/auth/verify-email` (docs/api/accounts.md "E-mail verification"): the link of the
 * verification e-mail (GET with `token`), the same as a POST, and resend for a signed-in user.
 */
export function emailVerificationRouter(deps: AppDeps) {
  const r = createRouter();

  async function verify(token: string) {
    const claim = await checkVerificationToken(await jwtKey(deps), token);
    const email = await markEmailVerified(deps.sql, claim.user_id, claim.email);
    if (!email) throw new ApiError('AUTH_INVALID_TOKEN', 'this link is for an address the account no longer has');
    return { message: `${email} is verified`, email, email_verified: true as const };
  }

  r.openapi(verifyLink, async (c) => ok(c, await verify(c.req.valid('query').token), 200));
  r.openapi(verifyPost, async (c) => ok(c, await verify(c.req.valid('json').token), 200));

  r.openapi(resend, async (c) => {
    const result = await sendVerificationEmail(deps, c.get('principal')!.user_id);
    if ('skipped' in result) {
      if (result.skipped === 'too_soon') {
        throw new ApiError('RATE_LIMIT_EXCEEDED', `a verification e-mail was sent recently; try again in ${result.retry_after_s} s`, undefined, { 'Retry-After': String(result.retry_after_s) });
      }
      if (result.skipped === 'missing') throw new ApiError('ACCOUNT_NOT_FOUND', 'account not found');
      throw new ApiError('CONFLICT', 'the e-mail address is already verified');
    }
    const message = result.sent === 'queued'
      ? `verification e-mail sent to ${result.email}`
      : 'no SMTP server is configured: the verification e-mail was written to the server log instead';
    return ok(c, { message, email_delivery: result.sent }, 200);
  });

  return r;
}
