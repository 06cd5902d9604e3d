import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import {
  CLOCK_SKEW_MAX_MS, isId, nodeDetailSchema, nodeListQuerySchema, nodeListSchema, nodeUpdateSchema,
  type NodeDetail, type NodeListItem,
} from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { changeNodeStatus, getNode, listNodesJson, removeNode, updateNode, type NodeRow } from './nodes.db.js';
import { DirectoryCache } from './directory-cache.js';
import { ApiError } from '../errors.js';
import { canDisconnect, type DropReason } from '../contracts.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok, okPage } from '../http/respond.js';
import { requireAuth } from '../middleware/auth.js';
import { createRouter } from '../http/router.js';
import { actorOf, allows, authorize, ownerScope, type Actor, type Owner } from '../teams/authorize.js';

const write = [requireAuth({ scope: 'write' })];
const idParam = z.object({ id: z.string().max(64).openapi({ param: { name: 'id', in: 'path' }, example: 'n_01jd3k6w9z4q8r2t7v5x1y3b6c' }) });
const statusData = z.object({ id: z.string(), status: z.string() });
const OWNER_ERRORS = {
  ...AUTH_ERRORS,
  403: jsonError('FORBIDDEN: the credential lacks the required scope, or someone else\'s node, or a team\'s node and a role that cannot change it (viewer; details: team_id, role, required_role)'),
  404: jsonError('NODE_NOT_FOUND'),
};

const list = createRoute({
  method: 'get', path: '/', tags: ['nodes'],
  summary: 'Node directory: filters country, region, provider, status, asn, tag; mine=true lists the caller\'s nodes',
  description: 'A public page (without mine) is served for up to 1 s after it was read (VANTAGE_NODE_LIST_CACHE_MS); mine=true is read afresh.',
  request: { query: nodeListQuerySchema },
  responses: { 200: jsonOk(nodeListSchema, '{items[], total, page, page_size, has_more}'), 400: jsonError('VALIDATION_FAILED'), 401: jsonError('mine=true without a credential') },
});
const read = createRoute({
  method: 'get', path: '/{id}', tags: ['nodes'], summary: 'One node (public); owner-only fields are null for others',
  request: { params: idParam },
  responses: { 200: jsonOk(nodeDetailSchema, 'the node'), 404: jsonError('NODE_NOT_FOUND') },
});
const patch = createRoute({
  method: 'patch', path: '/{id}', tags: ['nodes'], security: BEARER, middleware: write,
  summary: "Rename a node, set its tags, allow private targets on it or share it with other accounts (owner only)",
  description: '`shared`: whether other accounts\' probes and monitors may run on the node (docs/api/nodes.md "Sharing"); turning it off moves other accounts\' monitors off the node.',
  request: { params: idParam, body: jsonBody(nodeUpdateSchema) },
  responses: { 200: jsonOk(nodeDetailSchema, 'the updated node'), 400: jsonError('VALIDATION_FAILED'), ...OWNER_ERRORS },
});
const disable = createRoute({
  method: 'post', path: '/{id}/disable', tags: ['nodes'], security: BEARER, middleware: write,
  summary: 'Disable a node: its socket is closed (4003) and it cannot reconnect until enabled (owner only)',
  request: { params: idParam },
  responses: { 200: jsonOk(statusData, '{id, status: disabled}'), 409: jsonError('NODE_ALREADY_BANNED'), ...OWNER_ERRORS },
});
const enable = createRoute({
  method: 'post', path: '/{id}/enable', tags: ['nodes'], security: BEARER, middleware: write,
  summary: 'Enable a disabled node (owner only); it comes online when its agent reconnects',
  request: { params: idParam },
  responses: { 200: jsonOk(statusData, '{id, status: offline}'), 409: jsonError('NODE_NOT_BANNED'), ...OWNER_ERRORS },
});
const remove = createRoute({
  method: 'delete', path: '/{id}', tags: ['nodes'], security: BEARER, middleware: write,
  summary: 'Remove a node: credential revoked, socket closed (4004); its past results are kept (owner only)',
  request: { params: idParam },
  responses: { 200: jsonOk(z.null(), 'removed'), ...OWNER_ERRORS },
});

function toItem(row: NodeRow): NodeListItem {
  return {
    id: row.id, name: row.name, country: row.country, region: row.region, city: row.city, asn: row.asn,
    provider: row.provider, status: row.status, tags: row.tags, capabilities: row.capabilities,
    last_seen_at: row.last_seen_at?.toISOString() ?? null,
  };
}

/** A node's owner for teams/authorize.ts; null for a node nobody enrolled (it has no owner to act for). */
function ownerOf(row: NodeRow): Owner | null {
  return row.owner_user_id === null ? null : { user_id: row.owner_user_id, team_id: row.team_id };
}

function toDetail(row: NodeRow, actor: Actor | null): NodeDetail {
  const node_owner = ownerOf(row);
  const owner = actor !== null && node_owner !== null && allows(actor, node_owner, 'read');
  return {
    ...toItem(row), isp: row.isp, agent_version: row.agent_version, created_at: row.created_at.toISOString(),
    ip_address: owner ? row.ip_address : null, allow_private: owner ? row.allow_private : null, is_owner: owner,
    team_id: owner ? row.team_id : null, platform: row.platform, shared: row.shared,
    clock_offset_ms: row.clock_offset_ms, clock_skewed: Math.abs(row.clock_offset_ms ?? 0) > CLOCK_SKEW_MAX_MS,
    clock_reported_at: row.clock_offset_at?.toISOString() ?? null,
    outbox: owner && row.outbox_reported_at ? {
      pending: row.outbox_pending ?? 0, dropped_total: row.outbox_dropped_total ?? 0,
      oldest_pending_at: row.outbox_oldest_pending_at?.toISOString() ?? null, reported_at: row.outbox_reported_at.toISOString(),
    } : null,
  };
}

/** `/v1/nodes`: the public directory (docs/api/nodes.md) and owner management (docs/api/nodes.md). */
export function nodesRouter(deps: AppDeps) {
  const r = createRouter();
  // Public pages are the same for everyone: kept briefly, dropped when a node changes here.
  const directory = new DirectoryCache<{ items_json: string; total: number }>(deps.config.node_list_cache_ms);

  /**
   * The node `id`, which the caller may change: its own personal node, or a node of a team where
   * its role writes (teams/authorize.ts). Nodes are public (the directory), so someone else's node
   * answers 403, not 404.
   * @throws NODE_NOT_FOUND; FORBIDDEN (someone else's node; a viewer of the node's team, with details)
   */
  async function owned(c: Context<AppEnv>, id: string): Promise<{ row: NodeRow; actor: Actor }> {
    const row = isId('node', id) ? await getNode(deps.sql, id) : null;
    if (!row) throw new ApiError('NODE_NOT_FOUND', `no node ${id}`);
    const owner = ownerOf(row);
    const actor = await actorOf(c, deps);
    if (!owner || !allows(actor, owner, 'read')) throw new ApiError('FORBIDDEN', 'only the owner of this node (or its team\'s members) may change it');
    await authorize(c, deps, owner, 'write', 'NODE_NOT_FOUND', 'node');
    return { row, actor };
  }

  async function drop(id: string, reason: DropReason): Promise<void> {
    if (!canDisconnect(deps.hub)) return;
    await deps.hub.disconnect(id, reason).catch((err: unknown) => deps.log.warn({ err, node_id: id }, 'node disconnect notify failed'));
  }

  r.openapi(list, async (c) => {
    const q = c.req.valid('query');
    const principal = c.get('principal');
    if (q.mine === 'true' && !principal) throw new ApiError('AUTH_REQUIRED', 'mine=true needs a credential');
    const filter = { country: q.country, region: q.region, provider: q.provider, status: q.status, asn: q.asn, tag: q.tag };
    const owners = q.mine === 'true' ? await ownerScope(c, deps, 'read', q.team_id) : undefined;
    const read = () => listNodesJson(deps.sql, { ...filter, owners }, q.page, q.page_size);
    const { items_json, total } = q.mine === 'true' ? await read() : await directory.get(JSON.stringify([filter, q.page, q.page_size]), read);
    // The items' JSON as the database wrote it (nodes.db.ts listNodesJson), in the success envelope.
    return okPage(c, items_json, { total, page: q.page, page_size: q.page_size, has_more: q.page * q.page_size < total }) as never;
  });

  r.openapi(read, async (c) => {
    const { id } = c.req.valid('param');
    const row = isId('node', id) ? await getNode(deps.sql, id) : null;
    if (!row) throw new ApiError('NODE_NOT_FOUND', `no node ${id}`);
    return ok(c, toDetail(row, c.get('principal') ? await actorOf(c, deps) : null), 200);
  });

  r.openapi(patch, async (c) => {
    const { id } = c.req.valid('param');
    const { actor } = await owned(c, id);
    const row = await updateNode(deps.sql, id, c.req.valid('json'));
    directory.clear();
    if (!row) throw new ApiError('NODE_NOT_FOUND', `no node ${id}`);
    return ok(c, toDetail(row, actor), 200);
  });

  r.openapi(disable, async (c) => {
    const { id } = c.req.valid('param');
    const { row: current } = await owned(c, id);
    const row = await changeNodeStatus(deps.sql, id, ['online', 'offline'], 'disabled');
    directory.clear();
    if (!row) throw new ApiError('NODE_ALREADY_BANNED', `node is already ${current.status}`);
    await drop(id, 'node_disabled');
    return ok(c, { id, status: row.status }, 200);
  });

  r.openapi(enable, async (c) => {
    const { id } = c.req.valid('param');
    const { row: current } = await owned(c, id);
    if (current.status === 'banned') throw new ApiError('FORBIDDEN', 'this node was banned by an operator; its owner cannot lift the ban');
    const row = await changeNodeStatus(deps.sql, id, ['disabled'], 'offline');
    directory.clear();
    if (!row) throw new ApiError('NODE_NOT_BANNED', `node is ${current.status}, not disabled`);
    return ok(c, { id, status: row.status }, 200);
  });

  r.openapi(remove, async (c) => {
    const { id } = c.req.valid('param');
    await owned(c, id);
    const removed = await removeNode(deps.sql, id);
    directory.clear();
    if (!removed) throw new ApiError('NODE_NOT_FOUND', `no node ${id}`);
    await drop(id, 'node_removed');
    return ok(c, null, 200);
  });

  return r;
}
