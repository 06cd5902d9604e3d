import type { MiddlewareHandler } from 'hono';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { hitRateLimit, type RateCount } from '../db/rate-limit.js';
import { RateCounter } from './rate-counter.js';
import type { Sql } from '../db/sql.js';
import { clientIp } from '../http/client-ip.js';

/**
 * The docs/api/conventions.md rate-limit headers for a bucket at `count` of `limit`: X-RateLimit-Limit,
 * X-RateLimit-Remaining (ints), X-RateLimit-Reset (ISO date-time), and Retry-After (whole seconds
 * until the window ends, at least 1) once `count` is over `limit`.
 */
export function rateLimitHeaders(limit: number, { count, reset_at }: RateCount): Record<string, string> {
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(limit),
    'X-RateLimit-Remaining': String(Math.max(0, limit - count)),
    'X-RateLimit-Reset': reset_at.toISOString(),
  };
  if (count > limit) headers['Retry-After'] = String(Math.max(1, Math.ceil((reset_at.getTime() - Date.now()) / 1000)));
  return headers;
}

/**
 * Fixed-window rate limit kept in Postgres so all instances share it, counted in memory between
 * writes of at most `config.rate_limit_sync_ms` ({@link RateCounter}): per credential for
 * authenticated calls (`config.rate_limit_keyed`), per source IP for anonymous ones
 * (`config.rate_limit_anonymous`), per `config.rate_limit_window_s`. Every response carries
 * X-RateLimit-Limit, X-RateLimit-Remaining (ints) and X-RateLimit-Reset (ISO date-time); over the
 * limit → 429 RATE_LIMIT_EXCEEDED with Retry-After in whole seconds (docs/api/errors.md).
 * Requests whose credential is refused never get here: {@link failedAuthLimit} counts them.
 */
export function rateLimit(deps: Pick<AppDeps, 'config' | 'sql' | 'log'>): MiddlewareHandler<AppEnv> {
  const { rate_limit_window_s: window_s, rate_limit_keyed: keyed, rate_limit_anonymous: anonymous, trust_proxy } = deps.config;
  const counter = new RateCounter(deps.sql, window_s, deps.config.rate_limit_sync_ms, deps.log.child({ module: 'rate-limit' }));
  return async function rateLimitMiddleware(c, next) {
    const principal = c.get('principal');
    const bucket = principal ? `cred:${principal.credential_id}` : `ip:${clientIp(c, trust_proxy)}`;
    const limit = principal ? keyed : anonymous;
    const counted = await counter.hit(bucket);
    const headers = rateLimitHeaders(limit, counted);
    if (counted.count > limit) {
      throw new ApiError('RATE_LIMIT_EXCEEDED', `rate limit of ${limit} requests per ${window_s} s exceeded`, { limit, window_s }, headers);
    }
    await next();
    // A route's own limit that refused the request (a 429 with its X-RateLimit-*) keeps its headers: they say when to retry.
    if (c.res.status === 429 && c.res.headers.has('X-RateLimit-Limit')) return;
    for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
  };
}

/** Most source addresses a FailedAuthLimiter remembers as blocked (oldest forgotten first). */
const BLOCKED_MAX = 50_000;

/**
 * Counts refused credentials per source IP in the shared fixed window (bucket `authfail:<ip>`,
 * `limit` per `window_s`), for HTTP requests and node socket upgrades alike. Once an address is
 * over the limit it is remembered here until its window ends, so every later attempt from it is
 * refused at once (no credential look-up, and a correct guess no longer shows as different from a
 * wrong one). Other instances learn it from the shared counter at the address's next failure
 * there, so the whole fleet lets through at most one failure per instance beyond the limit.
 */
export class FailedAuthLimiter {
  readonly #blocked = new Map<string, RateCount>();

  constructor(private readonly sql: Sql, readonly limit: number, readonly window_s: number) {}

  /** The bucket state of a blocked address (count over the limit), or null when it may try. */
  blocked(ip: string): RateCount | null {
    const hit = this.#blocked.get(ip);
    if (!hit) return null;
    if (hit.reset_at.getTime() > Date.now()) return hit;
    this.#blocked.delete(ip);
    return null;
  }

  /** Count one refused credential from `ip`. @returns the bucket state; `count > limit` means refuse with 429 */
  async record(ip: string): Promise<RateCount> {
    const counted = await hitRateLimit(this.sql, `authfail:${ip}`, this.window_s);
    if (counted.count > this.limit) {
      if (this.#blocked.size >= BLOCKED_MAX) this.#blocked.delete(this.#blocked.keys().next().value!);
      this.#blocked.set(ip, counted);
    }
    return counted;
  }
}

/**
 * Per-IP limit on requests whose credential is refused (401 from the app's identify middleware:
 * unknown, revoked or expired bearer), mounted before identify. Such requests never reach
 * {@link rateLimit} (the 401 comes first), so without this a caller could try credentials at any
 * rate. `config.rate_limit_invalid_credentials` per `config.rate_limit_window_s` per source IP;
 * beyond it the request, and every later request carrying `Authorization` from that address
 * until the window ends, gets 429 RATE_LIMIT_EXCEEDED with Retry-After. Requests without
 * `Authorization` pass untouched (the anonymous limit applies to them).
 */
export function failedAuthLimit(deps: Pick<AppDeps, 'config' | 'sql'>): MiddlewareHandler<AppEnv> {
  const { rate_limit_invalid_credentials: limit, rate_limit_window_s: window_s, trust_proxy } = deps.config;
  const limiter = new FailedAuthLimiter(deps.sql, limit, window_s);
  const refuse = (counted: RateCount) => new ApiError(
    'RATE_LIMIT_EXCEEDED', `too many requests with invalid credentials from this address: at most ${limit} per ${window_s} s`,
    { limit, window_s }, rateLimitHeaders(limit, counted),
  );
  return async function failedAuthLimitMiddleware(c, next) {
    if (c.req.header('authorization') === undefined) return next();
    const ip = clientIp(c, trust_proxy);
    const blocked = limiter.blocked(ip);
    if (blocked) throw refuse(blocked);
    await next();
    // A request with Authorization has a principal after identify unless identify refused it (401).
    if (c.get('principal') || c.res.status !== 401) return;
    const counted = await limiter.record(ip);
    if (counted.count > limit) throw refuse(counted);
  };
}
