import { Readable } from 'node:stream';
import { createRoute, z } from '@hono/zod-openapi';
import { ARTIFACT_CONTENT_TYPES, artifactPath, artifactSignedQuerySchema, isId, SHA256_HEX } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { BEARER, jsonError } from '../http/openapi-responses.js';
import { createRouter } from '../http/router.js';
import { monitorFor } from '../monitors/access.js';
import { monitorIdParam } from '../monitors/monitors.routes.js';
import { monitorArtifact } from './artifacts.db.js';
import { artifactKey, artifactSigner } from './signing.js';
import { ArtifactStore } from './store.js';
import { grants } from '../middleware/scopes.js';

const get = createRoute({
  method: 'get', path: '/{id}/artifacts/{sha256}', tags: ['monitors'], security: [...BEARER, {}],
  summary: 'One artifact (HAR 1.2 JSON or screenshot PNG) of a browser monitor\'s checks: to its owner with a credential, or to anyone with a signed URL (expires, signature) from a check read',
  request: {
    params: monitorIdParam.extend({ sha256: z.string().regex(SHA256_HEX, 'must be a SHA-256 digest: 64 lower-case hex digits').openapi({ param: { name: 'sha256', in: 'path' } }) }),
    query: artifactSignedQuerySchema,
  },
  responses: {
    200: {
      description: 'the file: application/json (HAR 1.2) or image/png; ETag is its SHA-256',
      content: { 'application/json': { schema: z.object({ log: z.object({ version: z.string() }).passthrough() }) }, 'image/png': { schema: z.string().openapi({ format: 'binary' }) } },
    },
    304: { description: 'If-None-Match named this file' },
    400: jsonError('VALIDATION_FAILED: a bad digest, or only one of expires and signature'),
    401: jsonError('AUTH_REQUIRED: neither a credential nor a signed URL'),
    403: jsonError('FORBIDDEN: a signed URL whose signature does not match (tampered) or that has expired (details.reason)'),
    404: jsonError('MONITOR_NOT_FOUND / NOT_FOUND: not a monitor you can read, or no check of it has this artifact'),
    429: jsonError('rate limit exceeded (Retry-After, X-RateLimit-*)'),
  },
});

/**
 * `GET /v1/monitors/{id}/artifacts/{sha256}` (docs/api/artifacts.md "Read"): serves an artifact
 * some check of the monitor was uploaded with. Either signed (`expires` + `signature`: valid
 * until `expires`, for exactly this path; refused 403 when expired or tampered) or authenticated
 * (a credential with `read` of the monitor: its creator's, or a member's of its team, by
 * teams/authorize.ts; another account's or another team's monitor is 404).
 * Immutable content: `ETag` is the digest, `Cache-Control: private`; served with
 * `X-Content-Type-Options: nosniff` and a sandboxing Content-Security-Policy.
 */
export function artifactsRouter(deps: AppDeps) {
  const r = createRouter();
  const store = new ArtifactStore(deps.config.data_dir);

  r.openapi(get, async (c) => {
    const { id, sha256 } = c.req.valid('param');
    const { expires, signature } = c.req.valid('query');
    if ((expires === undefined) !== (signature === undefined)) {
      throw new ApiError('VALIDATION_FAILED', 'a signed URL has both expires and signature', { fields: [{ path: expires === undefined ? 'expires' : 'signature', message: 'required' }], in: 'query' });
    }
    if (!isId('monitor', id)) throw new ApiError('MONITOR_NOT_FOUND', `no monitor ${id}`);
    if (expires !== undefined && signature !== undefined) {
      const verdict = artifactSigner(await artifactKey(deps)).verify(artifactPath(id, sha256), expires, signature);
      if (verdict === 'expired') throw new ApiError('FORBIDDEN', 'this signed URL has expired: read the check again for a fresh one', { reason: 'expired' });
      if (verdict !== 'ok') throw new ApiError('FORBIDDEN', 'signature does not match this URL', { reason: 'signature' });
    } else {
      const principal = c.get('principal');
      if (!principal) throw new ApiError('AUTH_REQUIRED', 'send a credential (Authorization: Bearer) or use the signed URL from a check read');
      if (!grants(principal.scopes, 'monitor:read')) throw new ApiError('FORBIDDEN', "this credential lacks the 'monitor:read' scope", { required_scope: 'monitor:read' });
      await monitorFor(c, deps, id, 'read');
    }
    const found = await monitorArtifact(deps.sql, id, sha256);
    const file = found ? store.read(sha256) : null;
    if (!found || !file) throw new ApiError('NOT_FOUND', `no artifact ${sha256} for monitor ${id}`);
    const headers: Record<string, string> = {
      'content-type': ARTIFACT_CONTENT_TYPES[found.kind], 'content-length': String(found.size_bytes), etag: `"${sha256}"`,
      'cache-control': 'private, max-age=3600, immutable', 'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
      ...(found.kind === 'har' ? { 'content-disposition': `inline; filename="${sha256.slice(0, 16)}.har"` } : {}),
    };
    if (c.req.header('if-none-match')?.split(',').some((t) => t.trim() === `"${sha256}"`)) {
      file.destroy();
      return c.body(null, 304, { etag: headers.etag!, 'cache-control': headers['cache-control']! }) as never;
    }
    return c.body(Readable.toWeb(file) as ReadableStream, 200, headers) as never;
  });

  return r;
}
