import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import {
  dashboardCreateSchema, dashboardDataQuerySchema, dashboardDataSchema, dashboardLayoutSchema, dashboardPatchSchema, dashboardSchema,
  dashboardWidgetsPutSchema, isId,
} from '@vantage/shared-protocol';
import { publicBaseUrl } from '../config/public-url.js';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { requireAuth } from '../middleware/auth.js';
import { authorize, ownerForNew, ownerScope } from '../teams/authorize.js';
import { dataRange } from './data-range.js';
import {
  deleteDashboard, getDashboard, insertDashboard, listDashboards, replaceWidgets, rotateShareToken, updateDashboard,
  type DashboardRow, type VersionedWrite,
} from './dashboards.db.js';
import { dataContext } from './monitor-data.js';
import { scopeOf } from './owner.js';
import { templateWidgets } from './templates.js';
import { toDashboard } from './view.js';
import { widgetsData } from './widget-data.js';
import { checkedWidgets } from './widget-write.js';

const read = [requireAuth({ scope: 'read' })];
const write = [requireAuth({ scope: 'write' })];
const TAGS = ['dashboards'];
const idParam = z.object({ id: z.string().max(64).openapi({ param: { name: 'id', in: 'path' }, example: 'dash_01jd3k6w9z4q8r2t7v5x1y3b6c' }) });
const NOT_FOUND = { 404: jsonError('NOT_FOUND (no such dashboard of yours), TEAM_NOT_FOUND') };
const BAD = { 400: jsonError('VALIDATION_FAILED: a field, a widget\'s options or metric, a position outside the grid, or a monitor that is not the dashboard owner\'s') };
const CONFLICT = { 409: jsonError('CONFLICT: `expected_version` is not the current version (`details.current_version`)') };
const FORBIDDEN = { 403: jsonError('FORBIDDEN: a key without monitor:write, or a team role that cannot change the dashboard (viewer)') };

const list = createRoute({
  method: 'get', path: '/', tags: TAGS, security: BEARER, middleware: read, summary: 'Your dashboards and your teams\', oldest first (`team_id` filters); without widgets',
  request: { query: z.object({ team_id: z.string().max(64).optional() }) }, responses: { 200: jsonOk(z.object({ items: z.array(dashboardSchema) }), 'the dashboards'), ...AUTH_ERRORS },
});
const create = createRoute({
  method: 'post', path: '/', tags: TAGS, security: BEARER, middleware: write, summary: 'Create a dashboard, blank or from a template filled with your monitors and nodes',
  request: { body: jsonBody(dashboardCreateSchema) }, responses: { 201: jsonOk(dashboardSchema, 'the dashboard with its widgets'), ...BAD, ...FORBIDDEN, 404: jsonError('TEAM_NOT_FOUND'), ...AUTH_ERRORS },
});
const readOne = createRoute({
  method: 'get', path: '/{id}', tags: TAGS, security: BEARER, middleware: read, summary: 'One dashboard with its widgets',
  request: { params: idParam }, responses: { 200: jsonOk(dashboardSchema, 'the dashboard'), ...NOT_FOUND, ...AUTH_ERRORS },
});
const patch = createRoute({
  method: 'patch', path: '/{id}', tags: TAGS, security: BEARER, middleware: write, summary: 'Change name, description, layout or is_public (versioned: `expected_version`)',
  request: { params: idParam, body: jsonBody(dashboardPatchSchema) },
  responses: { 200: jsonOk(dashboardSchema, 'the dashboard'), ...BAD, ...FORBIDDEN, ...NOT_FOUND, ...CONFLICT, ...AUTH_ERRORS },
});
const remove = createRoute({
  method: 'delete', path: '/{id}', tags: TAGS, security: BEARER, middleware: write, summary: 'Delete a dashboard (its shared address answers 404 at once)',
  request: { params: idParam }, responses: { 200: jsonOk(z.null(), 'deleted'), ...FORBIDDEN, ...NOT_FOUND, ...AUTH_ERRORS },
});
const putWidgets = createRoute({
  method: 'put', path: '/{id}/widgets', tags: TAGS, security: BEARER, middleware: write,
  summary: 'Replace the widget set; with `expected_version`, only if nobody changed the dashboard since (else 409 with the current version)',
  request: { params: idParam, body: jsonBody(dashboardWidgetsPutSchema) },
  responses: { 200: jsonOk(dashboardSchema, 'the dashboard, version increased'), ...BAD, ...FORBIDDEN, ...NOT_FOUND, ...CONFLICT, ...AUTH_ERRORS },
});
const rotate = createRoute({
  method: 'post', path: '/{id}/share-token/rotate', tags: TAGS, security: BEARER, middleware: write, summary: 'A new share token: the old shared address stops answering',
  request: { params: idParam }, responses: { 200: jsonOk(dashboardSchema, 'the dashboard with its new share token'), ...FORBIDDEN, ...NOT_FOUND, ...AUTH_ERRORS },
});
const data = createRoute({
  method: 'get', path: '/{id}/data', tags: TAGS, security: BEARER, middleware: read,
  summary: 'Every widget\'s data for from/to (default the last 24 hours, at most 400 days) in one call; a widget that fails has its own `error`',
  request: { params: idParam, query: dashboardDataQuerySchema },
  responses: { 200: jsonOk(dashboardDataSchema, 'the widgets\' data'), 400: jsonError('VALIDATION_FAILED: a bad from/to'), ...NOT_FOUND, ...AUTH_ERRORS },
});

/**
 * `/v1/dashboards` (docs/api/dashboards.md): CRUD, the versioned widget set, share tokens and
 * the widgets' data. Access through teams/authorize.ts (another owner's dashboard is 404
 * NOT_FOUND); keys need `monitor:read` / `monitor:write`.
 */
export function dashboardsRouter(deps: AppDeps) {
  const r = createRouter();
  const base = () => publicBaseUrl(deps.config);

  async function dashboardFor(c: Context<AppEnv>, id: string, access: 'read' | 'write'): Promise<DashboardRow> {
    const row = isId('dashboard', id) ? await getDashboard(deps.sql, id) : null;
    await authorize(c, deps, row, access, 'NOT_FOUND', 'dashboard');
    return row!;
  }

  /** The row of a versioned write, or its 404 / 409. */
  function written(w: VersionedWrite): DashboardRow {
    if (w === 'missing') throw new ApiError('NOT_FOUND', 'dashboard not found');
    if ('conflict' in w) {
      throw new ApiError('CONFLICT', `the dashboard changed meanwhile: it is at version ${w.conflict}; read it again and send that version`, { current_version: w.conflict });
    }
    return w;
  }

  r.openapi(list, async (c) => {
    const scope = await ownerScope(c, deps, 'read', c.req.valid('query').team_id);
    return ok(c, { items: (await listDashboards(deps.sql, scope)).map((d) => toDashboard(d, base(), false)) }, 200);
  });

  r.openapi(create, async (c) => {
    const body = c.req.valid('json');
    const owner = await ownerForNew(c, deps, body.team_id);
    const widgets = body.template_key ? await templateWidgets(deps.sql, scopeOf(owner), body.template_key) : [];
    const row = await insertDashboard(deps.sql, owner, {
      name: body.name, description: body.description, template_key: body.template_key ?? null,
      layout: body.layout ?? dashboardLayoutSchema.parse({}), widgets, is_public: body.is_public,
    });
    return ok(c, toDashboard(row, base(), true), 201);
  });

  r.openapi(readOne, async (c) => ok(c, toDashboard(await dashboardFor(c, c.req.valid('param').id, 'read'), base(), true), 200));

  r.openapi(patch, async (c) => {
    const { expected_version, ...fields } = c.req.valid('json');
    const row = await dashboardFor(c, c.req.valid('param').id, 'write');
    if (fields.layout) {
      // A narrower grid must still hold every widget.
      const columns = fields.layout.columns;
      const i = row.widgets.findIndex((w) => w.position.x + w.position.w > columns);
      if (i >= 0) throw new ApiError('VALIDATION_FAILED', `layout.columns: widgets[${i}] reaches column ${row.widgets[i]!.position.x + row.widgets[i]!.position.w}`, { fields: [{ path: 'layout.columns', message: `widgets[${i}] does not fit in ${columns} columns` }] });
    }
    return ok(c, toDashboard(written(await updateDashboard(deps.sql, row.id, fields, expected_version)), base(), true), 200);
  });

  r.openapi(remove, async (c) => {
    const row = await dashboardFor(c, c.req.valid('param').id, 'write');
    if (!(await deleteDashboard(deps.sql, row.id))) throw new ApiError('NOT_FOUND', 'dashboard not found');
    return ok(c, null, 200);
  });

  r.openapi(putWidgets, async (c) => {
    const body = c.req.valid('json');
    const row = await dashboardFor(c, c.req.valid('param').id, 'write');
    const widgets = await checkedWidgets(deps.sql, row, body.widgets);
    return ok(c, toDashboard(written(await replaceWidgets(deps.sql, row.id, widgets, body.expected_version)), base(), true), 200);
  });

  r.openapi(rotate, async (c) => {
    const row = await dashboardFor(c, c.req.valid('param').id, 'write');
    return ok(c, toDashboard(written(await rotateShareToken(deps.sql, row.id)), base(), true), 200);
  });

  r.openapi(data, async (c) => {
    const { from, to } = dataRange(c.req.valid('query'), Date.now());
    const row = await dashboardFor(c, c.req.valid('param').id, 'read');
    const widgets = await widgetsData(dataContext(deps.sql, scopeOf(row), from, to, true), row.widgets, deps.log);
    return ok(c, { from: from.toISOString(), to: to.toISOString(), version: row.version, widgets }, 200);
  });

  return r;
}
