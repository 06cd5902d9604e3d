import { createRoute } from '@hono/zod-openapi';
import { accountExportSchema } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { requireAuth } from '../middleware/auth.js';
import { findUserById } from './accounts.db.js';
import { exportAccount } from './account-export.js';

const exportRoute = createRoute({
  method: 'get', path: '/export', operationId: 'exportAccount', tags: ['account'], security: BEARER, middleware: [requireAuth({ scope: 'read' })],
  summary: 'Everything your account owns as one JSON document (no secrets)',
  responses: { 200: jsonOk(accountExportSchema, 'the export document'), ...AUTH_ERRORS, 403: jsonError('FORBIDDEN: a workspace token, or a credential without the read scope') },
});

/** `GET /v1/account/export` (docs/api/accounts.md "Data export"); a workspace token cannot export its creator's account. */
export function accountExportRouter(deps: AppDeps) {
  const r = createRouter();
  r.openapi(exportRoute, async (c) => {
    const principal = c.get('principal')!;
    if (principal.team_id) throw new ApiError('FORBIDDEN', 'a workspace token acts for its team only: export the account with a session, API key or PAT', { team_id: principal.team_id });
    const user = await findUserById(deps.sql, principal.user_id);
    if (!user) throw new ApiError('ACCOUNT_NOT_FOUND');
    return ok(c, await exportAccount(deps, user), 200);
  });
  return r;
}
