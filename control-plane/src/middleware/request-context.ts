import type { MiddlewareHandler } from 'hono';
import { newId } from '@vantage/shared-protocol';
import type { AppEnv } from '../env.js';
import type { Logger } from '../log.js';

/**
 * First middleware of the app: gives the request a `req_` id (shared-protocol `newId('request')`;
 * never taken from the client), a child logger carrying it, the X-Request-Id response header, and
 * one pino line per request with method, path, status and duration_ms.
 */
export function requestContext(log: Logger): MiddlewareHandler<AppEnv> {
  const http = log.child({ module: 'http' });
  return async function requestContextMiddleware(c, next) {
    const request_id = newId('request');
    const started = performance.now();
    c.set('request_id', request_id);
    c.set('principal', null);
    c.set('log', http.child({ request_id }));
    try {
      await next();
    } finally {
      c.res.headers.set('X-Request-Id', request_id);
      const duration_ms = Math.round((performance.now() - started) * 10) / 10;
      http.info({ request_id, method: c.req.method, path: c.req.path, status: c.res.status, duration_ms }, 'request');
    }
  };
}
