import type { Test } from 'tap';
import { newId } from '@vantage/shared-protocol';
import type { TeamRole } from './roles.js';
import { call, registerUser, testApp } from '../test-support/app.js';

/** A registered account (test-support/app.ts registerUser). */
export type User = Awaited<ReturnType<typeof registerUser>>;
type App = Awaited<ReturnType<typeof testApp>>['app'];

/** Invite `user` into `team_id` with `role` (by `by`, an admin or owner) and accept it as `user`. */
export async function join(app: App, team_id: string, by: User, user: User, role: string): Promise<void> {
  const invite = await call(app, 'POST', `/v1/teams/${team_id}/invites`, { token: by.access_token, body: { email: user.email, role } });
  if (invite.status !== 201) throw new Error(`invite: ${invite.status} ${JSON.stringify(invite.body)}`);
  const accepted = await call(app, 'POST', '/v1/teams/invites/accept', { token: user.access_token, body: { token: invite.body.data.token } });
  if (accepted.status !== 200) throw new Error(`accept: ${accepted.status} ${JSON.stringify(accepted.body)}`);
}

/**
 * A team "Platform" on `env`'s app made through the API: fresh accounts owner, admin, member and
 * viewer in it, and an outsider in no team.
 */
export async function teamOfFour(t: Test, env: Promise<{ app: App; sql: Awaited<ReturnType<typeof testApp>>['sql'] }>) {
  const { app, sql } = await env;
  const [owner, admin, member, viewer, outsider] = await Promise.all([1, 2, 3, 4, 5].map(() => registerUser(app)));
  // Accepting an invitation takes a verified address (docs/api/teams.md "Invitations").
  await sql`UPDATE users SET email_verified = true WHERE id IN ${sql([owner!, admin!, member!, viewer!, outsider!].map((u) => u.user_id))}`;
  const created = await call(app, 'POST', '/v1/teams', { token: owner!.access_token, body: { name: ' Platform ' } });
  t.equal(created.status, 201, 'a team is created');
  const team_id: string = created.body.data.id;
  await join(app, team_id, owner!, admin!, 'admin');
  await join(app, team_id, admin!, member!, 'member');
  await join(app, team_id, admin!, viewer!, 'viewer');
  return { app, sql, team_id, owner: owner!, admin: admin!, member: member!, viewer: viewer!, outsider: outsider! };
}

/**
 * A team with the given members, written straight to the database (for route families' own
 * authorization tests; the teams API has its own tests). `members`: one account per role
 * (`{ owner, member }`), or `[account, role]` pairs when several share a role. @returns the team id
 */
export async function seedTeam(
  sql: Awaited<ReturnType<typeof testApp>>['sql'],
  members: Partial<Record<TeamRole, { user_id: string }>> | Array<[{ user_id: string }, TeamRole]>,
): Promise<string> {
  const id = newId('team');
  await sql`INSERT INTO teams (id, name) VALUES (${id}, ${`team ${id}`})`;
  const pairs = Array.isArray(members) ? members : Object.entries(members).map(([role, u]) => [u!, role as TeamRole] as const);
  for (const [u, role] of pairs) await sql`INSERT INTO team_members (team_id, user_id, role) VALUES (${id}, ${u.user_id}, ${role})`;
  return id;
}
