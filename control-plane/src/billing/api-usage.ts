import type { MiddlewareHandler } from 'hono';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { accountQuotas } from './quotas.js';
import { countApiCall, spendApiPackCall } from './quotas.db.js';

/** The next UTC midnight after `now`: when the daily API call quota starts again. */
export function nextUtcMidnight(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

/**
 * The daily API call quota (docs/api/billing.md "API calls per day"): every /v1 call made with an
 * API key or a PAT is counted for that key and UTC day (api_usage_daily; console sessions are not
 * counted). Past the account plan's `api_calls_per_day`, each call takes one credit of an active
 * api_pack entitlement; with none left the call is refused before it runs: 429 QUOTA_EXCEEDED with
 * Retry-After (seconds to the next UTC midnight), X-RateLimit-Limit (the quota),
 * X-RateLimit-Remaining 0, X-RateLimit-Reset, and `details {quota, plan, limit, used}`.
 */
export function apiCallQuota(deps: Pick<AppDeps, 'sql' | 'config'>): MiddlewareHandler<AppEnv> {
  return async function apiCallQuotaMiddleware(c, next) {
    const principal = c.get('principal');
    if (principal && principal.kind !== 'session') {
      const used = await countApiCall(deps.sql, principal.user_id, principal.credential_id);
      const { plan, quotas } = await accountQuotas(deps, principal.user_id);
      const limit = quotas.api_calls_per_day;
      if (used > limit && !(await spendApiPackCall(deps.sql, principal.user_id))) {
        const now = new Date();
        const reset = nextUtcMidnight(now);
        throw new ApiError('QUOTA_EXCEEDED', `the ${plan} plan allows ${limit} API calls per day (UTC)`, { quota: 'api_calls_per_day', plan, limit, used }, {
          'Retry-After': String(Math.max(1, Math.ceil((reset.getTime() - now.getTime()) / 1000))),
          'X-RateLimit-Limit': String(limit), 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': reset.toISOString(),
        });
      }
    }
    await next();
  };
}
