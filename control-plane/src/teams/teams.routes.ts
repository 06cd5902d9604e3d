import { createRoute, z } from '@hono/zod-openapi';
import { newId, teamCreateSchema, teamInviteAcceptSchema, teamListSchema, teamPatchSchema, teamSchema } from '@vantage/shared-protocol';
import { hashSecret } from '../accounts/secrets.js';
import { findUserById } from '../accounts/accounts.db.js';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { requireAuth } from '../middleware/auth.js';
import { actorOf } from './authorize.js';
import { authorizeTeam, requireAccountActor } from './team-access.js';
import { acceptTeamInvite } from './team-invites.db.js';
import { deleteTeam, insertTeam, renameTeam, setTeamTimeZone, teamOfMember, teamsOfMember } from './teams.db.js';
import { toTeam } from './view.js';
import { setTeamRequire2fa } from '../accounts/two-factor-policy.db.js';

const read = [requireAuth({ scope: 'read' })];
const write = [requireAuth({ scope: 'write' })];
const TAGS = ['teams'];
/** The `{id}` path parameter of every team route. */
export const teamIdParam = z.object({ id: z.string().max(64).openapi({ param: { name: 'id', in: 'path' }, example: 'team_01jd3k6w9z4q8r2t7v5x1y3b6c' }) });
/** 404 of every team route: no such team, or not one of yours. */
export const TEAM_NOT_FOUND = { 404: jsonError('TEAM_NOT_FOUND: no such team, or you are not a member (another team looks the same)') };
/** 403 of every team route: the credential lacks the scope, or the caller's role is too weak (`details.required_role`). */
export const TEAM_FORBIDDEN = { 403: jsonError('FORBIDDEN: the credential lacks the scope, or your role is too weak (details: team_id, role, required_role)') };

/**
 * `/v1/teams` (docs/api/teams.md): create a team (the caller becomes its owner), list the caller's
 * teams with its role in each, read one, rename it (owners), delete it (owners; 409 CONFLICT while
 * it still owns resources, naming them), and accept an invitation. Every route decides access
 * through teams/authorize.ts: another team's id is 404 TEAM_NOT_FOUND.
 */
export function teamsRouter(deps: AppDeps) {
  const r = createRouter();

  r.openapi(createRoute({
    method: 'get', path: '/', tags: TAGS, security: BEARER, middleware: read,
    summary: 'Your teams (a workspace token: its team only), a plain array, oldest first, with your role in each',
    responses: { 200: jsonOk(teamListSchema, 'the teams'), ...AUTH_ERRORS },
  }), async (c) => {
    const actor = await actorOf(c, deps);
    return ok(c, (await teamsOfMember(deps.sql, actor.user_id, actor.team_only)).map(toTeam), 200);
  });

  r.openapi(createRoute({
    method: 'post', path: '/', tags: TAGS, security: BEARER, middleware: write,
    summary: 'Create a team; you become its owner',
    request: { body: jsonBody(teamCreateSchema) },
    responses: { 201: jsonOk(teamSchema, 'the team (role owner)'), 400: jsonError('VALIDATION_FAILED'), ...AUTH_ERRORS, 403: jsonError('FORBIDDEN: a workspace token, or a credential without the write scope') },
  }), async (c) => {
    const actor = await actorOf(c, deps);
    requireAccountActor(actor, 'create teams');
    const row = await insertTeam(deps.sql, { id: newId('team'), name: c.req.valid('json').name, user_id: actor.user_id });
    return ok(c, toTeam(row), 201);
  });

  r.openapi(createRoute({
    method: 'post', path: '/invites/accept', operationId: 'acceptTeamInvite', tags: TAGS, security: BEARER, middleware: write,
    summary: 'Accept a team invitation with its tit_ token: the signed-in account must have the invited e-mail address',
    request: { body: jsonBody(teamInviteAcceptSchema) },
    responses: {
      200: jsonOk(teamSchema, 'the team joined, with the role the invitation gave'),
      400: jsonError('TEAM_INVITE_INVALID: unknown, used, revoked or expired token, or another address; VALIDATION_FAILED'),
      ...AUTH_ERRORS, 403: jsonError('ACCOUNT_EMAIL_UNVERIFIED: the account\'s e-mail address is not verified; FORBIDDEN: a workspace token, or a credential without the write scope'),
      409: jsonError('TEAM_MEMBER_EXISTS: you are already a member (the invitation stays usable)'),
    },
  }), async (c) => {
    const actor = await actorOf(c, deps);
    requireAccountActor(actor, 'accept invitations');
    // An invitation is addressed to an e-mail: only an account that proved it owns its address joins (docs/api/teams.md "Invitations").
    if (!(await findUserById(deps.sql, actor.user_id))?.email_verified) {
      throw new ApiError('ACCOUNT_EMAIL_UNVERIFIED', 'verify your e-mail address before accepting a team invitation (POST /v1/auth/verify-email/resend)');
    }
    const result = await acceptTeamInvite(deps.sql, hashSecret(c.req.valid('json').token), actor.user_id);
    if (result === 'invalid') throw new ApiError('TEAM_INVITE_INVALID', 'this invitation is not valid for your account: it is unknown, used, revoked or expired, or addressed to another e-mail address');
    if (result === 'member_exists') throw new ApiError('TEAM_MEMBER_EXISTS', 'you are already a member of this team');
    return ok(c, toTeam((await teamOfMember(deps.sql, result.team_id, actor.user_id))!), 200);
  });

  r.openapi(createRoute({
    method: 'get', path: '/{id}', tags: TAGS, security: BEARER, middleware: read, summary: 'One of your teams',
    request: { params: teamIdParam },
    responses: { 200: jsonOk(teamSchema, 'the team'), ...AUTH_ERRORS, ...TEAM_NOT_FOUND },
  }), async (c) => {
    const { id } = c.req.valid('param');
    const actor = await authorizeTeam(c, deps, id, 'read');
    return ok(c, toTeam((await teamOfMember(deps.sql, id, actor.user_id))!), 200);
  });

  r.openapi(createRoute({
    method: 'patch', path: '/{id}', tags: TAGS, security: BEARER, middleware: write, summary: 'Rename a team (owners) or set its time zone or two-factor policy `require_2fa` (owners and admins)',
    request: { params: teamIdParam, body: jsonBody(teamPatchSchema) },
    responses: { 200: jsonOk(teamSchema, 'the renamed team'), 400: jsonError('VALIDATION_FAILED'), ...AUTH_ERRORS, ...TEAM_FORBIDDEN, ...TEAM_NOT_FOUND },
  }), async (c) => {
    const { id } = c.req.valid('param');
    const body = c.req.valid('json');
    // Nothing to change is a client error, as for every other PATCH (docs/api/teams.md "Teams").
    if (body.name === undefined && body.time_zone === undefined && body.require_2fa === undefined) {
      throw new ApiError('VALIDATION_FAILED', 'give at least one of name, time_zone, require_2fa', { fields: [{ path: '', message: 'nothing to change' }], in: 'body' });
    }
    // Renaming needs the owner role, the time zone and the two-factor policy an admin (docs/api/teams.md "Teams").
    const actor = await authorizeTeam(c, deps, id, body.name !== undefined ? 'own' : 'manage');
    if (body.name !== undefined) await renameTeam(deps.sql, id, body.name);
    if (body.time_zone !== undefined) await setTeamTimeZone(deps.sql, id, body.time_zone);
    if (body.require_2fa !== undefined) await setTeamRequire2fa(deps.sql, id, body.require_2fa);
    return ok(c, toTeam((await teamOfMember(deps.sql, id, actor.user_id))!), 200);
  });

  r.openapi(createRoute({
    method: 'delete', path: '/{id}', tags: TAGS, security: BEARER, middleware: write,
    summary: 'Delete a team with its members and invitations (owners); refused while it still owns resources',
    request: { params: teamIdParam },
    responses: {
      200: jsonOk(z.null(), 'deleted'), ...AUTH_ERRORS, ...TEAM_FORBIDDEN, ...TEAM_NOT_FOUND,
      409: jsonError('CONFLICT: the team still owns resources (details.remaining: rows per kind); delete or move them first'),
    },
  }), async (c) => {
    const { id } = c.req.valid('param');
    await authorizeTeam(c, deps, id, 'own');
    const result = await deleteTeam(deps.sql, id);
    if ('remaining' in result) {
      const left = Object.entries(result.remaining).map(([table, n]) => `${n} ${table.replace(/_/g, ' ')}`).join(', ');
      throw new ApiError('CONFLICT', `the team still owns resources (${left}): delete them or move them out of the team first`, { remaining: result.remaining });
    }
    return ok(c, null, 200);
  });

  return r;
}
