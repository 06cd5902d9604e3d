import { createRoute, z } from '@hono/zod-openapi';
import {
  isId, leaderboardMonitorListSchema, leaderboardMonitorRequestSchema, leaderboardMonitorSchema, optOutDecisionRequestSchema, optOutListQuerySchema,
  optOutListSchema, optOutSchema,
} from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { auditAdmin, requireAdmin } from '../accounts/admin.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { deleteLeaderboardMonitor, listLeaderboardMonitors, upsertLeaderboardMonitor, type LeaderboardMonitorRow } from './leaderboards.db.js';
import { findOptOut, listOptOuts } from './opt-outs.db.js';
import { decide } from './opt-outs.js';
import { toOptOut } from './view.js';

const ADMIN_ERRORS = { ...AUTH_ERRORS, 403: jsonError('FORBIDDEN: not an administrator of this deployment, or (changes) a credential without the write scope') };
const monitorParam = z.object({ monitor_id: z.string().max(64).openapi({ param: { name: 'monitor_id', in: 'path' }, example: 'm_01jd3k6w9z4q8r2t7v5x1y3b6c' }) });
const idParam = z.object({ id: z.string().max(64).openapi({ param: { name: 'id', in: 'path' }, example: 'lbo_01jd3k6w9z4q8r2t7v5x1y3b6c' }) });

const toMonitor = (m: LeaderboardMonitorRow) => ({ ...m, created_at: m.created_at.toISOString(), updated_at: m.updated_at.toISOString() });

/**
 * `/v1/admin`: what leaderboard reports are computed from (docs/api/leaderboards.md): the
 * leaderboard monitors (`/leaderboard-monitors`, a vendor and a category per monitor) and the
 * vendors' opt-out requests (`/leaderboard-opt-outs`, decided once; the applicant is e-mailed).
 * Audit-logged: `leaderboard_monitor.set`, `leaderboard_monitor.delete`, `leaderboard_opt_out.decide`.
 */
export function adminLeaderboardInputsRouter(deps: AppDeps) {
  const r = createRouter();
  const guard = [requireAdmin(deps)];

  r.openapi(createRoute({
    tags: ['admin'], security: BEARER, middleware: guard, method: 'get', path: '/leaderboard-monitors', summary: 'List the leaderboard monitors by category and vendor',
    responses: { 200: jsonOk(leaderboardMonitorListSchema, '{items[]}'), ...ADMIN_ERRORS },
  }), async (c) => ok(c, { items: (await listLeaderboardMonitors(deps.sql)).map(toMonitor) }, 200));

  r.openapi(createRoute({
    tags: ['admin'], security: BEARER, middleware: guard, method: 'put', path: '/leaderboard-monitors/{monitor_id}', summary: 'Mark a monitor as a leaderboard monitor of a vendor and category (or change its mark)',
    request: { params: monitorParam, body: jsonBody(leaderboardMonitorRequestSchema) },
    responses: { 200: jsonOk(leaderboardMonitorSchema, 'the mark'), 400: jsonError('VALIDATION_FAILED'), 404: jsonError('MONITOR_NOT_FOUND'), ...ADMIN_ERRORS },
  }), async (c) => {
    const { monitor_id } = c.req.valid('param');
    const body = c.req.valid('json');
    if (!isId('monitor', monitor_id) || !(await upsertLeaderboardMonitor(deps.sql, monitor_id, body.vendor_name, body.category))) {
      throw new ApiError('MONITOR_NOT_FOUND', 'no monitor with this id');
    }
    await auditAdmin(c, deps, 'leaderboard_monitor.set', monitor_id, body);
    return ok(c, toMonitor((await listLeaderboardMonitors(deps.sql, monitor_id))[0]!), 200);
  });

  r.openapi(createRoute({
    tags: ['admin'], security: BEARER, middleware: guard, method: 'delete', path: '/leaderboard-monitors/{monitor_id}', summary: 'Unmark a leaderboard monitor (the monitor stays)',
    request: { params: monitorParam },
    responses: { 200: jsonOk(z.null(), 'unmarked'), 404: jsonError('NOT_FOUND: the monitor is not a leaderboard monitor'), ...ADMIN_ERRORS },
  }), async (c) => {
    const { monitor_id } = c.req.valid('param');
    if (!isId('monitor', monitor_id) || !(await deleteLeaderboardMonitor(deps.sql, monitor_id))) throw new ApiError('NOT_FOUND', 'the monitor is not a leaderboard monitor');
    await auditAdmin(c, deps, 'leaderboard_monitor.delete', monitor_id);
    return ok(c, null, 200);
  });

  r.openapi(createRoute({
    tags: ['admin'], security: BEARER, middleware: guard, method: 'get', path: '/leaderboard-opt-outs', summary: 'List opt-out requests, newest first, optionally by status',
    request: { query: optOutListQuerySchema },
    responses: { 200: jsonOk(optOutListSchema, '{items[], total, page, page_size, has_more}'), 400: jsonError('VALIDATION_FAILED'), ...ADMIN_ERRORS },
  }), async (c) => {
    const q = c.req.valid('query');
    const { rows, total } = await listOptOuts(deps.sql, q.status, q.page_size, (q.page - 1) * q.page_size);
    return ok(c, { items: rows.map(toOptOut), total, page: q.page, page_size: q.page_size, has_more: q.page * q.page_size < total }, 200);
  });

  r.openapi(createRoute({
    tags: ['admin'], security: BEARER, middleware: guard, method: 'post', path: '/leaderboard-opt-outs/{id}/decision', summary: 'Approve or reject a pending opt-out request; the applicant is e-mailed the decision',
    request: { params: idParam, body: jsonBody(optOutDecisionRequestSchema) },
    responses: { 200: jsonOk(optOutSchema, 'the decided request'), 400: jsonError('VALIDATION_FAILED'), 404: jsonError('NOT_FOUND'), 409: jsonError('CONFLICT: already decided'), ...ADMIN_ERRORS },
  }), async (c) => {
    const { id } = c.req.valid('param');
    const current = isId('leaderboard_opt_out', id) ? await findOptOut(deps.sql, id) : null;
    if (!current) throw new ApiError('NOT_FOUND', 'no opt-out request with this id');
    const body = c.req.valid('json');
    const row = await decide(deps, id, { ...body, decided_by: c.get('principal')!.user_id }, current);
    await auditAdmin(c, deps, 'leaderboard_opt_out.decide', id, { vendor_name: row.vendor_name, status: row.status, decision_reason: row.decision_reason });
    return ok(c, toOptOut(row), 200);
  });

  return r;
}
