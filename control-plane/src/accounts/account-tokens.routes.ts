import { createRoute, z } from '@hono/zod-openapi';
import { createdPatSchema, createPatRequestSchema, idSchema, offsetQuerySchema, patListSchema } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { createAccessKey, toPat } from './access-keys.js';
import { refusePersonalFromWorkspace } from './workspace-tokens.js';
import { listAccessKeys, revokeAccessKey } from './api-keys.db.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { requireAuth } from '../middleware/auth.js';
import { createRouter } from '../http/router.js';

const read = [requireAuth({ scope: 'read' })];
const write = [requireAuth({ scope: 'write' })];
const idParam = z.object({ id: z.string().max(64).openapi({ param: { name: 'id', in: 'path' }, example: 'pat_01jd3k6w9z4q8r2t7v5x1y3b6c' }) });

const list = createRoute({
  method: 'get', path: '/', tags: ['tokens'], summary: 'List personal access tokens, newest first', security: BEARER, middleware: read,
  request: { query: offsetQuerySchema },
  responses: { 200: jsonOk(patListSchema, '{tokens[], total, limit, offset}; no secrets'), ...AUTH_ERRORS },
});
const create = createRoute({
  method: 'post', path: '/', tags: ['tokens'], summary: 'Create a personal access token (svc_pat_); secret returned once', security: BEARER, middleware: write,
  request: { body: jsonBody(createPatRequestSchema) },
  responses: { 201: jsonOk(createdPatSchema, 'the token with its secret in `token`'), 400: jsonError('validation failed'), ...AUTH_ERRORS, 403: jsonError('FORBIDDEN: missing scope, or a key or token asking for scopes it does not hold') },
});
const revoke = createRoute({
  method: 'delete', path: '/{id}', tags: ['tokens'], summary: 'Revoke a personal access token', security: BEARER, middleware: write,
  request: { params: idParam },
  responses: { 200: jsonOk(z.null(), 'revoked'), 404: jsonError('PAT_NOT_FOUND'), ...AUTH_ERRORS },
});

/** `/v1/account/tokens`: personal access tokens (`svc_pat_`): list, create, revoke (docs/api/conventions.md). */
export function accountTokensRouter(deps: AppDeps) {
  const r = createRouter();

  r.openapi(list, async (c) => {
    const { limit, offset } = c.req.valid('query');
    const principal = c.get('principal')!;
    // A workspace token acts for its team only: it sees no personal access tokens.
    const { rows, total } = await listAccessKeys(deps.sql, principal.user_id, 'pat', limit, offset, principal.team_id ?? null);
    return ok(c, { tokens: rows.map(toPat), total, limit, offset }, 200);
  });

  r.openapi(create, async (c) => {
    const body = c.req.valid('json');
    refusePersonalFromWorkspace(c);
    const { row, secret } = await createAccessKey(deps.sql, c.get('principal')!, { ...body, kind: 'pat' });
    return ok(c, { ...toPat(row), token: secret }, 201);
  });

  r.openapi(revoke, async (c) => {
    const { id } = c.req.valid('param');
    const row = idSchema('pat').safeParse(id).success && !c.get('principal')!.team_id ? await revokeAccessKey(deps.sql, c.get('principal')!.user_id, 'pat', id) : null;
    if (!row) throw new ApiError('PAT_NOT_FOUND', 'no such personal access token');
    return ok(c, null, 200);
  });

  return r;
}
