import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.js';
import { routePath } from 'hono/route';
import { ApiError } from '../errors.js';
import { grants, operationKey, scopeError, scopeOf } from './scopes.js';

/** What a route does: reads (`read`) or changes (`write`); the scope table names the family. */
export type Scope = 'read' | 'write';

/**
 * Route guard (docs/api/conventions.md): 401 AUTH_REQUIRED when the caller is anonymous (the app's
 * identify middleware already rejected bad credentials), 403 FORBIDDEN when the credential lacks
 * the scope the operation needs (docs/api/scopes.md): the one the scope table (scope-table.ts)
 * names for this route, else `scope` itself (`read`/`write`). A request that sent only `X-API-Key`
 * is anonymous (docs/api/conventions.md) and is told to use `Authorization: Bearer`.
 *
 * @example router.use('/monitors/*', requireAuth({ scope: 'write' }))
 * @param opts.scope the action (`read`/`write`), the scope asked when the table lacks the route;
 *   omitted = any authenticated caller
 */
export function requireAuth(opts: { scope?: Scope } = {}): MiddlewareHandler<AppEnv> {
  const scope = opts.scope;
  if (scope !== undefined && scope !== 'read' && scope !== 'write') {
    throw new TypeError(`requireAuth: unknown scope ${String(scope)}`);
  }
  return async function requireAuthMiddleware(c, next) {
    const principal = c.get('principal');
    if (!principal) {
      const hint = c.req.header('x-api-key') !== undefined
        ? 'X-API-Key is not supported; send Authorization: Bearer <key>'
        : 'authentication required: send Authorization: Bearer <token>';
      throw new ApiError('AUTH_REQUIRED', hint);
    }
    const listed = scopeOf(operationKey(c.req.method, routePath(c)));
    const required = listed === undefined ? scope : listed === 'none' ? undefined : listed;
    if (required && !grants(principal.scopes, required)) throw scopeError(required, principal.scopes);
    await next();
  };
}
