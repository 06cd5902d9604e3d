import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { createdMcpTokenSchema, createMcpTokenRequestSchema, isId, mcpTokenSchema, revokeMcpTokenRequestSchema, updateMcpTokenRequestSchema } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { authorize } from '../teams/authorize.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { requireAuth } from '../middleware/auth.js';
import { createRouter } from '../http/router.js';
import { findMcpToken, insertMcpToken, listMcpTokens, revokeMcpToken, updateMcpToken, type McpTokenRow } from './mcp-tokens.db.js';
import { withinQuota } from '../billing/quotas.js';
import { expiryFor, newMcpToken, requireWhitelist, toMcpToken } from './token-rules.js';

const read = [requireAuth({ scope: 'read' })];
const write = [requireAuth({ scope: 'write' })];
const idParam = z.object({ id: z.string().max(64).openapi({ param: { name: 'id', in: 'path' }, example: 'mcpt_01jd3k6w9z4q8r2t7v5x1y3b6c' }) });
const RULES = jsonError('validation_error: a service token without ip_whitelist, or expires_at past the type\'s maximum (personal 24 h, workspace and service 90 days)');
const NOT_FOUND = jsonError('NOT_FOUND: no MCP token of yours with this id');

const list = createRoute({
  method: 'get', path: '/', tags: ['mcp'], summary: 'List MCP tokens, newest first (plain array, no secrets)', security: BEARER, middleware: read,
  responses: { 200: jsonOk(z.array(mcpTokenSchema), 'the tokens'), ...AUTH_ERRORS },
});
const create = createRoute({
  method: 'post', path: '/', tags: ['mcp'], summary: 'Create an MCP token; the svc_mcp_ secret is returned once', security: BEARER, middleware: write,
  request: { body: jsonBody(createMcpTokenRequestSchema) },
  responses: { 201: jsonOk(createdMcpTokenSchema, '`{token, secret}`'), 400: jsonError('VALIDATION_FAILED'), 422: RULES, ...AUTH_ERRORS },
});
const get = createRoute({
  method: 'get', path: '/{id}', tags: ['mcp'], summary: 'Read an MCP token', security: BEARER, middleware: read,
  request: { params: idParam },
  responses: { 200: jsonOk(mcpTokenSchema, 'the token'), 404: NOT_FOUND, ...AUTH_ERRORS },
});
const update = createRoute({
  method: 'patch', path: '/{id}', tags: ['mcp'], summary: 'Change an MCP token (name, expiry, auto-renew, whitelist, scope)', security: BEARER, middleware: write,
  request: { params: idParam, body: jsonBody(updateMcpTokenRequestSchema) },
  responses: { 200: jsonOk(mcpTokenSchema, 'the token after'), 400: jsonError('VALIDATION_FAILED'), 404: NOT_FOUND, 409: jsonError('CONFLICT: the token is revoked'), 422: RULES, ...AUTH_ERRORS },
});
const revoke = createRoute({
  method: 'delete', path: '/{id}', tags: ['mcp'], summary: 'Revoke an MCP token, with an optional revoke_reason', security: BEARER, middleware: write,
  request: { params: idParam, body: { required: false, content: { 'application/json': { schema: revokeMcpTokenRequestSchema } } } },
  responses: { 200: jsonOk(mcpTokenSchema, 'the revoked token'), 404: NOT_FOUND, ...AUTH_ERRORS },
});

/** `/v1/mcp/tokens`: MCP tokens of the caller (docs/api/mcp.md "Tokens"). `now` is the clock (ms), for tests. */
export function mcpTokensRouter(deps: AppDeps, now: () => number = Date.now) {
  const r = createRouter();

  /** The token `id` the caller may `access` (teams/authorize.ts); another account's answers 404. */
  async function tokenFor(c: Context<AppEnv>, id: string, access: 'read' | 'write'): Promise<McpTokenRow> {
    const row = isId('mcp_token', id) ? await findMcpToken(deps.sql, id) : null;
    await authorize(c, deps, row && { user_id: row.user_id, team_id: row.team_id }, access, 'NOT_FOUND', 'MCP token');
    return row!;
  }

  r.openapi(list, async (c) => {
    const principal = c.get('principal')!;
    return ok(c, (await listMcpTokens(deps.sql, principal.user_id, principal.team_id ?? null)).map(toMcpToken), 200);
  });

  r.openapi(create, async (c) => {
    const principal = c.get('principal')!;
    const { fields, secret } = newMcpToken({ user_id: principal.user_id, team_id: principal.team_id ?? null }, c.req.valid('json'), now());
    const row = await withinQuota(deps, { user_id: principal.user_id, team_id: null }, 'mcp_tokens', (tx) => insertMcpToken(tx, fields));
    return ok(c, { token: toMcpToken(row), secret }, 201);
  });

  r.openapi(get, async (c) => ok(c, toMcpToken(await tokenFor(c, c.req.valid('param').id, 'read')), 200));

  r.openapi(update, async (c) => {
    const row = await tokenFor(c, c.req.valid('param').id, 'write');
    if (row.revoked_at) throw new ApiError('CONFLICT', 'a revoked MCP token cannot be changed');
    const body = c.req.valid('json');
    if (body.ip_whitelist !== undefined) requireWhitelist(row.type, body.ip_whitelist);
    const after = await updateMcpToken(deps.sql, row.id, {
      name: body.name, auto_renew: row.type === 'personal' ? undefined : body.auto_renew, ip_whitelist: body.ip_whitelist,
      expires_at: body.expires_at === undefined ? undefined : expiryFor(row.type, body.expires_at, now()),
      scope_tools: body.scope?.tools, scope_regions: body.scope?.regions, store_failed_payloads: body.store_failed_payloads,
    });
    if (!after) throw new ApiError('NOT_FOUND', 'MCP token not found');
    return ok(c, toMcpToken(after), 200);
  });

  r.openapi(revoke, async (c) => {
    const row = await tokenFor(c, c.req.valid('param').id, 'write');
    const body = (c.req.valid('json') ?? {}) as { revoke_reason?: string };
    const after = await revokeMcpToken(deps.sql, row.id, body.revoke_reason ?? null);
    if (!after) throw new ApiError('NOT_FOUND', 'MCP token not found');
    return ok(c, toMcpToken(after), 200);
  });

  return r;
}
