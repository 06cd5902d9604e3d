import { createRoute, z } from '@hono/zod-openapi';
import { isId, monitorGroupCreateSchema, monitorGroupListSchema, monitorGroupPatchSchema, monitorGroupSchema, newId } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonError } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { requireAuth } from '../middleware/auth.js';
import { EXAMPLES, EXAMPLE_GROUP_ID, bodyWithExample, okWithExample } from './examples.js';
import { deleteGroup, getGroup, insertGroup, listGroups, updateGroup } from './monitor-groups.db.js';
import { toGroup } from './view.js';

const read = [requireAuth({ scope: 'read' })];
const write = [requireAuth({ scope: 'write' })];
const TAGS = ['monitors'];
const idParam = z.object({ id: z.string().max(64).openapi({ param: { name: 'id', in: 'path' }, example: EXAMPLE_GROUP_ID }) });
const NOT_FOUND = { 404: jsonError('NOT_FOUND: no such monitor group of yours (another account\'s group is not found either)') };
const TAKEN = { 409: jsonError('CONFLICT: you already have a group of that name') };

const list = createRoute({
  method: 'get', path: '/', tags: TAGS, security: BEARER, middleware: read,
  summary: 'Your monitor groups, a plain array ordered by sort_order, then name',
  responses: { 200: okWithExample(monitorGroupListSchema, 'the groups', [EXAMPLES.group]), ...AUTH_ERRORS },
});
const create = createRoute({
  method: 'post', path: '/', tags: TAGS, security: BEARER, middleware: write,
  summary: 'Create a monitor group: name (max 200, unique), sort_order (default 0)',
  request: { body: bodyWithExample(monitorGroupCreateSchema, EXAMPLES.groupCreate) },
  responses: { 201: okWithExample(monitorGroupSchema, 'the group', { ...EXAMPLES.group, monitor_count: 0 }), 400: jsonError('VALIDATION_FAILED'), ...TAKEN, ...AUTH_ERRORS },
});
const readOne = createRoute({
  method: 'get', path: '/{id}', tags: TAGS, security: BEARER, middleware: read, summary: 'One monitor group',
  request: { params: idParam },
  responses: { 200: okWithExample(monitorGroupSchema, 'the group', EXAMPLES.group), ...NOT_FOUND, ...AUTH_ERRORS },
});
const patch = createRoute({
  method: 'patch', path: '/{id}', tags: TAGS, security: BEARER, middleware: write, summary: 'Rename or reorder a monitor group',
  request: { params: idParam, body: bodyWithExample(monitorGroupPatchSchema, EXAMPLES.groupPatch) },
  responses: { 200: okWithExample(monitorGroupSchema, 'the updated group', { ...EXAMPLES.group, sort_order: 20 }), 400: jsonError('VALIDATION_FAILED'), ...TAKEN, ...NOT_FOUND, ...AUTH_ERRORS },
});
const remove = createRoute({
  method: 'delete', path: '/{id}', tags: TAGS, security: BEARER, middleware: write,
  summary: 'Delete a monitor group; its monitors become ungrouped (they are not deleted)',
  request: { params: idParam },
  responses: { 200: okWithExample(z.null(), 'deleted', null), ...NOT_FOUND, ...AUTH_ERRORS },
});

/**
 * `/v1/monitor-groups` (docs/api/monitors.md "Groups"): list (plain array),
 * create, read, patch, delete (ungroups its monitors). Names are unique per account; another
 * account's group is 404 NOT_FOUND.
 */
export function monitorGroupsRouter(deps: AppDeps) {
  const r = createRouter();
  const notFound = (id: string) => new ApiError('NOT_FOUND', `no monitor group ${id}`);
  const taken = (name: string) => new ApiError('CONFLICT', `you already have a monitor group named "${name}"`, { fields: [{ path: 'name', message: 'already taken' }] });

  r.openapi(list, async (c) => ok(c, (await listGroups(deps.sql, c.get('principal')!.user_id)).map(toGroup), 200));

  r.openapi(create, async (c) => {
    const body = c.req.valid('json');
    const row = await insertGroup(deps.sql, { id: newId('monitor_group'), user_id: c.get('principal')!.user_id, name: body.name, sort_order: body.sort_order });
    if (!row) throw taken(body.name);
    return ok(c, toGroup(row), 201);
  });

  r.openapi(readOne, async (c) => {
    const { id } = c.req.valid('param');
    const row = isId('monitor_group', id) ? await getGroup(deps.sql, c.get('principal')!.user_id, id) : null;
    if (!row) throw notFound(id);
    return ok(c, toGroup(row), 200);
  });

  r.openapi(patch, async (c) => {
    const { id } = c.req.valid('param');
    const body = c.req.valid('json');
    const row = isId('monitor_group', id) ? await updateGroup(deps.sql, c.get('principal')!.user_id, id, body) : null;
    if (row === 'name_taken') throw taken(body.name!);
    if (!row) throw notFound(id);
    return ok(c, toGroup(row), 200);
  });

  r.openapi(remove, async (c) => {
    const { id } = c.req.valid('param');
    if (!isId('monitor_group', id) || !(await deleteGroup(deps.sql, c.get('principal')!.user_id, id))) throw notFound(id);
    return ok(c, null, 200);
  });

  return r;
}
