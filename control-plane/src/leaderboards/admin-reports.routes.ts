import { createRoute, z } from '@hono/zod-openapi';
import {
  adminLeaderboardListQuerySchema, createLeaderboardRequestSchema, isId, LEADERBOARD_STATUSES, leaderboardErrataRequestSchema,
  leaderboardMoveRequestSchema, leaderboardReportDetailSchema, leaderboardReportListSchema,
} from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { auditAdmin, requireAdmin } from '../accounts/admin.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { deleteDraft, findReport, listReports, reportPdf, type LeaderboardReportRow } from './leaderboards.db.js';
import { pdfResponse } from './leaderboards.routes.js';
import { correctReport, createReport, moveReportTo, recomputeReport } from './reports.js';
import { toLeaderboardReport } from './view.js';

const ADMIN_ERRORS = { ...AUTH_ERRORS, 403: jsonError('FORBIDDEN: not an administrator of this deployment, or (changes) a credential without the write scope') };
const idParam = z.object({ id: z.string().max(64).openapi({ param: { name: 'id', in: 'path' }, example: 'lb_01jd3k6w9z4q8r2t7v5x1y3b6c' }) });
const NOT_FOUND = jsonError('NOT_FOUND: no leaderboard report with this id');
const DETAIL = jsonOk(leaderboardReportDetailSchema, 'the report and its `entries[]`');

/**
 * `/v1/admin/leaderboards`: the deployment's administrators create, recompute, move, correct and
 * delete monthly leaderboard reports (docs/api/leaderboards.md). Every change is audit-logged:
 * `leaderboard.create`, `leaderboard.recompute`, `leaderboard.status`, `leaderboard.errata`,
 * `leaderboard.delete`. `now` is the clock, for tests.
 */
export function adminLeaderboardsRouter(deps: AppDeps, now: () => Date = () => new Date()) {
  const r = createRouter();
  const guard = [requireAdmin(deps)];
  const detail = (row: LeaderboardReportRow) => ({ ...toLeaderboardReport(deps.config, row, 'admin'), entries: row.entries });

  async function reportFor(id: string): Promise<LeaderboardReportRow> {
    const row = isId('leaderboard_report', id) ? await findReport(deps.sql, id) : null;
    if (!row) throw new ApiError('NOT_FOUND', 'no leaderboard report with this id');
    return row;
  }

  r.openapi(createRoute({
    tags: ['admin'], security: BEARER, middleware: guard, method: 'get', path: '/', summary: 'List leaderboard reports in every state, newest month first',
    request: { query: adminLeaderboardListQuerySchema },
    responses: { 200: jsonOk(leaderboardReportListSchema, '{items[], total, page, page_size, has_more}'), 400: jsonError('VALIDATION_FAILED'), ...ADMIN_ERRORS },
  }), async (c) => {
    const q = c.req.valid('query');
    const { rows, total } = await listReports(deps.sql, q.status ? [q.status] : LEADERBOARD_STATUSES, q.page_size, (q.page - 1) * q.page_size);
    return ok(c, { items: rows.map((row) => toLeaderboardReport(deps.config, row, 'admin')), total, page: q.page, page_size: q.page_size, has_more: q.page * q.page_size < total }, 200);
  });

  r.openapi(createRoute({
    tags: ['admin'], security: BEARER, middleware: guard, method: 'post', path: '/', summary: 'Create the draft report of a month, its figures computed from the leaderboard monitors',
    request: { body: jsonBody(createLeaderboardRequestSchema) },
    responses: { 201: DETAIL, 400: jsonError('VALIDATION_FAILED: the month has not begun'), ...ADMIN_ERRORS, 409: jsonError('CONFLICT: a report of that month exists that is not archived') },
  }), async (c) => {
    const { period_year, period_month } = c.req.valid('json');
    const row = await createReport(deps, period_year, period_month, now());
    await auditAdmin(c, deps, 'leaderboard.create', row.id, { period_year, period_month, vendors: row.entries.length });
    return ok(c, detail(row), 201);
  });

  r.openapi(createRoute({
    tags: ['admin'], security: BEARER, middleware: guard, method: 'get', path: '/{id}', summary: 'Read a leaderboard report in any state',
    request: { params: idParam }, responses: { 200: DETAIL, 404: NOT_FOUND, ...ADMIN_ERRORS },
  }), async (c) => ok(c, detail(await reportFor(c.req.valid('param').id)), 200));

  r.openapi(createRoute({
    tags: ['admin'], security: BEARER, middleware: guard, method: 'delete', path: '/{id}', summary: 'Delete a draft (a report past draft is never deleted)',
    request: { params: idParam },
    responses: { 200: jsonOk(z.null(), 'deleted'), 404: NOT_FOUND, 409: jsonError('CONFLICT: not a draft; a published report is corrected by errata, never deleted'), ...ADMIN_ERRORS },
  }), async (c) => {
    const row = await reportFor(c.req.valid('param').id);
    if (row.status !== 'draft' || !(await deleteDraft(deps.sql, row.id))) {
      throw new ApiError('CONFLICT', `only a draft is deleted; this report is ${row.status}${row.status === 'published' ? ': correct it with an errata notice' : ''}`, { status: row.status });
    }
    await auditAdmin(c, deps, 'leaderboard.delete', row.id, { period_year: row.period_year, period_month: row.period_month });
    return ok(c, null, 200);
  });

  r.openapi(createRoute({
    tags: ['admin'], security: BEARER, middleware: guard, method: 'post', path: '/{id}/recompute', summary: 'Compute a draft\'s figures again (new data, opt-outs decided since)',
    request: { params: idParam }, responses: { 200: DETAIL, 404: NOT_FOUND, 409: jsonError('CONFLICT: not a draft'), ...ADMIN_ERRORS },
  }), async (c) => {
    const row = await recomputeReport(deps, await reportFor(c.req.valid('param').id), now());
    await auditAdmin(c, deps, 'leaderboard.recompute', row.id, { vendors: row.entries.length, excluded_vendors: row.excluded_vendors });
    return ok(c, detail(row), 200);
  });

  r.openapi(createRoute({
    tags: ['admin'], security: BEARER, middleware: guard, method: 'post', path: '/{id}/status', summary: 'Move a report: draft → reviewing (PDF signed) → published → archived; reviewing → draft',
    request: { params: idParam, body: jsonBody(leaderboardMoveRequestSchema) },
    responses: { 200: DETAIL, 400: jsonError('VALIDATION_FAILED'), 404: NOT_FOUND, 409: jsonError('CONFLICT: a move the states do not allow (details.allowed)'), ...ADMIN_ERRORS },
  }), async (c) => {
    const before = await reportFor(c.req.valid('param').id);
    const { status } = c.req.valid('json');
    const row = await moveReportTo(deps, before, status, now());
    await auditAdmin(c, deps, 'leaderboard.status', row.id, { from: before.status, to: row.status, content_hash: row.content_hash });
    return ok(c, detail(row), 200);
  });

  r.openapi(createRoute({
    tags: ['admin'], security: BEARER, middleware: guard, method: 'post', path: '/{id}/errata', summary: 'Correct a published report with a signed errata notice (the report stays as published)',
    request: { params: idParam, body: jsonBody(leaderboardErrataRequestSchema) },
    responses: { 200: DETAIL, 400: jsonError('VALIDATION_FAILED'), 404: NOT_FOUND, 409: jsonError('CONFLICT: not published or archived, or already corrected'), ...ADMIN_ERRORS },
  }), async (c) => {
    const { reason } = c.req.valid('json');
    const row = await correctReport(deps, await reportFor(c.req.valid('param').id), reason, now());
    await auditAdmin(c, deps, 'leaderboard.errata', row.id, { reason });
    return ok(c, detail(row), 200);
  });

  r.openapi(createRoute({
    tags: ['admin'], security: BEARER, middleware: guard, method: 'get', path: '/{id}/pdf', summary: 'Download the signed PDF of a report in review or later',
    request: { params: idParam },
    responses: {
      200: { description: 'the signed PDF', content: { 'application/pdf': { schema: z.string().openapi({ format: 'binary' }) } } },
      404: NOT_FOUND, 409: jsonError('CONFLICT: a draft has no PDF yet'), ...ADMIN_ERRORS,
    },
  }), async (c) => {
    const row = await reportFor(c.req.valid('param').id);
    const bytes = await reportPdf(deps.sql, row.id, 'report');
    if (!bytes) throw new ApiError('CONFLICT', 'a draft has no PDF yet: move it to reviewing', { status: row.status });
    return pdfResponse(c, bytes, `vantage-${row.id}.pdf`, 'private, no-store') as never;
  });

  return r;
}
