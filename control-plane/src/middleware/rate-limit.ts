import type { MiddlewareHandler } from 'hono';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { hitRateLimit } from '../db/rate-limit.js';
import { clientIp } from '../http/client-ip.js';

/**
 * Fixed-window rate limit kept in Postgres so all instances share it (issue 3): per credential
 * for authenticated calls (`config.rate_limit_keyed`), per source IP for anonymous ones
 * (`config.rate_limit_anonymous`), per `config.rate_limit_window_s`. Every response carries
 * X-RateLimit-Limit, X-RateLimit-Remaining (ints) and X-RateLimit-Reset (ISO date-time); over the
 * limit → 429 RATE_LIMIT_EXCEEDED with Retry-After in whole seconds (spec part 7).
 */
export function rateLimit(deps: Pick<AppDeps, 'config' | 'sql'>): MiddlewareHandler<AppEnv> {
  const { rate_limit_window_s: window_s, rate_limit_keyed: keyed, rate_limit_anonymous: anonymous, trust_proxy } = deps.config;
  return async function rateLimitMiddleware(c, next) {
    const principal = c.get('principal');
    const bucket = principal ? `cred:${principal.credential_id}` : `ip:${clientIp(c, trust_proxy)}`;
    const limit = principal ? keyed : anonymous;
    const { count, reset_at } = await hitRateLimit(deps.sql, bucket, window_s);
    const headers = {
      'X-RateLimit-Limit': String(limit),
      'X-RateLimit-Remaining': String(Math.max(0, limit - count)),
      'X-RateLimit-Reset': reset_at.toISOString(),
    };
    if (count > limit) {
      const retry_s = Math.max(1, Math.ceil((reset_at.getTime() - Date.now()) / 1000));
      throw new ApiError('RATE_LIMIT_EXCEEDED', `rate limit of ${limit} requests per ${window_s} s exceeded`, { limit, window_s }, { ...headers, 'Retry-After': String(retry_s) });
    }
    await next();
    for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
  };
}
