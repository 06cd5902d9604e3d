import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';

/** Scopes of account API keys and PATs (docs/api/accounts.md: `read`, `write`); sessions carry both. */
export type Scope = 'read' | 'write';

/**
 * Route guard (docs/api/conventions.md): 401 AUTH_REQUIRED when the caller is anonymous (the app's
 * identify middleware already rejected bad credentials), 403 FORBIDDEN when the credential lacks
 * `scope`. A request that sent only `X-API-Key` is anonymous (docs/api/conventions.md) and is told to use
 * `Authorization: Bearer`.
 *
 * @example router.use('/monitors/*', requireAuth({ scope: 'write' }))
 * @param opts.scope scope the credential must carry; omitted = any authenticated caller
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
    if (scope && !principal.scopes.includes(scope)) {
      throw new ApiError('FORBIDDEN', `this credential lacks the '${scope}' scope`, { required_scope: scope });
    }
    await next();
  };
}
