import type { MiddlewareHandler } from 'hono';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { checkOperationScope } from '../middleware/scopes.js';
import { resolveBearer } from './credentials.js';
import { enforceTwoFactorPolicy } from './two-factor-policy.js';

/**
 * Sets `principal` from `Authorization: Bearer …` (session JWT, API key or PAT; docs/api/conventions.md) or
 * null when there is none. A bad, revoked or expired credential is refused with 401 here, on
 * every route, public ones included (see accounts/credentials.ts for the codes), and so is a key
 * used from an Origin it does not allow (403). Then a key or PAT whose scopes do not cover the
 * operation the request reached is refused with 403 FORBIDDEN `details.required_scope`
 * (docs/api/scopes.md; middleware/scopes.ts), on routes with and without requireAuth alike.
 * `X-API-Key` is ignored (docs/api/conventions.md). Last, a caller that a two-factor policy
 * requires to set 2FA up is refused with 409 AUTH_2FA_SETUP_REQUIRED outside the setup routes
 * (accounts/two-factor-policy.ts; docs/api/accounts.md "Two-factor policy and recovery codes").
 */
export function identify(deps: Pick<AppDeps, 'config' | 'sql' | 'log'>): MiddlewareHandler<AppEnv> {
  return async function identifyMiddleware(c, next) {
    c.set('principal', await resolveBearer(deps, c.req.header('authorization'), c.req.header('origin')));
    checkOperationScope(c);
    await enforceTwoFactorPolicy(deps, c);
    await next();
  };
}
