import { createRoute, z } from '@hono/zod-openapi';
import { apiKeyListSchema, createApiKeyRequestSchema, createdApiKeySchema, idSchema, offsetQuerySchema } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { createAccessKey, toApiKey } from './access-keys.js';
import { listAccessKeys, revokeAccessKey } from './api-keys.db.js';
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
  responses: { 201: jsonOk(createdApiKeySchema, 'the key with its secret in `key`'), 400: jsonError('validation failed'), ...AUTH_ERRORS, 403: jsonError('FORBIDDEN: missing scope, or a key or token asking for scopes it does not hold') },
});
const revoke = createRoute({
  method: 'delete', path: '/{id}', tags: ['api-keys'], summary: 'Revoke an API key (later use answers 401 API_KEY_REVOKED)', security: BEARER, middleware: write,
  request: { params: idParam },
  responses: { 200: jsonOk(z.null(), 'revoked'), 404: jsonError('API_KEY_NOT_FOUND'), ...AUTH_ERRORS },
});

/** `/v1/account/api-keys`: list, create (`sk_live_`/`sk_test_`, secret once), revoke (docs/api/accounts.md). */
export function apiKeysRouter(deps: AppDeps) {
  const r = createRouter();

  r.openapi(list, async (c) => {
    const { limit, offset } = c.req.valid('query');
    const { rows, total } = await listAccessKeys(deps.sql, c.get('principal')!.user_id, 'api_key', limit, offset);
    return ok(c, { api_keys: rows.map(toApiKey), total, limit, offset }, 200);
  });

  r.openapi(create, async (c) => {
    const body = c.req.valid('json');
    const { row, secret } = await createAccessKey(deps.sql, c.get('principal')!, { ...body, kind: 'api_key' });
    return ok(c, { ...toApiKey(row), key: secret }, 201);
  });

  r.openapi(revoke, async (c) => {
    const { id } = c.req.valid('param');
    const row = idSchema('api_key').safeParse(id).success ? await revokeAccessKey(deps.sql, c.get('principal')!.user_id, 'api_key', id) : null;
    if (!row) throw new ApiError('API_KEY_NOT_FOUND', 'no such API key');
    return ok(c, null, 200);
  });

  return r;
}
