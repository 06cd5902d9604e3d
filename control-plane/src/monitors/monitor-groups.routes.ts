import { createRoute, z } from '@hono/zod-openapi';
import { monitorGroupCreateSchema, monitorGroupListQuerySchema, monitorGroupListSchema, monitorGroupPatchSchema, monitorGroupSchema, newId } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonError } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { requireAuth } from '../middleware/auth.js';
import { ownerForNew, ownerScope } from '../teams/authorize.js';
import { groupFor } from './access.js';
import { EXAMPLES, EXAMPLE_GROUP_ID, bodyWithExample, okWithExample } from './examples.js';
import { deleteGroup, insertGroup, listGroups, updateGroup } from './monitor-groups.db.js';
import { toGroup } from './view.js';

const read = [requireAuth({ scope: 'read' })];
const write = [requireAuth({ scope: 'write' })];
const TAGS = ['monitors'];
const idParam = z.object({ id: z.string().max(64).openapi({ param: { name: 'id', in: 'path' }, example: EXAMPLE_GROUP_ID }) });
const NOT_FOUND = { 404: jsonError('NOT_FOUND: no such monitor group you can see (another account\'s or another team\'s group is not found either)') };
const TAKEN = { 409: jsonError('CONFLICT: its owner (you, or the team) already has a group of that name') };
const FORBIDDEN = { 403: jsonError('FORBIDDEN: the credential lacks the scope, or your role in the group\'s team cannot change it (details.required_role)') };

const list = createRoute({
  method: 'get', path: '/', tags: TAGS, security: BEARER, middleware: read,
  summary: 'Your monitor groups and those of your teams (team_id filters), a plain array ordered by sort_order, then name',
  request: { query: monitorGroupListQuerySchema },
  responses: { 200: okWithExample(monitorGroupListSchema, 'the groups', [EXAMPLES.group]), ...AUTH_ERRORS },
});
const create = createRoute({
  method: 'post', path: '/', tags: TAGS, security: BEARER, middleware: write,
  summary: 'Create a monitor group: name (max 200, unique per owner), sort_order (default 0), team_id (absent: personal)',
  request: { body: bodyWithExample(monitorGroupCreateSchema, EXAMPLES.groupCreate) },
  responses: {
    201: okWithExample(monitorGroupSchema, 'the group', { ...EXAMPLES.group, monitor_count: 0 }), 400: jsonError('VALIDATION_FAILED'), ...TAKEN,
    404: jsonError('TEAM_NOT_FOUND: team_id names no team you are in'), ...AUTH_ERRORS, ...FORBIDDEN,
  },
});
const readOne = createRoute({
  method: 'get', path: '/{id}', tags: TAGS, security: BEARER, middleware: read, summary: 'One monitor group',
  request: { params: idParam },
  responses: { 200: okWithExample(monitorGroupSchema, 'the group', EXAMPLES.group), ...NOT_FOUND, ...AUTH_ERRORS },
});
const patch = createRoute({
  method: 'patch', path: '/{id}', tags: TAGS, security: BEARER, middleware: write, summary: 'Rename or reorder a monitor group',
  request: { params: idParam, body: bodyWithExample(monitorGroupPatchSchema, EXAMPLES.groupPatch) },
  responses: { 200: okWithExample(monitorGroupSchema, 'the updated group', { ...EXAMPLES.group, sort_order: 20 }), 400: jsonError('VALIDATION_FAILED'), ...TAKEN, ...NOT_FOUND, ...AUTH_ERRORS, ...FORBIDDEN },
});
const remove = createRoute({
  method: 'delete', path: '/{id}', tags: TAGS, security: BEARER, middleware: write,
  summary: 'Delete a monitor group; its monitors become ungrouped (they are not deleted)',
  request: { params: idParam },
  responses: { 200: okWithExample(z.null(), 'deleted', null), ...NOT_FOUND, ...AUTH_ERRORS, ...FORBIDDEN },
});

/**
 * `/v1/monitor-groups` (docs/api/monitors.md "Groups"): list (plain array),
 * create, read, patch, delete (ungroups its monitors). A group is personal or a team's, like
 * monitors (access decided by teams/authorize.ts); names are unique per owner; another
 * account's or another team's group is 404 NOT_FOUND.
 */
export function monitorGroupsRouter(deps: AppDeps) {
  const r = createRouter();
  const notFound = (id: string) => new ApiError('NOT_FOUND', `no monitor group ${id}`);
  const taken = (team_id: string | null, name: string) => new ApiError('CONFLICT',
    `${team_id === null ? 'you already have' : `team ${team_id} already has`} a monitor group named "${name}"`, { fields: [{ path: 'name', message: 'already taken' }] });

  r.openapi(list, async (c) => ok(c, (await listGroups(deps.sql, await ownerScope(c, deps, 'read', c.req.valid('query').team_id))).map(toGroup), 200));

  r.openapi(create, async (c) => {
    const body = c.req.valid('json');
    const owner = await ownerForNew(c, deps, body.team_id);
    const row = await insertGroup(deps.sql, { id: newId('monitor_group'), ...owner, name: body.name, sort_order: body.sort_order });
    if (!row) throw taken(owner.team_id, body.name);
    return ok(c, toGroup(row), 201);
  });

  r.openapi(readOne, async (c) => ok(c, toGroup(await groupFor(c, deps, c.req.valid('param').id, 'read')), 200));

  r.openapi(patch, async (c) => {
    const { id } = c.req.valid('param');
    const body = c.req.valid('json');
    const group = await groupFor(c, deps, id, 'write');
    const row = await updateGroup(deps.sql, id, body);
    if (row === 'name_taken') throw taken(group.team_id, body.name!);
    if (!row) throw notFound(id);
    return ok(c, toGroup(row), 200);
  });

  r.openapi(remove, async (c) => {
    const { id } = c.req.valid('param');
    await groupFor(c, deps, id, 'write');
    if (!(await deleteGroup(deps.sql, id))) throw notFound(id);
    return ok(c, null, 200);
  });

  return r;
}
