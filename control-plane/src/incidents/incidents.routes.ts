import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import {
  incidentCreateSchema, incidentPatchSchema, incidentSchema, incidentUpdateCreateSchema, isId, postmortemPutSchema, postmortemSchema,
} from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { requireAuth } from '../middleware/auth.js';
import { pageCacheOf } from '../status-pages/page-cache.js';
import { authorize, ownerForNew, ownerScope, type Owner } from '../teams/authorize.js';
import {
  addUpdate, deleteIncident, getIncident, getPostmortem, insertIncident, listIncidents, listUpdates, ownedPagesAndComponents, putPostmortem, updateIncident,
  type IncidentRow,
} from './incidents.db.js';
import { toIncident, toPostmortem } from './incident-view.js';
import { notifySubscribers } from './notify.js';

const read = [requireAuth({ scope: 'read' })];
const write = [requireAuth({ scope: 'write' })];
const TAGS = ['incidents'];
const idParam = z.object({ id: z.string().max(64).openapi({ param: { name: 'id', in: 'path' }, example: 'inc_01jd3k6w9z4q8r2t7v5x1y3b6c' }) });
const NOT_FOUND = { 404: jsonError('INCIDENT_NOT_FOUND (no such incident of yours)') };
const BAD = { 400: jsonError('VALIDATION_FAILED (a field; a component not on the incident\'s pages)') };
const PAGES = { 404: jsonError('INCIDENT_NOT_FOUND; STATUS_PAGE_NOT_FOUND (a status_page_ids entry is not a page of the incident\'s owner); TEAM_NOT_FOUND') };
const FORBIDDEN = { 403: jsonError('FORBIDDEN: a key without status:write, or a team role that cannot change it (viewer)') };
const listQuery = z.object({
  status: z.enum(['open', 'resolved']).optional(),
  team_id: z.string().max(64).optional(),
  page: z.coerce.number().int().min(1).default(1),
  page_size: z.coerce.number().int().min(1).max(200).default(20),
});
const listSchema = z.object({ items: z.array(incidentSchema), total: z.number().int(), page: z.number().int(), page_size: z.number().int(), has_more: z.boolean() });

const list = createRoute({
  method: 'get', path: '/', tags: TAGS, security: BEARER, middleware: read, summary: 'Your incidents and your teams\', newest first (`status` open/resolved filters)',
  request: { query: listQuery }, responses: { 200: jsonOk(listSchema, 'a page of incidents'), 400: jsonError('VALIDATION_FAILED'), ...AUTH_ERRORS },
});
const create = createRoute({
  method: 'post', path: '/', tags: TAGS, security: BEARER, middleware: write, summary: 'Open an incident on status pages; subscribers are told',
  request: { body: jsonBody(incidentCreateSchema) }, responses: { 201: jsonOk(incidentSchema, 'the incident'), ...BAD, ...FORBIDDEN, ...PAGES, ...AUTH_ERRORS },
});
const readOne = createRoute({
  method: 'get', path: '/{id}', tags: TAGS, security: BEARER, middleware: read, summary: 'One incident with its updates',
  request: { params: idParam }, responses: { 200: jsonOk(incidentSchema, 'the incident'), ...NOT_FOUND, ...AUTH_ERRORS },
});
const patch = createRoute({
  method: 'patch', path: '/{id}', tags: TAGS, security: BEARER, middleware: write, summary: 'Change an incident\'s title, impact, pages or components',
  request: { params: idParam, body: jsonBody(incidentPatchSchema) }, responses: { 200: jsonOk(incidentSchema, 'the incident'), ...BAD, ...FORBIDDEN, ...PAGES, ...AUTH_ERRORS },
});
const remove = createRoute({
  method: 'delete', path: '/{id}', tags: TAGS, security: BEARER, middleware: write, summary: 'Delete an incident with its updates and postmortem',
  request: { params: idParam }, responses: { 200: jsonOk(z.null(), 'deleted'), ...FORBIDDEN, ...NOT_FOUND, ...AUTH_ERRORS },
});
const postUpdate = createRoute({
  method: 'post', path: '/{id}/updates', tags: TAGS, security: BEARER, middleware: write, summary: 'Post an update: the incident takes its status (resolved closes it); subscribers are told',
  request: { params: idParam, body: jsonBody(incidentUpdateCreateSchema) }, responses: { 201: jsonOk(incidentSchema, 'the incident with the update'), ...BAD, ...FORBIDDEN, ...NOT_FOUND, ...AUTH_ERRORS },
});
const readPostmortem = createRoute({
  method: 'get', path: '/{id}/postmortem', tags: TAGS, security: BEARER, middleware: read, summary: 'The incident\'s postmortem',
  request: { params: idParam }, responses: { 200: jsonOk(postmortemSchema, 'the postmortem'), 404: jsonError('INCIDENT_NOT_FOUND; POSTMORTEM_NOT_FOUND (none written yet)'), ...AUTH_ERRORS },
});
const writePostmortem = createRoute({
  method: 'put', path: '/{id}/postmortem', tags: TAGS, security: BEARER, middleware: write, summary: 'Write the incident\'s postmortem (Markdown); `published` shows it on its pages',
  request: { params: idParam, body: jsonBody(postmortemPutSchema) }, responses: { 200: jsonOk(postmortemSchema, 'the postmortem'), ...BAD, ...FORBIDDEN, ...NOT_FOUND, ...AUTH_ERRORS },
});

/**
 * `/v1/incidents` (docs/api/status-pages.md "Incidents"): incidents shown on status pages, their
 * timestamped updates and postmortems. Access through teams/authorize.ts (another owner's incident
 * is 404 INCIDENT_NOT_FOUND); keys need `status:read` / `status:write`. Every change drops the
 * incident's pages from the public page cache.
 */
export function incidentsRouter(deps: AppDeps) {
  const r = createRouter();
  const cache = pageCacheOf(deps);

  async function incidentFor(c: Context<AppEnv>, id: string, access: 'read' | 'write'): Promise<IncidentRow> {
    const row = isId('incident', id) ? await getIncident(deps.sql, id) : null;
    await authorize(c, deps, row, access, 'INCIDENT_NOT_FOUND', 'incident');
    return row!;
  }

  /** Pages must be the owner's; components must be on those pages. @throws STATUS_PAGE_NOT_FOUND, VALIDATION_FAILED */
  async function checkLinks(owner: Owner, page_ids: string[], component_ids: string[]): Promise<void> {
    const owned = await ownedPagesAndComponents(deps.sql, owner, page_ids);
    const missing = page_ids.findIndex((id) => !owned.pages.has(id));
    if (missing >= 0) throw new ApiError('STATUS_PAGE_NOT_FOUND', `status page ${page_ids[missing]} not found`, { fields: [{ path: `status_page_ids[${missing}]`, message: 'no such status page of the incident\'s owner' }] });
    const fields = component_ids.flatMap((id, i) => owned.components.has(id) ? [] : [{ path: `component_ids[${i}]`, message: 'not a component of the incident\'s status pages' }]);
    if (fields.length > 0) throw new ApiError('VALIDATION_FAILED', `${fields[0]!.path}: ${fields[0]!.message}`, { fields });
  }

  const view = async (row: IncidentRow) => toIncident(row, await listUpdates(deps.sql, [row.id]));

  r.openapi(list, async (c) => {
    const q = c.req.valid('query');
    const scope = await ownerScope(c, deps, 'read', q.team_id);
    const { rows, total } = await listIncidents(deps.sql, scope, { status: q.status, limit: q.page_size, offset: (q.page - 1) * q.page_size });
    const updates = await listUpdates(deps.sql, rows.map((i) => i.id));
    return ok(c, { items: rows.map((i) => toIncident(i, updates)), total, page: q.page, page_size: q.page_size, has_more: q.page * q.page_size < total }, 200);
  });

  r.openapi(create, async (c) => {
    const body = c.req.valid('json');
    const owner = await ownerForNew(c, deps, body.team_id);
    await checkLinks(owner, body.status_page_ids, body.component_ids);
    // The incident and its subscriber notices commit together.
    const incident = await deps.sql.begin(async (tx) => {
      const row = (await insertIncident(tx, { ...owner, ...body }))!;
      const created = toIncident(row, await listUpdates(tx, [row.id]));
      await notifySubscribers(deps, tx, created, 'created');
      return created;
    });
    cache.forgetIds(body.status_page_ids);
    return ok(c, incident, 201);
  });

  r.openapi(readOne, async (c) => ok(c, await view(await incidentFor(c, c.req.valid('param').id, 'read')), 200));

  r.openapi(patch, async (c) => {
    const body = c.req.valid('json');
    const row = await incidentFor(c, c.req.valid('param').id, 'write');
    const merged = {
      title: body.title ?? row.title, impact: body.impact ?? row.impact,
      status_page_ids: body.status_page_ids ?? row.status_page_ids, component_ids: body.component_ids ?? row.component_ids,
    };
    if (body.status_page_ids || body.component_ids) await checkLinks(row, merged.status_page_ids, merged.component_ids);
    const updated = await updateIncident(deps.sql, row.id, merged);
    if (!updated) throw new ApiError('INCIDENT_NOT_FOUND', 'incident not found');
    cache.forgetIds([...row.status_page_ids, ...merged.status_page_ids]);
    return ok(c, await view(updated), 200);
  });

  r.openapi(remove, async (c) => {
    const row = await incidentFor(c, c.req.valid('param').id, 'write');
    if (!(await deleteIncident(deps.sql, row.id))) throw new ApiError('INCIDENT_NOT_FOUND', 'incident not found');
    cache.forgetIds(row.status_page_ids);
    return ok(c, null, 200);
  });

  r.openapi(postUpdate, async (c) => {
    const body = c.req.valid('json');
    const row = await incidentFor(c, c.req.valid('param').id, 'write');
    const incident = await deps.sql.begin(async (tx) => {
      const done = await addUpdate(tx, row.id, body.status, body.message);
      if (!done) throw new ApiError('INCIDENT_NOT_FOUND', 'incident not found');
      const updated = toIncident(done.incident, await listUpdates(tx, [row.id]));
      await notifySubscribers(deps, tx, updated, 'updated');
      return updated;
    });
    cache.forgetIds(row.status_page_ids);
    return ok(c, incident, 201);
  });

  r.openapi(readPostmortem, async (c) => {
    const row = await incidentFor(c, c.req.valid('param').id, 'read');
    const pm = await getPostmortem(deps.sql, row.id);
    if (!pm) throw new ApiError('POSTMORTEM_NOT_FOUND', 'this incident has no postmortem yet');
    return ok(c, toPostmortem(pm), 200);
  });

  r.openapi(writePostmortem, async (c) => {
    const body = c.req.valid('json');
    const row = await incidentFor(c, c.req.valid('param').id, 'write');
    const pm = await putPostmortem(deps.sql, row.id, body.body_md, body.status);
    cache.forgetIds(row.status_page_ids);
    return ok(c, toPostmortem(pm), 200);
  });

  return r;
}
