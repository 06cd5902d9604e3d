import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.js';
import { isArtifactUpload } from './upload.routes.js';

/**
 * `mw` for every request but node artifact uploads (`PUT /v1/nodes/artifacts/{sha256}`), which
 * authenticate the node credential and bound their body themselves (artifacts/upload.routes.ts):
 * app.ts wraps the 32 KB body limit and the user-credential middleware with it.
 */
export function exceptArtifactUploads(mw: MiddlewareHandler<AppEnv>): MiddlewareHandler<AppEnv> {
  return async function exceptArtifactUploadsMiddleware(c, next) {
    if (isArtifactUpload(c)) return next();
    return mw(c, next);
  };
}
