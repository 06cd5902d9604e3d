import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { createRoute, z } from '@hono/zod-openapi';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { createRouter } from '../http/router.js';
import { readiness } from './readiness.js';
import { authorizeScrape } from './scrape-access.js';

/** The Prometheus text exposition format this endpoint writes (version 0.0.4). */
const EXPOSITION_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Scrapes shorter than this go uncompressed (bytes). */
const GZIP_MIN_BYTES = 16 * 1024;
const gzipAsync = promisify(gzip);

const readyChecks = z.object({ database: z.string(), migrations: z.string(), hub: z.string() });

/**
 * Operations endpoints at the root, outside /v1 (docs/operators/metrics.md), mounted by createApp
 * before load shedding, credentials and rate limits (a load balancer or Prometheus carries no API
 * credential, and a health check must answer on a loaded instance):
 * - GET /healthz: 200 `{ status: "ok" }` while the process serves requests (liveness).
 * - GET /readyz: 200 `{ status: "ready", checks }`, or 503 UNAVAILABLE with `details.checks` when
 *   the database is unreachable, a migration is missing, or the server is not listening yet or draining.
 * - GET /metrics: the Prometheus text format (gzip when asked and past 16 KB), for the metrics
 *   token or a loopback peer (scrape-access.ts); without a metric set (tests that build deps by hand) 503 UNAVAILABLE.
 */
export function opsRouter(deps: AppDeps) {
  const r = createRouter();

  r.openapi(
    createRoute({
      method: 'get', path: '/healthz', tags: ['operations'], summary: 'Liveness: the process answers',
      responses: { 200: { description: 'The process is up.', content: { 'application/json': { schema: z.object({ status: z.literal('ok') }) } } } },
    }),
    (c) => c.json({ status: 'ok' as const }, 200, { 'Cache-Control': 'no-store' }),
  );

  r.openapi(
    createRoute({
      method: 'get', path: '/readyz', tags: ['operations'], summary: 'Readiness: database, migrations and hub',
      responses: {
        200: { description: 'Ready for traffic.', content: { 'application/json': { schema: z.object({ status: z.literal('ready'), checks: readyChecks }) } } },
        503: { description: 'Not ready (UNAVAILABLE); `details.checks` says which condition failed.' },
      },
    }),
    async (c) => {
      const state = await readiness(deps.sql, deps.ops);
      if (!state.ready) throw new ApiError('UNAVAILABLE', `not ready: ${Object.entries(state.checks).filter(([, v]) => v !== 'ok').map(([k, v]) => `${k} ${v}`).join('; ')}`, { checks: state.checks }, { 'Cache-Control': 'no-store' });
      return c.json({ status: 'ready' as const, checks: state.checks }, 200, { 'Cache-Control': 'no-store' });
    },
  );

  r.openapi(
    createRoute({
      method: 'get', path: '/metrics', tags: ['operations'], summary: 'Prometheus metrics of this instance',
      description: 'Bearer: the metrics token (VANTAGE_METRICS_TOKEN), not an API credential; without one configured, loopback peers only.',
      security: [{ bearer: [] }],
      responses: {
        200: { description: 'Prometheus text exposition format 0.0.4.', content: { 'text/plain': { schema: z.string() } } },
        401: { description: 'A metrics token is configured and the request lacks it (AUTH_REQUIRED) or sent another (AUTH_INVALID_TOKEN).' },
        403: { description: 'No metrics token is configured and the peer is not on the loopback interface (FORBIDDEN).' },
      },
    }),
    async (c) => {
      authorizeScrape(c, deps.config);
      if (!deps.metrics) throw new ApiError('UNAVAILABLE', 'metrics are not collected by this instance');
      const text = await deps.metrics.render();
      const headers = { 'Content-Type': EXPOSITION_TYPE, 'Cache-Control': 'no-store', Vary: 'Accept-Encoding' };
      // Prometheus asks for gzip; with many monitors a scrape is tens of MB, compressed off the event loop (zlib's thread pool).
      if (/\bgzip\b/.test(c.req.header('Accept-Encoding') ?? '') && text.length > GZIP_MIN_BYTES) {
        return c.body(new Uint8Array(await gzipAsync(text)), 200, { ...headers, 'Content-Encoding': 'gzip' });
      }
      return c.body(text, 200, headers);
    },
  );

  return r;
}
