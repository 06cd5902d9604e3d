import type { MiddlewareHandler } from 'hono';
import type { Counter, Histogram } from 'prom-client';
import type { AppEnv } from '../env.js';
import type { ControlPlaneMetrics } from './registry.js';

/** The route label of a request no route answered (middleware, the console's files, 404s): one value, so unknown paths add no series. */
export const UNMATCHED_ROUTE = '(unmatched)';

type Children = { count: ReturnType<Counter<'method' | 'route' | 'status'>['labels']>; duration: ReturnType<Histogram<'method' | 'route'>['labels']> };

/**
 * Counts every request in `vantage_http_requests_total{method,route,status}` and times it in
 * `vantage_http_request_duration_seconds{method,route}`. `route` is the template of the route that
 * answered (`/v1/monitors/:id`), never the raw path, so the label set is bounded by the routes
 * that exist; methods outside the standard ones count as `OTHER`. Label children are cached per
 * combination (prom-client hashes labels on every call otherwise).
 */
export function httpMetrics(metrics: Pick<ControlPlaneMetrics, 'http_requests' | 'http_duration'>): MiddlewareHandler<AppEnv> {
  const children = new Map<string, Children>();
  const STANDARD = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
  return async function httpMetricsMiddleware(c, next) {
    const started = performance.now();
    try {
      await next();
    } finally {
      const answered = c.req.matchedRoutes[c.req.routeIndex];
      const route = answered && answered.method !== 'ALL' ? answered.path : UNMATCHED_ROUTE;
      const method = STANDARD.has(c.req.method) ? c.req.method : 'OTHER';
      const status = String(c.res.status);
      const key = `${method} ${route} ${status}`;
      let child = children.get(key);
      if (!child) {
        child = { count: metrics.http_requests.labels(method, route, status), duration: metrics.http_duration.labels(method, route) };
        children.set(key, child);
      }
      child.count.inc();
      child.duration.observe((performance.now() - started) / 1000);
    }
  };
}
