import { createRoute } from '@hono/zod-openapi';
import { securityPatchSchema, securitySummarySchema } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { requireAuth } from '../middleware/auth.js';
import { setAccountRequire2fa, twoFactorStanding } from './two-factor-policy.db.js';
import { toSecuritySummary } from './two-factor-policy.js';

const read = createRoute({
  method: 'get', path: '/security', operationId: 'getAccountSecurity', tags: ['account'], security: BEARER, middleware: [requireAuth({ scope: 'read' })],
  summary: 'Security summary: TOTP, passkeys, recovery codes left, the two-factor policy and what sets it',
  responses: { 200: jsonOk(securitySummarySchema, 'the summary'), ...AUTH_ERRORS },
});
const patch = createRoute({
  method: 'patch', path: '/security', operationId: 'updateAccountSecurity', tags: ['account'], security: BEARER, middleware: [requireAuth({ scope: 'write' })],
  summary: 'Set the account\'s own two-factor policy (`require_2fa`)',
  request: { body: jsonBody(securityPatchSchema) },
  responses: { 200: jsonOk(securitySummarySchema, 'the summary after the change'), 400: jsonError('VALIDATION_FAILED'), ...AUTH_ERRORS },
});

/** `/v1/account/security` (docs/api/accounts.md "Two-factor policy and recovery codes"): the summary, and the account's own policy. */
export function securityRouter(deps: AppDeps) {
  const r = createRouter();
  async function summary(user_id: string) {
    const standing = await twoFactorStanding(deps.sql, user_id);
    if (!standing) throw new ApiError('ACCOUNT_NOT_FOUND');
    return toSecuritySummary(standing);
  }
  r.openapi(read, async (c) => ok(c, await summary(c.get('principal')!.user_id), 200));
  r.openapi(patch, async (c) => {
    const user_id = c.get('principal')!.user_id;
    await setAccountRequire2fa(deps.sql, user_id, c.req.valid('json').require_2fa);
    return ok(c, await summary(user_id), 200);
  });
  return r;
}
