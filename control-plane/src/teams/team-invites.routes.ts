import { createRoute, z } from '@hono/zod-openapi';
import { createdTeamInviteSchema, isId, newId, newSecret, teamInviteCreateSchema, teamInviteListSchema } from '@vantage/shared-protocol';
import { findUserById } from '../accounts/accounts.db.js';
import { hashSecret } from '../accounts/secrets.js';
import { publicBaseUrl } from '../config/public-url.js';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { requireAuth } from '../middleware/auth.js';
import { teamInviteEmail } from './invite-email.js';
import { authorizeTeam } from './team-access.js';
import { insertTeamInvite, listTeamInvites, revokeTeamInvite } from './team-invites.db.js';
import { isMemberByEmail } from './team-members.db.js';
import { TEAM_FORBIDDEN, TEAM_NOT_FOUND, teamIdParam } from './teams.routes.js';
import { teamOfMember } from './teams.db.js';
import { toTeamInvite } from './view.js';

const read = [requireAuth({ scope: 'read' })];
const write = [requireAuth({ scope: 'write' })];
const TAGS = ['teams'];
const inviteParams = teamIdParam.extend({
  invite_id: z.string().max(64).openapi({ param: { name: 'invite_id', in: 'path' }, example: 'tinv_01jd3k6w9z4q8r2t7v5x1y3b6c' }),
});

/**
 * `/v1/teams/{id}/invites` (docs/api/teams.md "Invitations"), admins and owners: invite an
 * address with a role (never owner; an e-mail carries the `tit_…` token, which the answer also
 * shows once), list invitations with their status, revoke a pending one. Inviting an address that
 * is already a member's is 409 TEAM_MEMBER_EXISTS.
 */
export function teamInvitesRouter(deps: AppDeps) {
  const r = createRouter();

  r.openapi(createRoute({
    method: 'post', path: '/{id}/invites', operationId: 'createTeamInvite', tags: TAGS, security: BEARER, middleware: write,
    summary: 'Invite an e-mail address into a team with a role (admins); the token is e-mailed and returned once',
    request: { params: teamIdParam, body: jsonBody(teamInviteCreateSchema) },
    responses: {
      201: jsonOk(createdTeamInviteSchema, 'the invitation with its `token` (`tit_…`, shown once) and how the e-mail left'),
      400: jsonError('VALIDATION_FAILED'), ...AUTH_ERRORS, ...TEAM_FORBIDDEN, ...TEAM_NOT_FOUND,
      409: jsonError('TEAM_MEMBER_EXISTS: an account with this address is already a member'),
    },
  }), async (c) => {
    const { id } = c.req.valid('param');
    const body = c.req.valid('json');
    const actor = await authorizeTeam(c, deps, id, 'manage');
    if (await isMemberByEmail(deps.sql, id, body.email)) throw new ApiError('TEAM_MEMBER_EXISTS', `${body.email} is already a member of this team`);
    const [team, inviter] = await Promise.all([teamOfMember(deps.sql, id, actor.user_id), findUserById(deps.sql, actor.user_id)]);
    const token = newSecret('team_invite_token');
    const { row, email_delivery } = await deps.sql.begin(async (tx) => {
      const row = await insertTeamInvite(tx, { id: newId('team_invite'), team_id: id, email: body.email, role: body.role, token_hash: hashSecret(token), invited_by: actor.user_id, expires_in_s: body.expires_in_s });
      const mail = teamInviteEmail({ team_name: team!.name, inviter_email: inviter!.email, role: row.role, token, base_url: publicBaseUrl(deps.config), expires_at: row.expires_at });
      const email_delivery = await deps.mail.send({ ...mail, to: row.email, user_id: null, kind: 'team.invite' }, tx);
      return { row, email_delivery };
    });
    return ok(c, { ...toTeamInvite(row), token, email_delivery }, 201);
  });

  r.openapi(createRoute({
    method: 'get', path: '/{id}/invites', tags: TAGS, security: BEARER, middleware: read,
    summary: "A team's invitations with their status, newest first (admins; never their tokens)",
    request: { params: teamIdParam },
    responses: { 200: jsonOk(teamInviteListSchema, 'the invitations'), ...AUTH_ERRORS, ...TEAM_FORBIDDEN, ...TEAM_NOT_FOUND },
  }), async (c) => {
    const { id } = c.req.valid('param');
    await authorizeTeam(c, deps, id, 'manage');
    return ok(c, (await listTeamInvites(deps.sql, id)).map((row) => toTeamInvite(row)), 200);
  });

  r.openapi(createRoute({
    method: 'delete', path: '/{id}/invites/{invite_id}', tags: TAGS, security: BEARER, middleware: write,
    summary: 'Revoke a pending invitation (admins): its token stops working',
    request: { params: inviteParams },
    responses: { 200: jsonOk(z.null(), 'revoked'), ...AUTH_ERRORS, ...TEAM_FORBIDDEN, 404: jsonError('TEAM_NOT_FOUND (not your team), or NOT_FOUND (no pending invitation with this id)') },
  }), async (c) => {
    const { id, invite_id } = c.req.valid('param');
    await authorizeTeam(c, deps, id, 'manage');
    if (!isId('team_invite', invite_id) || !(await revokeTeamInvite(deps.sql, id, invite_id))) throw new ApiError('NOT_FOUND', `no pending invitation ${invite_id} in this team`);
    return ok(c, null, 200);
  });

  return r;
}
