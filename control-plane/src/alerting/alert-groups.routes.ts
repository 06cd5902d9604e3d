import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { alertGroupCreateSchema, alertGroupListSchema, alertGroupPatchSchema, alertGroupSchema, alertOwnerQuerySchema, isId, newId } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { authorize, ownerForNew, ownerScope } from '../teams/authorize.js';
import type { Access } from '../teams/roles.js';
import { ownerAfterMove } from '../teams/move.js';
import { deleteAlertGroup, getAlertGroup, insertAlertGroup, listAlertGroups, updateAlertGroup, type AlertGroupRow } from './alert-groups.db.js';
import { idParam, ownerOf, READ, TAGS, WRITE } from './route-kit.js';

const params = idParam('agr_01jd3k6w9z4q8r2t7v5x1y3b6c');
const NOT_FOUND = { 404: jsonError('NOT_FOUND: no such alert group you can read') };
const FORBIDDEN = { 403: jsonError('FORBIDDEN: the credential lacks the required scope, or your role in the team cannot change its alert groups (a viewer only reads)') };
const TEAM = { 404: jsonError('TEAM_NOT_FOUND: team_id is not a team of yours'), ...FORBIDDEN };
const CONFLICT = { 409: jsonError('CONFLICT: the owner (you, or the team) already groups by that group_by and group_value') };
const list = createRoute({ method: 'get', path: '/', tags: TAGS, security: BEARER, middleware: READ, summary: 'The alert groups you can read, yours and your teams\' (`team_id` filters)', request: { query: alertOwnerQuerySchema }, responses: { 200: jsonOk(alertGroupListSchema, 'the groups'), ...AUTH_ERRORS } });
const create = createRoute({ method: 'post', path: '/', tags: TAGS, security: BEARER, middleware: WRITE, summary: 'Gather alerts of monitors by name prefix, tag or type for wait_seconds into one notification', request: { body: jsonBody(alertGroupCreateSchema) }, responses: { 201: jsonOk(alertGroupSchema, 'the group'), 400: jsonError('VALIDATION_FAILED'), ...CONFLICT, ...AUTH_ERRORS, ...TEAM } });
const readOne = createRoute({ method: 'get', path: '/{id}', tags: TAGS, security: BEARER, middleware: READ, summary: 'One alert group', request: { params }, responses: { 200: jsonOk(alertGroupSchema, 'the group'), ...NOT_FOUND, ...AUTH_ERRORS } });
const MOVED = { 404: jsonError('NOT_FOUND: no such alert group you can read; TEAM_NOT_FOUND: team_id is not a team of yours'), ...FORBIDDEN };
const patch = createRoute({ method: 'patch', path: '/{id}', tags: TAGS, security: BEARER, middleware: WRITE, summary: 'Change an alert group, or move it (`team_id`) into one of your teams or back to its creator', request: { params, body: jsonBody(alertGroupPatchSchema) }, responses: { 200: jsonOk(alertGroupSchema, 'the group'), 400: jsonError('VALIDATION_FAILED'), ...CONFLICT, ...MOVED, ...AUTH_ERRORS } });
const remove = createRoute({ method: 'delete', path: '/{id}', tags: TAGS, security: BEARER, middleware: WRITE, summary: 'Delete an alert group', request: { params }, responses: { 200: jsonOk(z.null(), 'deleted'), ...NOT_FOUND, ...AUTH_ERRORS, ...FORBIDDEN } });

function toGroup(row: AlertGroupRow) {
  return { id: row.id, user_id: row.user_id, team_id: row.team_id, name: row.name, group_by: row.group_by, group_value: row.group_value, wait_seconds: row.wait_seconds, created_at: row.created_at.toISOString() };
}

/** A tag is stored lower-cased, as monitor tags are. */
const normalise = (group_by: string, value: string) => (group_by === 'tag' ? value.toLowerCase() : value);

/** `/v1/alert-groups` (docs/api/alerting.md "Alert groups"); every access decides through teams/authorize.ts. */
export function alertGroupsRouter(deps: AppDeps) {
  const r = createRouter();
  const notFound = (id: string) => new ApiError('NOT_FOUND', `no alert group ${id}`);
  const conflict = () => new ApiError('CONFLICT', 'the owner already has an alert group with that group_by and group_value', { fields: [{ path: 'group_value', message: 'already grouped' }] });
  const owned = async (c: Context<AppEnv>, id: string, access: Access) => {
    const row = isId('alert_group', id) ? await getAlertGroup(deps.sql, id) : null;
    await authorize(c, deps, row && ownerOf(row), access, 'NOT_FOUND', 'alert group');
    return row!;
  };

  r.openapi(list, async (c) => ok(c, { items: (await listAlertGroups(deps.sql, await ownerScope(c, deps, 'read', c.req.valid('query').team_id))).map(toGroup) }, 200));
  r.openapi(create, async (c) => {
    const b = c.req.valid('json');
    const owner = await ownerForNew(c, deps, b.team_id);
    const row = await insertAlertGroup(deps.sql, { id: newId('alert_group'), ...owner, name: b.name, group_by: b.group_by, group_value: normalise(b.group_by, b.group_value), wait_seconds: b.wait_seconds });
    if (!row) throw conflict();
    return ok(c, toGroup(row), 201);
  });
  r.openapi(readOne, async (c) => {
    return ok(c, toGroup(await owned(c, c.req.valid('param').id, 'read')), 200);
  });
  r.openapi(patch, async (c) => {
    const { id } = c.req.valid('param');
    const b = c.req.valid('json');
    const cur = await owned(c, id, 'write');
    // A move (team_id: docs/api/teams.md "Moving a resource"); the new owner must not already group the same way.
    const { owner } = await ownerAfterMove(c, deps, ownerOf(cur), b.team_id, 'alert group');
    const group_by = b.group_by ?? cur.group_by;
    const row = await updateAlertGroup(deps.sql, owner, id, { name: b.name ?? cur.name, group_by, group_value: normalise(group_by, b.group_value ?? cur.group_value), wait_seconds: b.wait_seconds ?? cur.wait_seconds });
    if (row === 'conflict') throw conflict();
    if (!row) throw notFound(id);
    return ok(c, toGroup(row), 200);
  });
  r.openapi(remove, async (c) => {
    const { id } = c.req.valid('param');
    await owned(c, id, 'write');
    if (!(await deleteAlertGroup(deps.sql, id))) throw notFound(id);
    return ok(c, null, 200);
  });
  return r;
}
