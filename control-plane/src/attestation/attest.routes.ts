import { createRoute, z } from '@hono/zod-openapi';
import { attestKeySchema, attestVerifyResponseSchema, clampedOffsetQuerySchema, keyCeremonyRequestSchema, keyCeremonySchema } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { auditAdmin, requireAdmin } from '../accounts/admin.js';
import { limitBody } from '../middleware/body-limit.js';
import { findKey, listCeremonies, listKeys } from './keys.db.js';
import { revokeKey, rotateKey, toAttestKey, toKeyCeremony, type CeremonyActor } from './keys.js';
import { verifyReport } from './verify.js';
import { VERIFY_BODY_MAX_BYTES } from './verify-exemption.js';

const keyParam = z.object({ key_id: z.string().max(64).openapi({ param: { name: 'key_id', in: 'path' }, example: 'atk_01jd3k6w9z4q8r2t7v5x1y3b6c' }) });
const ADMIN_ERRORS = { ...AUTH_ERRORS, 403: jsonError('FORBIDDEN: not an administrator of this deployment') };

/**
 * `/v1/attest`: public signing keys and public report verification (docs/api/verdicts.md
 * "Verification", "Keys"), and the key ceremony logs for administrators.
 */
export function attestRouter(deps: AppDeps) {
  const r = createRouter();

  r.openapi(createRoute({
    method: 'post', path: '/verify', tags: ['attestation'], summary: 'Verify a signed report PDF (public; the answer has no envelope)',
    middleware: [limitBody(VERIFY_BODY_MAX_BYTES)],
    request: { body: { required: true, content: { 'application/pdf': { schema: z.string().openapi({ format: 'binary' }) }, 'multipart/form-data': { schema: z.object({ file: z.any().optional().openapi({ type: 'string', format: 'binary' }) }) } } } },
    responses: {
      200: { description: 'AttestVerifyResponse (not enveloped): `valid`, and `invalid_reason` when not', content: { 'application/json': { schema: attestVerifyResponseSchema } } },
      400: jsonError('REQUEST_BODY_INVALID: no PDF in the body'), 413: jsonError('PAYLOAD_TOO_LARGE: over 10 MB'),
    },
  }), async (c) => {
    let bytes: Uint8Array;
    if ((c.req.header('content-type') ?? '').toLowerCase().startsWith('multipart/form-data')) {
      const form = await c.req.parseBody().catch(() => ({} as Record<string, unknown>));
      const file = form.file;
      if (!(file instanceof File)) throw new ApiError('REQUEST_BODY_INVALID', 'send the PDF as the `file` field of the form');
      bytes = new Uint8Array(await file.arrayBuffer());
    } else {
      bytes = new Uint8Array(await c.req.arrayBuffer());
    }
    if (bytes.length === 0) throw new ApiError('REQUEST_BODY_INVALID', 'send the PDF as the request body (Content-Type: application/pdf)');
    return c.json(await verifyReport(deps.sql, bytes), 200);
  });

  r.openapi(createRoute({
    method: 'get', path: '/keys', tags: ['attestation'], summary: 'Every signing key (active, rotated, revoked), newest version first (public)',
    responses: { 200: jsonOk(z.array(attestKeySchema), 'the keys') },
  }), async (c) => ok(c, (await listKeys(deps.sql)).map(toAttestKey), 200));

  r.openapi(createRoute({
    method: 'get', path: '/keys/{key_id}', tags: ['attestation'], summary: 'One signing key, whatever its status (public)',
    request: { params: keyParam },
    responses: { 200: jsonOk(attestKeySchema, 'the key'), 404: jsonError('NOT_FOUND') },
  }), async (c) => {
    const key = await findKey(deps.sql, c.req.valid('param').key_id);
    if (!key) throw new ApiError('NOT_FOUND', 'no attestation key with this id');
    return ok(c, toAttestKey(key), 200);
  });

  r.openapi(createRoute({
    method: 'get', path: '/ceremonies', tags: ['attestation'], summary: 'Key ceremony logs, newest first (administrators)', security: BEARER, middleware: [requireAdmin(deps)],
    request: { query: clampedOffsetQuerySchema },
    responses: { 200: jsonOk(z.object({ ceremonies: z.array(keyCeremonySchema), total: z.number().int(), limit: z.number().int(), offset: z.number().int() }), '`{ceremonies[], total, limit, offset}`'), ...ADMIN_ERRORS },
  }), async (c) => {
    const { limit, offset } = c.req.valid('query');
    const { rows, total } = await listCeremonies(deps.sql, limit, offset);
    return ok(c, { ceremonies: rows.map(toKeyCeremony), total, limit, offset }, 200);
  });

  return r;
}

/**
 * `/v1/admin/attest`: key rotation and emergency revocation (docs/api/verdicts.md "Key
 * ceremonies"), each a ceremony log naming the acting administrator and the witnesses given, and
 * an admin audit entry (`attest_key.rotate`, `attest_key.revoke`).
 */
export function adminAttestRouter(deps: AppDeps) {
  const r = createRouter();
  const guard = [requireAdmin(deps)];
  const actorsOf = async (user_id: string, witnesses: CeremonyActor[] = []): Promise<CeremonyActor[]> => {
    const [u] = await deps.sql<{ email: string }[]>`SELECT email FROM users WHERE id = ${user_id}`;
    return [{ identity: u?.email ?? user_id, role: 'administrator' }, ...witnesses];
  };

  r.openapi(createRoute({
    method: 'post', path: '/keys/rotate', tags: ['attestation'], summary: 'Rotate the signing key: a new version becomes active, the old one stays readable', security: BEARER, middleware: guard,
    request: { body: { required: false, content: { 'application/json': { schema: keyCeremonyRequestSchema } } } },
    responses: { 201: jsonOk(z.object({ key: attestKeySchema, ceremony_log_id: z.string() }), 'the new active key'), 400: jsonError('VALIDATION_FAILED'), ...ADMIN_ERRORS },
  }), async (c) => {
    const body = (c.req.valid('json') ?? {}) as z.infer<typeof keyCeremonyRequestSchema>;
    const { key, ceremony_log_id } = await rotateKey(deps, await actorsOf(c.get('principal')!.user_id, body.witnesses), body);
    await auditAdmin(c, deps, 'attest_key.rotate', key.id, { key_version: key.key_version, ceremony_log_id });
    return ok(c, { key: toAttestKey(key), ceremony_log_id }, 201);
  });

  r.openapi(createRoute({
    method: 'post', path: '/keys/{key_id}/revoke', tags: ['attestation'], summary: 'Emergency revocation of a signing key (a new key replaces an active one)', security: BEARER, middleware: guard,
    request: { params: keyParam, body: { required: false, content: { 'application/json': { schema: keyCeremonyRequestSchema } } } },
    responses: {
      200: jsonOk(z.object({ key: attestKeySchema, ceremony: keyCeremonySchema }), 'the revoked key and its ceremony'), 400: jsonError('VALIDATION_FAILED'),
      404: jsonError('NOT_FOUND'), 409: jsonError('CONFLICT: already revoked'), ...ADMIN_ERRORS,
    },
  }), async (c) => {
    const body = (c.req.valid('json') ?? {}) as z.infer<typeof keyCeremonyRequestSchema>;
    const { key_id } = c.req.valid('param');
    const { key, ceremony } = await revokeKey(deps, key_id, await actorsOf(c.get('principal')!.user_id, body.witnesses), body);
    await auditAdmin(c, deps, 'attest_key.revoke', key.id, { key_version: key.key_version, ceremony_log_id: ceremony.id });
    return ok(c, { key: toAttestKey(key), ceremony: toKeyCeremony(ceremony) }, 200);
  });

  return r;
}
