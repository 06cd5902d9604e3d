import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppDeps } from './deps.js';
import type { AppEnv } from './env.js';
import { notFoundHandler, onError } from './http/errors.js';
import { limitBody } from './middleware/body-limit.js';
import { identify } from './middleware/identify.js';
import { rateLimit } from './middleware/rate-limit.js';
import { requestContext } from './middleware/request-context.js';
import { mountOpenApi } from './openapi/document.js';
import { mountRoutes } from './routes/index.js';
import { validationError } from './routes/router.js';
import type { ZodError } from 'zod';

/**
 * Build the control-plane HTTP app without listening (STYLE.md: construction apart from
 * listening). Middleware order: request id + logger, 32 KB body limit, identify (principal or
 * null; bad credentials 401), rate limit; then every router (`mountRoutes`), GET
 * /v1/openapi.json, and the one notFound (404/405) and onError (spec part 7 envelope).
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
  app.use('*', limitBody());
  app.use('*', identify(deps));
  app.use('*', rateLimit(deps));
  mountRoutes(app, deps);
  mountOpenApi(app);
  app.notFound(notFoundHandler(app));
  app.onError(onError);
  return app;
}
