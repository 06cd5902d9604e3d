import { createRoute, z } from '@hono/zod-openapi';
import { dashboardDataQuerySchema, dashboardDataSchema, isSecret, publicDashboardSchema } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { dataRange } from './data-range.js';
import { getSharedDashboard, type DashboardRow } from './dashboards.db.js';
import { dataContext } from './monitor-data.js';
import { scopeOf } from './owner.js';
import { toPublicDashboard } from './view.js';
import { widgetsData } from './widget-data.js';

const TAGS = ['dashboards (public)'];
const PUBLIC = 'Public: no credential. Answers only while the dashboard is public (`is_public`) and the token is its current one.';
const tokenParam = z.object({ share_token: z.string().max(80).openapi({ param: { name: 'share_token', in: 'path' }, example: 'dsh_2b7kq9x4m1n8p3r6t5v0w2y7z4a9c1d3' }) });
const NOT_FOUND = { 404: jsonError('NOT_FOUND: no public dashboard has this token (never had, rotated, deleted, or no longer public)') };

const view = createRoute({
  method: 'get', path: '/{share_token}', tags: TAGS, description: PUBLIC, summary: 'A shared dashboard and its widgets, without owner fields',
  request: { params: tokenParam }, responses: { 200: jsonOk(publicDashboardSchema, 'the dashboard'), ...NOT_FOUND },
});
const data = createRoute({
  method: 'get', path: '/{share_token}/data', tags: TAGS, description: PUBLIC, summary: 'Every widget\'s data of a shared dashboard, as GET /v1/dashboards/{id}/data, without ids',
  request: { params: tokenParam, query: dashboardDataQuerySchema },
  responses: { 200: jsonOk(dashboardDataSchema, 'the widgets\' data'), 400: jsonError('VALIDATION_FAILED: a bad from/to'), ...NOT_FOUND },
});

/**
 * `/v1/public/dashboards/{share_token}` (docs/api/dashboards.md "Sharing"): a public dashboard
 * and its data for anyone holding its link. Nothing that names the owner leaves here: no id,
 * user, team, token or monitor id; widget data rows carry names only.
 */
export function publicDashboardsRouter(deps: AppDeps) {
  const r = createRouter();

  async function shared(token: string): Promise<DashboardRow> {
    const row = isSecret('dashboard_share_token', token) ? await getSharedDashboard(deps.sql, token) : null;
    if (!row) throw new ApiError('NOT_FOUND', 'no public dashboard at this address');
    return row;
  }

  r.openapi(view, async (c) => ok(c, toPublicDashboard(await shared(c.req.valid('param').share_token)), 200));

  r.openapi(data, async (c) => {
    const { from, to } = dataRange(c.req.valid('query'), Date.now());
    const row = await shared(c.req.valid('param').share_token);
    const widgets = await widgetsData(dataContext(deps.sql, scopeOf(row), from, to, false), row.widgets, deps.log);
    return ok(c, { from: from.toISOString(), to: to.toISOString(), version: row.version, widgets }, 200);
  });

  return r;
}
