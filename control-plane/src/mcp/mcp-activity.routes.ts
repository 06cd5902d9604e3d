import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import {
  isId, mcpSessionListQuerySchema, mcpSessionPageSchema, mcpSessionSchema, mcpToolCallListQuerySchema, mcpToolCallPageSchema, mcpToolCallSchema, resolveTime,
  type McpSession, type McpToolCall,
} from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { authorize } from '../teams/authorize.js';
import { AUTH_ERRORS, BEARER, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { requireAuth } from '../middleware/auth.js';
import { createRouter } from '../http/router.js';
import { findMcpSession, findMcpToolCall, listMcpSessions, listMcpToolCalls, type McpSessionRow, type McpToolCallRow } from './mcp-activity.db.js';

const read = [requireAuth({ scope: 'read' })];
const idParam = (example: string) => z.object({ id: z.string().max(64).openapi({ param: { name: 'id', in: 'path' }, example }) });

const listSessions = createRoute({
  method: 'get', path: '/sessions', tags: ['mcp'], summary: 'List MCP sessions, newest first', security: BEARER, middleware: read,
  request: { query: mcpSessionListQuerySchema },
  responses: { 200: jsonOk(mcpSessionPageSchema, '{items[], total, page, page_size, has_more}'), 400: jsonError('VALIDATION_FAILED'), ...AUTH_ERRORS },
});
const getSession = createRoute({
  method: 'get', path: '/sessions/{id}', tags: ['mcp'], summary: 'Read an MCP session', security: BEARER, middleware: read,
  request: { params: idParam('mcps_01jd3k6w9z4q8r2t7v5x1y3b6c') },
  responses: { 200: jsonOk(mcpSessionSchema, 'the session'), 404: jsonError('NOT_FOUND'), ...AUTH_ERRORS },
});
const listCalls = createRoute({
  method: 'get', path: '/tool-calls', tags: ['mcp'], summary: 'List MCP tool calls, newest first (filters session_id, tool_name, status, from, to)', security: BEARER, middleware: read,
  request: { query: mcpToolCallListQuerySchema },
  responses: { 200: jsonOk(mcpToolCallPageSchema, '{items[], total, page, page_size, has_more}'), 400: jsonError('VALIDATION_FAILED'), ...AUTH_ERRORS },
});
const getCall = createRoute({
  method: 'get', path: '/tool-calls/{id}', tags: ['mcp'], summary: 'Read an MCP tool call', security: BEARER, middleware: read,
  request: { params: idParam('mctc_01jd3k6w9z4q8r2t7v5x1y3b6c') },
  responses: { 200: jsonOk(mcpToolCallSchema, 'the tool call'), 404: jsonError('NOT_FOUND'), ...AUTH_ERRORS },
});

/** The McpSession wire shape of a row. */
export function toMcpSession(row: McpSessionRow): McpSession {
  return {
    id: row.id, owner_id: row.user_id, token_id: row.token_id, client_id: row.client_id, client_ip: row.client_ip, client_version: row.client_version,
    started_at: row.started_at.toISOString(), last_activity_at: row.last_activity_at.toISOString(), ended_at: row.ended_at?.toISOString() ?? null,
    total_tool_calls: row.total_tool_calls, total_units: row.total_units,
  };
}

/** The McpToolCall wire shape of a row. */
export function toMcpToolCall(row: McpToolCallRow): McpToolCall {
  return {
    id: row.id, owner_id: row.user_id, session_id: row.session_id, tool_name: row.tool_name, status: row.status, latency_ms: row.latency_ms,
    error_class: row.error_class, error_detail: row.error_detail, request_payload_hash: row.request_payload_hash, response_payload_hash: row.response_payload_hash,
    request_bytes: row.request_bytes, response_bytes: row.response_bytes, request_payload_raw: row.request_payload_raw, response_payload_raw: row.response_payload_raw,
    payload_retain_until: row.payload_retain_until?.toISOString() ?? null, created_at: row.created_at.toISOString(),
  };
}

/** `/v1/mcp/sessions` and `/v1/mcp/tool-calls`: what happened at the MCP entry point (docs/api/mcp.md "Sessions", "Tool calls"). */
export function mcpActivityRouter(deps: AppDeps) {
  const r = createRouter();
  // Sessions and calls are their account's alone (personal records, like the tokens' use).
  const mine = (c: Context<AppEnv>, row: { user_id: string } | null) => authorize(c, deps, row && { user_id: row.user_id, team_id: null }, 'read', 'NOT_FOUND', 'MCP record');

  r.openapi(listSessions, async (c) => {
    const q = c.req.valid('query');
    const { rows, total } = await listMcpSessions(deps.sql, c.get('principal')!.user_id, q);
    return ok(c, { items: rows.map(toMcpSession), total, page: q.page, page_size: q.page_size, has_more: q.page * q.page_size < total }, 200);
  });

  r.openapi(getSession, async (c) => {
    const { id } = c.req.valid('param');
    const row = isId('mcp_session', id) ? await findMcpSession(deps.sql, id) : null;
    await mine(c, row);
    return ok(c, toMcpSession(row!), 200);
  });

  r.openapi(listCalls, async (c) => {
    const q = c.req.valid('query');
    const now = Date.now();
    const { rows, total } = await listMcpToolCalls(deps.sql, c.get('principal')!.user_id, {
      ...q, from: q.from === undefined ? undefined : new Date(resolveTime(q.from, now)), to: q.to === undefined ? undefined : new Date(resolveTime(q.to, now)),
    });
    return ok(c, { items: rows.map(toMcpToolCall), total, page: q.page, page_size: q.page_size, has_more: q.page * q.page_size < total }, 200);
  });

  r.openapi(getCall, async (c) => {
    const { id } = c.req.valid('param');
    const row = isId('mcp_tool_call', id) ? await findMcpToolCall(deps.sql, id) : null;
    await mine(c, row);
    return ok(c, toMcpToolCall(row!), 200);
  });

  return r;
}
