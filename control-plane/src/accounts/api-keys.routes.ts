import { createRoute, z } from '@hono/zod-openapi';
import { apiKeyListSchema, createApiKeyRequestSchema, createdApiKeySchema, idSchema, offsetQuerySchema } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { createAccessKey, toApiKey } from './access-keys.js';
import { findApiKey, listAccessKeys, revokeAccessKeyById } from './api-keys.db.js';
import { authorize } from '../teams/authorize.js';
import { workspaceOf } from './workspace-tokens.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { requireAuth } from '../middleware/auth.js';
import { createRouter } from '../http/router.js';

const read = [requireAuth({ scope: 'read' })];
const write = [requireAuth({ scope: 'write' })];
const idParam = z.object({ id: z.string().max(64).openapi({ param: { name: 'id', in: 'path' }, example: 'key_01jd3k6w9z4q8r2t7v5x1y3b6c' }) });

const list = createRoute({
  method: 'get', path: '/', tags: ['api-keys'], summary: 'List API keys, newest first', security: BEARER, middleware: read,
  request: { query: offsetQuerySchema },
  responses: { 200: jsonOk(apiKeyListSchema, '{api_keys[], total, limit, offset}; no secrets'), ...AUTH_ERRORS },
});
const create = createRoute({
  method: 'post', path: '/', tags: ['api-keys'], summary: 'Create an API key; the secret is returned once', security: BEARER, middleware: write,
  request: { body: jsonBody(createApiKeyRequestSchema) },
  responses: {
    201: jsonOk(createdApiKeySchema, 'the key with its secret in `key`'), 400: jsonError('validation failed'), ...AUTH_ERRORS,
    403: jsonError('FORBIDDEN: missing scope, a key or token asking for scopes it does not hold, or a team role below admin for `team_id`'),
    404: jsonError('TEAM_NOT_FOUND: `team_id` names no team of yours'),
  },
});
const revoke = createRoute({
  method: 'delete', path: '/{id}', tags: ['api-keys'], summary: 'Revoke an API key (later use answers 401 API_KEY_REVOKED); team admins also revoke their team\'s workspace tokens', security: BEARER, middleware: write,
  request: { params: idParam },
  responses: { 200: jsonOk(z.null(), 'revoked'), 404: jsonError('API_KEY_NOT_FOUND'), ...AUTH_ERRORS },
});

/** `/v1/account/api-keys`: list, create (`sk_live_`/`sk_test_`, secret once), revoke (docs/api/accounts.md). */
export function apiKeysRouter(deps: AppDeps) {
  const r = createRouter();

  r.openapi(list, async (c) => {
    const { limit, offset } = c.req.valid('query');
    const principal = c.get('principal')!;
    const { rows, total } = await listAccessKeys(deps.sql, principal.user_id, 'api_key', limit, offset, principal.team_id ?? null);
    return ok(c, { api_keys: rows.map(toApiKey), total, limit, offset }, 200);
  });

  r.openapi(create, async (c) => {
    const body = c.req.valid('json');
    const team_id = await workspaceOf(c, deps, body.team_id);
    const { row, secret } = await createAccessKey(deps.sql, c.get('principal')!, { ...body, team_id, kind: 'api_key' });
    return ok(c, { ...toApiKey(row), key: secret }, 201);
  });

  r.openapi(revoke, async (c) => {
    const { id } = c.req.valid('param');
    const key = idSchema('api_key').safeParse(id).success ? await findApiKey(deps.sql, id) : null;
    // Its creator revokes it (a workspace token only its own team's keys); a team admin or owner any of the team's.
    const principal = c.get('principal')!;
    const own = key !== null && key.user_id === principal.user_id && (!principal.team_id || key.team_id === principal.team_id);
    if (!own) {
      if (!key?.team_id) throw new ApiError('API_KEY_NOT_FOUND', 'no such API key');
      await authorize(c, deps, { user_id: key.user_id, team_id: key.team_id }, 'manage', 'API_KEY_NOT_FOUND', 'API key');
    }
    await revokeAccessKeyById(deps.sql, key!.id);
    return ok(c, null, 200);
  });

  return r;
}
