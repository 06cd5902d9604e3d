import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.js';

/** Largest PDF `POST /v1/attest/verify` accepts (10 MB): reports are far larger than the API's 32 KB body limit. */
export const VERIFY_BODY_MAX_BYTES = 10 * 1024 * 1024;

/**
 * `mw` (the 32 KB body limit) for every request but `POST /v1/attest/verify`, which bounds its
 * body itself at VERIFY_BODY_MAX_BYTES (attest.routes.ts).
 */
export function exceptReportVerification(mw: MiddlewareHandler<AppEnv>): MiddlewareHandler<AppEnv> {
  return async function exceptReportVerificationMiddleware(c, next) {
    if (c.req.method === 'POST' && c.req.path === '/v1/attest/verify') return next();
    return mw(c, next);
  };
}
