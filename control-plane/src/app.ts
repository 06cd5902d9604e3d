import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppDeps } from './deps.js';
import type { AppEnv } from './env.js';
import { errorHandler, notFoundHandler } from './http/errors.js';
import { limitBody } from './middleware/body-limit.js';
import { DELAY_WINDOWS, LoadMonitor, loadShedding } from './middleware/load-shed.js';
import { cleanInput } from './middleware/clean-input.js';
import { identify } from './accounts/identify.js';
import { exceptArtifactUploads } from './artifacts/upload-exemption.js';
import { exceptReportVerification } from './attestation/verify-exemption.js';
import { exceptHeartbeatCheckins } from './control-checks/heartbeat-checkin-body.js';
import { failedAuthLimit, rateLimit } from './middleware/rate-limit.js';
import { requestContext } from './middleware/request-context.js';
import { mountOpenApi } from './openapi/document.js';
import { mountRoutes } from './routes.js';
import { consoleAssets } from './console/console-serve.js';
import { customDomainPages } from './status-pages/public.routes.js';
import { httpMetrics } from './metrics/http-metrics.js';
import { opsRouter } from './metrics/ops.routes.js';
import { validationError } from './http/router.js';
import type { ZodError } from 'zod';

/**
 * Build the control-plane HTTP app without listening (construction apart from
 * listening). Middleware order: request id + logger, request metrics (metrics/http-metrics.ts),
 * the operations endpoints /healthz, /readyz and /metrics (metrics/ops.routes.ts), load shedding (503 with Retry-After past the
 * instance's capacity, before any database work), 32 KB body limit (node artifact uploads have
 * their own; heartbeat check-ins keep a prefix of any body), clean input (NUL, lone surrogates,
 * malformed percent-encoding and JSON nested past LIMITS.json_depth_max refused with 400 on
 * every route but heartbeat check-ins, whose body
 * is sanitised instead), the web console's files and pages (console/console-serve.ts: GET and HEAD
 * outside the API paths), invalid-credential limit per source IP (counts identify's 401s; 429 past it),
 * identify (principal or null; bad credentials 401; not on node artifact uploads, which check
 * the node credential), rate limit; then every router (`mountRoutes`), GET
 * /v1/openapi.json, and the one notFound (404/405) and onError (error envelope, docs/api/conventions.md).
 *
 * @example const app = createApp(deps); serve({ fetch: app.fetch, port: 8080 });
 */
export function createApp(deps: AppDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error as unknown as ZodError, result.target as never);
    },
  });
  app.use('*', requestContext(deps.log));
  if (deps.metrics) app.use('*', httpMetrics(deps.metrics));
  // /healthz, /readyz and /metrics answer before load shedding, credentials and the console.
  app.route('/', opsRouter(deps));
  app.use('*', loadShedding(deps.config, new LoadMonitor(DELAY_WINDOWS, () => deps.sql`SELECT 1`, deps.results.storeLatencyMs && (() => deps.results.storeLatencyMs!()))));
  // Node artifact uploads carry a node credential and their own size bound (artifacts/upload.routes.ts);
  // heartbeat check-ins count whatever their body and keep a sanitised prefix of it (control-checks/heartbeat-checkin-body.ts).
  app.use('*', exceptArtifactUploads(exceptHeartbeatCheckins(exceptReportVerification(limitBody()))));
  app.use('*', exceptHeartbeatCheckins(cleanInput(app)));
  // A status page's custom domain (its Host header) is answered before anything else serves `/`
  // (the console would), from the page cache, so before credentials and rate limits too.
  app.use('*', customDomainPages(deps));
  // The web console's files and pages (outside /v1): static, so before credentials and rate limits.
  app.use('*', consoleAssets(deps.config));
  app.use('*', failedAuthLimit(deps));
  app.use('*', exceptArtifactUploads(identify(deps)));
  app.use('*', rateLimit(deps));
  mountRoutes(app, deps);
  mountOpenApi(app, deps.config);
  app.notFound(notFoundHandler(app, deps.config));
  app.onError(errorHandler(deps.config));
  return app;
}
