import { createRoute, z } from '@hono/zod-openapi';
import {
  adminNodeListQuerySchema, adminNodeListSchema, adminNodeSchema, adminNodeUpdateSchema, isId, type AdminNode,
} from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { auditAdmin, requireAdmin } from '../accounts/admin.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { requireAuth } from '../middleware/auth.js';
import { createRouter } from '../http/router.js';
import { getNodeForAdmin, listNodesForAdmin, type AdminNodeRow } from './admin-nodes.db.js';
import { setPlatformByAdmin } from './platform-nodes.db.js';

const idParam = z.object({ id: z.string().max(64).openapi({ param: { name: 'id', in: 'path' }, example: 'n_01jd3k6w9z4q8r2t7v5x1y3b6c' }) });
const ADMIN_ERRORS = { ...AUTH_ERRORS, 403: jsonError('FORBIDDEN: not an administrator (VANTAGE_ADMIN_EMAILS), or the credential lacks the scope') };

function toAdminNode(row: AdminNodeRow): AdminNode {
  return {
    ...row, last_seen_at: row.last_seen_at?.toISOString() ?? null, created_at: row.created_at.toISOString(),
  };
}

/**
 * `/v1/admin/nodes` (docs/api/nodes.md "Administrators"): every node of the deployment, and the
 * platform mark an administrator sets or clears (`platform_source` 'admin': the start-up sync of
 * VANTAGE_PLATFORM_NODE_OWNERS leaves it alone). Administrators only (accounts/admin.ts
 * requireAdmin); every change is written to the admin audit log (`node.platform`).
 */
export function adminNodesRouter(deps: AppDeps) {
  const r = createRouter();

  r.openapi(createRoute({
    method: 'get', path: '/', tags: ['admin'], security: BEARER, middleware: [requireAuth({ scope: 'read' }), requireAdmin(deps)],
    summary: 'Every node of the deployment, whoever owns it, with its owner, sharing and platform mark (administrators)',
    request: { query: adminNodeListQuerySchema },
    responses: { 200: jsonOk(adminNodeListSchema, '{items[], total, page, page_size, has_more}'), 400: jsonError('VALIDATION_FAILED'), ...ADMIN_ERRORS },
  }), async (c) => {
    const q = c.req.valid('query');
    const flag = (v: 'true' | 'false' | undefined) => (v === undefined ? undefined : v === 'true');
    const { rows, total } = await listNodesForAdmin(deps.sql, { platform: flag(q.platform), shared: flag(q.shared) }, q.page, q.page_size);
    return ok(c, { items: rows.map(toAdminNode), total, page: q.page, page_size: q.page_size, has_more: q.page * q.page_size < total }, 200);
  });

  r.openapi(createRoute({
    method: 'patch', path: '/{id}', tags: ['admin'], security: BEARER, middleware: [requireAuth({ scope: 'write' }), requireAdmin(deps)],
    summary: 'Mark or unmark a platform node (administrators); the mark survives VANTAGE_PLATFORM_NODE_OWNERS at the next start',
    description: 'A platform node serves every account\'s probes and monitors and is trusted with their secret request headers (docs/api/nodes.md "Platform nodes"). The monitors placed on the node are placed again when the mark changes.',
    request: { params: idParam, body: jsonBody(adminNodeUpdateSchema) },
    responses: { 200: jsonOk(adminNodeSchema, 'the node'), 400: jsonError('VALIDATION_FAILED'), 404: jsonError('NODE_NOT_FOUND'), ...ADMIN_ERRORS },
  }), async (c) => {
    const { id } = c.req.valid('param');
    const { platform } = c.req.valid('json');
    const changed = isId('node', id) ? await setPlatformByAdmin(deps.sql, id, platform) : null;
    if (!changed) throw new ApiError('NODE_NOT_FOUND', `no node ${id}`);
    await auditAdmin(c, deps, 'node.platform', id, { platform, before: changed.before });
    const row = await getNodeForAdmin(deps.sql, id);
    if (!row) throw new ApiError('NODE_NOT_FOUND', `no node ${id}`);
    return ok(c, toAdminNode(row), 200);
  });

  return r;
}
