import { createRoute, z } from '@hono/zod-openapi';
import { artifactStoredSchema, artifactUploadQuerySchema, NODE_ARTIFACT_PATH, SHA256_HEX, type ArtifactKind } from '@vantage/shared-protocol';
import type { Context } from 'hono';
import { checkRetention } from '../checks/retention.js';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { BEARER, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { PLACEMENT_HISTORY_MS } from '../monitors/placement-job.js';
import { registerArtifact, registeredSize, uploadRefusal, type UploadClaim } from './artifacts.db.js';
import { authenticateNode } from './node-auth.js';
import { ArtifactStore } from './store.js';

const DAY_MS = 86_400_000;
/** Artifacts of one kind one node may upload for one round: a re-run after a restart makes a second. */
const PER_ROUND_MAX = 2;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The first bytes a file of each kind must start with: a PNG signature; a JSON object (HAR 1.2 is one). */
const FORMATS: Record<ArtifactKind, (head: Buffer) => boolean> = {
  screenshot: (head) => head.subarray(0, 8).equals(PNG_SIGNATURE),
  har: (head) => /^\s*\{/.test(head.toString('latin1')),
};

const upload = createRoute({
  method: 'put', path: '/{sha256}', tags: ['nodes'], security: BEARER,
  summary: 'A node uploads one artifact (HAR or screenshot) of a browser check result, named by its SHA-256; node credential (nk_) only; idempotent',
  request: {
    params: z.object({ sha256: z.string().regex(SHA256_HEX, 'must be a SHA-256 digest: 64 lower-case hex digits').openapi({ param: { name: 'sha256', in: 'path' }, example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08' }) }),
    query: artifactUploadQuerySchema,
    body: { required: true, content: { 'application/octet-stream': { schema: z.string().openapi({ format: 'binary' }) } } },
  },
  responses: {
    200: jsonOk(artifactStoredSchema, 'the same content was stored for this check already (created false)'),
    201: jsonOk(artifactStoredSchema, 'stored'),
    400: jsonError('VALIDATION_FAILED: bad digest or query, the body does not hash to the digest, is empty, is not a PNG/JSON, or the round is out of range'),
    401: jsonError('AUTH_REQUIRED, AUTH_INVALID_TOKEN: no node credential, or not a live one'),
    403: jsonError('FORBIDDEN: the node is not placed on that browser monitor for that round, or is disabled or banned'),
    404: jsonError('MONITOR_NOT_FOUND: no such monitor'),
    409: jsonError('CONFLICT: the node uploaded as many artifacts of that kind for that round as allowed (2)'),
    413: jsonError('PAYLOAD_TOO_LARGE: larger than the deployment\'s artifact_max_bytes; nothing stored'),
    429: jsonError('rate limit exceeded (Retry-After, X-RateLimit-*)'),
    503: jsonError('UNAVAILABLE: the same content was being deleted by retention at that moment; send it again (Retry-After)'),
  },
});

/** Is this request an artifact upload (the user-credential middleware and the 32 KB body limit leave it to its route)? */
export function isArtifactUpload(c: Context): boolean {
  return c.req.method === 'PUT' && c.req.path.startsWith(`${NODE_ARTIFACT_PATH}/`);
}

/**
 * `PUT /v1/nodes/artifacts/{sha256}` (docs/api/artifacts.md "Upload"): a node stores one
 * artifact of one of its browser results. Authorised per result: the node's own credential, and
 * the monitor and round of the result checked against its placement; bounded by
 * `artifact_max_bytes` (Content-Length checked first, the body counted as it streams: 413 and
 * nothing kept); verified against its digest and its kind's format; content-addressed, so sending
 * it again (after a reconnect, a lost answer) stores nothing twice.
 */
export function artifactUploadRouter(deps: AppDeps) {
  const r = createRouter();
  const store = new ArtifactStore(deps.config.data_dir);
  const rounds_ms = checkRetention(deps.config).rounds_days * DAY_MS;
  const max_bytes = deps.config.artifact_max_bytes;
  const tooLarge = () => new ApiError('PAYLOAD_TOO_LARGE', `artifact exceeds ${max_bytes} bytes`, { max_bytes });

  // A refusal is answered before the body is read (or after reading stopped): the rest of it
  // would be taken for the next request on a kept-alive connection, so that connection is closed.
  r.use('*', async function closeAfterRefusal(c, next) {
    await next();
    if (c.res.status >= 400) c.res.headers.set('connection', 'close');
  });

  r.openapi(upload, async (c) => {
    const node = await authenticateNode(deps.sql, c.req.header('authorization'));
    const { sha256 } = c.req.valid('param');
    const q = c.req.valid('query');
    const length = c.req.header('content-length');
    if (length !== undefined) {
      if (!/^\d{1,15}$/.test(length.trim())) throw new ApiError('REQUEST_BODY_INVALID', 'bad Content-Length');
      if (Number(length) > max_bytes) throw tooLarge();
    }
    const claim: UploadClaim = { node_id: node.id, monitor_id: q.monitor_id, scheduled_at: new Date(q.scheduled_at), kind: q.kind };
    const at = claim.scheduled_at.getTime();
    if (at < Date.now() - rounds_ms || at > Date.now() + DAY_MS) {
      throw new ApiError('VALIDATION_FAILED', 'scheduled_at: results are no longer (or not yet) accepted for this round', { fields: [{ path: 'scheduled_at', message: 'out of range' }], in: 'query' });
    }
    // Sent again (a lost answer, a reconnect): already stored for this very check, nothing to read.
    const size_bytes = await registeredSize(deps.sql, claim, sha256);
    if (size_bytes !== null && store.has(sha256)) return ok(c, { sha256, size_bytes, created: false }, 200);
    const refusal = await uploadRefusal(deps.sql, claim, PLACEMENT_HISTORY_MS, PER_ROUND_MAX);
    if (refusal === 'no_monitor') throw new ApiError('MONITOR_NOT_FOUND', `no monitor ${q.monitor_id}`);
    if (refusal === 'not_browser' || refusal === 'not_placed') throw new ApiError('FORBIDDEN', `node ${node.id} is not placed on browser monitor ${q.monitor_id}`);
    if (refusal === 'too_many') throw new ApiError('CONFLICT', `${PER_ROUND_MAX} ${q.kind} artifacts are stored for this round of this node already`);
    const body = c.req.raw.body;
    if (!body) throw new ApiError('VALIDATION_FAILED', 'the request has no body');
    let out: Awaited<ReturnType<ArtifactStore['write']>>;
    try {
      out = await store.write(sha256, body as unknown as AsyncIterable<Uint8Array>, max_bytes, FORMATS[q.kind]);
    } catch (err) {
      // The node went away mid-body (a reconnect): nothing was kept; it sends the file again whole.
      if (c.req.raw.signal.aborted || (err as NodeJS.ErrnoException)?.code === 'ECONNRESET' || (err as Error)?.name === 'AbortError') {
        throw new ApiError('REQUEST_BODY_INVALID', 'the upload was cut off before its end; nothing was stored');
      }
      throw err;
    }
    if ('refused' in out) {
      if (out.refused === 'too_large') throw tooLarge();
      if (out.refused === 'digest_mismatch') throw new ApiError('VALIDATION_FAILED', `the body's SHA-256 is ${out.sha256}, not the one in the path`);
      if (out.refused === 'empty') throw new ApiError('VALIDATION_FAILED', 'the body is empty');
      throw new ApiError('VALIDATION_FAILED', q.kind === 'screenshot' ? 'a screenshot must be a PNG' : 'a HAR must be a JSON object');
    }
    await registerArtifact(deps.sql, claim, sha256, out.size_bytes);
    // The retention job deleted this content between our write and our registration: send it again.
    if (!store.has(sha256)) throw new ApiError('UNAVAILABLE', 'the stored copy was being deleted; send the artifact again', undefined, { 'retry-after': '1' });
    return ok(c, { sha256, size_bytes: out.size_bytes, created: out.created }, out.created ? 201 : 200);
  });

  return r;
}
