import type { MiddlewareHandler } from 'hono';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { clientIp } from '../http/client-ip.js';
import { rateLimitHeaders } from '../middleware/rate-limit.js';
import { RateCounter } from '../middleware/rate-counter.js';
import { countLookupUsage } from './lookup-usage.db.js';

/**
 * The metered lookups' own limit and meter (docs/api/lookups.md "Rate limits and usage"), on top
 * of the general rate limit: per source IP for anonymous callers (`reputation_rate_limit_anonymous`),
 * per credential for callers with one (`reputation_rate_limit_keyed`), per `rate_limit_window_s`,
 * in the shared Postgres counters (buckets `lookup:<name>:ip:<ip>` / `lookup:<name>:cred:<id>`).
 * Over the limit → 429 RATE_LIMIT_EXCEEDED with Retry-After and this limit's X-RateLimit-* (a
 * successful response carries the general limit's headers, set by middleware/rate-limit.ts); a successful call
 * made with an API key or PAT is counted for that key and UTC day (lookup_usage), which
 * GET /v1/account/lookup-usage reads back.
 */
export function meteredLookup(deps: Pick<AppDeps, 'config' | 'sql' | 'log'>, lookup: string): MiddlewareHandler<AppEnv> {
  const { rate_limit_window_s: window_s, reputation_rate_limit_anonymous: anonymous, reputation_rate_limit_keyed: keyed, trust_proxy } = deps.config;
  const counter = new RateCounter(deps.sql, window_s, deps.config.rate_limit_sync_ms, deps.log.child({ module: 'lookups.limit' }));
  return async function meteredLookupMiddleware(c, next) {
    const principal = c.get('principal');
    const limit = principal ? keyed : anonymous;
    const counted = await counter.hit(principal ? `lookup:${lookup}:cred:${principal.credential_id}` : `lookup:${lookup}:ip:${clientIp(c, trust_proxy)}`);
    const headers = rateLimitHeaders(limit, counted);
    if (counted.count > limit) {
      throw new ApiError('RATE_LIMIT_EXCEEDED', `${lookup} lookups are limited to ${limit} per ${window_s} s ${principal ? 'per credential' : 'per source address'}`, { limit, window_s }, headers);
    }
    await next();
    if (principal && principal.kind !== 'session' && c.res.status === 200) await countLookupUsage(deps.sql, principal.credential_id, lookup);
  };
}
