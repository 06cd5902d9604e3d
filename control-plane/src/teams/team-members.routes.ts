import { createRoute, z } from '@hono/zod-openapi';
import { teamMemberListSchema, teamMemberPatchSchema, teamMemberSchema } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { requireAuth } from '../middleware/auth.js';
import { authorizeTeam } from './team-access.js';
import { changeMember, getMember, listMembers } from './team-members.db.js';
import { TEAM_FORBIDDEN, TEAM_NOT_FOUND } from './teams.routes.js';
import { toTeamMember } from './view.js';

const read = [requireAuth({ scope: 'read' })];
const write = [requireAuth({ scope: 'write' })];
const TAGS = ['teams'];
const memberParams = z.object({
  id: z.string().max(64).openapi({ param: { name: 'id', in: 'path' }, example: 'team_01jd3k6w9z4q8r2t7v5x1y3b6c' }),
  user_id: z.string().max(64).openapi({ param: { name: 'user_id', in: 'path' }, example: 'u_01jd3k6w9z4q8r2t7v5x1y3b6c' }),
});
const MEMBER_ERRORS = {
  ...AUTH_ERRORS, ...TEAM_FORBIDDEN,
  404: jsonError('TEAM_NOT_FOUND (not your team), or NOT_FOUND (no such member)'),
  409: jsonError('CONFLICT: the team would be left without an owner'),
};

/**
 * `/v1/teams/{id}/members` (docs/api/teams.md "Members"): every member reads the list; admins
 * change and remove admins, members and viewers; only owners grant or take away the owner role or
 * remove an owner; anyone may remove itself (leave). The last owner can neither leave nor be
 * demoted (409 CONFLICT). A removed member loses access at its next request.
 */
export function teamMembersRouter(deps: AppDeps) {
  const r = createRouter();
  const noMember = (user_id: string) => new ApiError('NOT_FOUND', `${user_id} is not a member of this team`);
  const lastOwner = () => new ApiError('CONFLICT', 'a team keeps at least one owner: make another member owner first');

  r.openapi(createRoute({
    method: 'get', path: '/{id}/members', tags: TAGS, security: BEARER, middleware: read,
    summary: 'The members of a team with their roles: owners first, then admins, members, viewers',
    request: { params: z.object({ id: memberParams.shape.id }) },
    responses: { 200: jsonOk(teamMemberListSchema, 'the members'), ...AUTH_ERRORS, ...TEAM_NOT_FOUND },
  }), async (c) => {
    const { id } = c.req.valid('param');
    await authorizeTeam(c, deps, id, 'read');
    return ok(c, (await listMembers(deps.sql, id)).map(toTeamMember), 200);
  });

  r.openapi(createRoute({
    method: 'patch', path: '/{id}/members/{user_id}', tags: TAGS, security: BEARER, middleware: write,
    summary: "Change a member's role (admins; owners only to grant or take away owner)",
    request: { params: memberParams, body: jsonBody(teamMemberPatchSchema) },
    responses: { 200: jsonOk(teamMemberSchema, 'the member with its new role'), 400: jsonError('VALIDATION_FAILED'), ...MEMBER_ERRORS },
  }), async (c) => {
    const { id, user_id } = c.req.valid('param');
    const { role } = c.req.valid('json');
    await authorizeTeam(c, deps, id, 'manage');
    const target = await getMember(deps.sql, id, user_id);
    if (!target) throw noMember(user_id);
    if (target.role === 'owner' || role === 'owner') await authorizeTeam(c, deps, id, 'own');
    const result = await changeMember(deps.sql, id, user_id, role);
    if (result === 'missing') throw noMember(user_id);
    if (result === 'last_owner') throw lastOwner();
    return ok(c, toTeamMember((await getMember(deps.sql, id, user_id))!), 200);
  });

  r.openapi(createRoute({
    method: 'delete', path: '/{id}/members/{user_id}', tags: TAGS, security: BEARER, middleware: write,
    summary: 'Remove a member (admins; owners to remove an owner), or leave the team (your own user_id)',
    request: { params: memberParams },
    responses: { 200: jsonOk(z.null(), 'removed'), ...MEMBER_ERRORS },
  }), async (c) => {
    const { id, user_id } = c.req.valid('param');
    const actor = await authorizeTeam(c, deps, id, 'read');
    if (user_id !== actor.user_id) {
      await authorizeTeam(c, deps, id, 'manage');
      const target = await getMember(deps.sql, id, user_id);
      if (!target) throw noMember(user_id);
      if (target.role === 'owner') await authorizeTeam(c, deps, id, 'own');
    }
    const result = await changeMember(deps.sql, id, user_id, null);
    if (result === 'missing') throw noMember(user_id);
    if (result === 'last_owner') throw lastOwner();
    return ok(c, null, 200);
  });

  return r;
}
