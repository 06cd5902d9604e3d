import { createRoute, z } from '@hono/zod-openapi';
import { alertGroupCreateSchema, alertGroupListSchema, alertGroupPatchSchema, alertGroupSchema, isId, newId } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { deleteAlertGroup, getAlertGroup, insertAlertGroup, listAlertGroups, updateAlertGroup, type AlertGroupRow } from './alert-groups.db.js';
import { idParam, READ, TAGS, WRITE } from './route-kit.js';

const params = idParam('agr_01jd3k6w9z4q8r2t7v5x1y3b6c');
const NOT_FOUND = { 404: jsonError('NOT_FOUND: no such alert group of yours') };
const CONFLICT = { 409: jsonError('CONFLICT: you already group by that group_by and group_value') };
const list = createRoute({ method: 'get', path: '/', tags: TAGS, security: BEARER, middleware: READ, summary: 'Your alert groups', responses: { 200: jsonOk(alertGroupListSchema, 'the groups'), ...AUTH_ERRORS } });
const create = createRoute({ method: 'post', path: '/', tags: TAGS, security: BEARER, middleware: WRITE, summary: 'Gather alerts of monitors by name prefix, tag or type for wait_seconds into one notification', request: { body: jsonBody(alertGroupCreateSchema) }, responses: { 201: jsonOk(alertGroupSchema, 'the group'), 400: jsonError('VALIDATION_FAILED'), ...CONFLICT, ...AUTH_ERRORS } });
const readOne = createRoute({ method: 'get', path: '/{id}', tags: TAGS, security: BEARER, middleware: READ, summary: 'One alert group', request: { params }, responses: { 200: jsonOk(alertGroupSchema, 'the group'), ...NOT_FOUND, ...AUTH_ERRORS } });
const patch = createRoute({ method: 'patch', path: '/{id}', tags: TAGS, security: BEARER, middleware: WRITE, summary: 'Change an alert group', request: { params, body: jsonBody(alertGroupPatchSchema) }, responses: { 200: jsonOk(alertGroupSchema, 'the group'), 400: jsonError('VALIDATION_FAILED'), ...CONFLICT, ...NOT_FOUND, ...AUTH_ERRORS } });
const remove = createRoute({ method: 'delete', path: '/{id}', tags: TAGS, security: BEARER, middleware: WRITE, summary: 'Delete an alert group', request: { params }, responses: { 200: jsonOk(z.null(), 'deleted'), ...NOT_FOUND, ...AUTH_ERRORS } });

function toGroup(row: AlertGroupRow) {
  return { id: row.id, user_id: row.user_id, name: row.name, group_by: row.group_by, group_value: row.group_value, wait_seconds: row.wait_seconds, created_at: row.created_at.toISOString() };
}

/** A tag is stored lower-cased, as monitor tags are. */
const normalise = (group_by: string, value: string) => (group_by === 'tag' ? value.toLowerCase() : value);

/** `/v1/alert-groups` (docs/api/alerting.md "Alert groups"). */
export function alertGroupsRouter(deps: AppDeps) {
  const r = createRouter();
  const notFound = (id: string) => new ApiError('NOT_FOUND', `no alert group ${id}`);
  const conflict = () => new ApiError('CONFLICT', 'you already have an alert group with that group_by and group_value', { fields: [{ path: 'group_value', message: 'already grouped' }] });

  r.openapi(list, async (c) => ok(c, { items: (await listAlertGroups(deps.sql, c.get('principal')!.user_id)).map(toGroup) }, 200));
  r.openapi(create, async (c) => {
    const b = c.req.valid('json');
    const row = await insertAlertGroup(deps.sql, { id: newId('alert_group'), user_id: c.get('principal')!.user_id, name: b.name, group_by: b.group_by, group_value: normalise(b.group_by, b.group_value), wait_seconds: b.wait_seconds });
    if (!row) throw conflict();
    return ok(c, toGroup(row), 201);
  });
  r.openapi(readOne, async (c) => {
    const { id } = c.req.valid('param');
    const row = isId('alert_group', id) ? await getAlertGroup(deps.sql, c.get('principal')!.user_id, id) : null;
    if (!row) throw notFound(id);
    return ok(c, toGroup(row), 200);
  });
  r.openapi(patch, async (c) => {
    const { id } = c.req.valid('param');
    const b = c.req.valid('json');
    const user_id = c.get('principal')!.user_id;
    const cur = isId('alert_group', id) ? await getAlertGroup(deps.sql, user_id, id) : null;
    if (!cur) throw notFound(id);
    const group_by = b.group_by ?? cur.group_by;
    const row = await updateAlertGroup(deps.sql, user_id, id, { name: b.name ?? cur.name, group_by, group_value: normalise(group_by, b.group_value ?? cur.group_value), wait_seconds: b.wait_seconds ?? cur.wait_seconds });
    if (row === 'conflict') throw conflict();
    if (!row) throw notFound(id);
    return ok(c, toGroup(row), 200);
  });
  r.openapi(remove, async (c) => {
    const { id } = c.req.valid('param');
    if (!isId('alert_group', id) || !(await deleteAlertGroup(deps.sql, c.get('principal')!.user_id, id))) throw notFound(id);
    return ok(c, null, 200);
  });
  return r;
}
