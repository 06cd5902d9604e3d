import t from 'tap';
import type { Context } from 'hono';
import { newId } from '@vantage/shared-protocol';
import type { AppEnv, Principal } from '../env.js';
import { ApiError } from '../errors.js';
import { testDatabase } from '../test-support/db.js';
import { allows, authorize, ownerForNew, ownerScope, type Owner } from './authorize.js';
import { ownedBy } from './owner-scope.db.js';
import { TEAM_ROLES, type Access } from './roles.js';
import { insertTeam } from './teams.db.js';

// The core of docs/api/teams.md "Who may do what", on the real database: every decision reads
// team_members afresh per request. A request context here is just what authorization reads of
// one (the principal and the request), as the app's identify middleware leaves them.

/** What authorize() sees of one request by `principal`. */
function request(principal: Principal): Context<AppEnv> {
  const raw = new Request('http://vantage.test/');
  return { req: { raw }, get: (key: string) => (key === 'principal' ? principal : undefined) } as unknown as Context<AppEnv>;
}
const session = (user_id: string): Principal => ({ user_id, kind: 'session', scopes: ['read', 'write'], credential_id: 'ses_test' });
const workspace = (user_id: string, team_id: string): Principal => ({ ...session(user_id), kind: 'api_key', team_id });

/** The error code authorize-like `fn` throws, or `ok`. */
async function outcome(fn: () => Promise<unknown>): Promise<string> {
  try {
    await fn();
    return 'ok';
  } catch (err) {
    if (err instanceof ApiError) return err.code;
    throw err;
  }
}

t.test('authorization core: personal vs team, every role, workspace tokens, removed members', async (t) => {
  const { sql } = await testDatabase(t);
  const users = ['owner', 'admin', 'member', 'viewer', 'outsider'].map((name) => ({ name, id: newId('user') }));
  for (const u of users) await sql`INSERT INTO users (id, email, password_hash) VALUES (${u.id}, ${`${u.name}-${u.id}@example.test`}, 'x')`;
  const [owner, admin, member, viewer, outsider] = users.map((u) => u.id) as [string, string, string, string, string];
  const team = (await insertTeam(sql, { id: newId('team'), name: 'Platform', user_id: owner })).id;
  const other = (await insertTeam(sql, { id: newId('team'), name: 'Other', user_id: outsider })).id;
  for (const [user_id, role] of [[admin, 'admin'], [member, 'member'], [viewer, 'viewer']] as const) {
    await sql`INSERT INTO team_members (team_id, user_id, role) VALUES (${team}, ${user_id}, ${role})`;
  }
  await sql`INSERT INTO team_members (team_id, user_id, role) VALUES (${other}, ${member}, 'viewer')`;
  const deps = { sql };

  t.test('each role against each access on a team resource; outsiders get the resource 404', async (t) => {
    const resource: Owner = { user_id: owner, team_id: team };
    const expected: Record<string, Record<Access, string>> = {
      viewer: { read: 'ok', write: 'FORBIDDEN', manage: 'FORBIDDEN', own: 'FORBIDDEN' },
      member: { read: 'ok', write: 'ok', manage: 'FORBIDDEN', own: 'FORBIDDEN' },
      admin: { read: 'ok', write: 'ok', manage: 'ok', own: 'FORBIDDEN' },
      owner: { read: 'ok', write: 'ok', manage: 'ok', own: 'ok' },
      outsider: { read: 'MONITOR_NOT_FOUND', write: 'MONITOR_NOT_FOUND', manage: 'MONITOR_NOT_FOUND', own: 'MONITOR_NOT_FOUND' },
    };
    for (const u of users) {
      for (const access of ['read', 'write', 'manage', 'own'] as const) {
        t.equal(await outcome(() => authorize(request(session(u.id)), deps, resource, access, 'MONITOR_NOT_FOUND', 'monitor')), expected[u.name]![access], `${u.name} ${access}`);
      }
    }
    t.same([...TEAM_ROLES], ['viewer', 'member', 'admin', 'owner'], 'roles weakest first');
    try {
      await authorize(request(session(viewer)), deps, resource, 'write', 'MONITOR_NOT_FOUND', 'monitor');
    } catch (err) {
      t.match(err, { code: 'FORBIDDEN', details: { team_id: team, role: 'viewer', required_role: 'member' } }, '403 names the role needed');
    }
    t.equal(await outcome(() => authorize(request(session(owner)), deps, null, 'read', 'MONITOR_NOT_FOUND', 'monitor')), 'MONITOR_NOT_FOUND', 'no resource: 404');
  });

  t.test('personal resources are their creator\'s alone, whatever its teams', async (t) => {
    const mine: Owner = { user_id: member, team_id: null };
    t.equal(await outcome(() => authorize(request(session(member)), deps, mine, 'write', 'NOT_FOUND', 'group')), 'ok');
    for (const other_user of [owner, admin, viewer, outsider]) {
      t.equal(await outcome(() => authorize(request(session(other_user)), deps, mine, 'read', 'NOT_FOUND', 'group')), 'NOT_FOUND', 'another account: 404, teammates too');
    }
  });

  t.test('a workspace token acts for its team only, by its owner\'s role there', async (t) => {
    const token = workspace(member, team);
    t.equal(await outcome(() => authorize(request(token), deps, { user_id: member, team_id: team }, 'write', 'NOT_FOUND', 'x')), 'ok');
    t.equal(await outcome(() => authorize(request(token), deps, { user_id: member, team_id: team }, 'manage', 'NOT_FOUND', 'x')), 'FORBIDDEN');
    t.equal(await outcome(() => authorize(request(token), deps, { user_id: member, team_id: null }, 'read', 'NOT_FOUND', 'x')), 'NOT_FOUND', 'not its owner\'s personal resources');
    t.equal(await outcome(() => authorize(request(token), deps, { user_id: outsider, team_id: other }, 'read', 'NOT_FOUND', 'x')), 'NOT_FOUND', 'not its owner\'s other teams');
    t.equal(await outcome(() => authorize(request(session(member)), deps, { user_id: outsider, team_id: other }, 'read', 'NOT_FOUND', 'x')), 'ok', 'which a session reads');
    t.same(await ownerScope(request(token), deps), { user_id: null, team_ids: [team] }, 'its lists show its team only');
    t.same(await ownerForNew(request(token), deps), { user_id: member, team_id: team }, 'what it creates belongs to its team');
    t.equal(await outcome(() => ownerForNew(request(token), deps, other)), 'TEAM_NOT_FOUND', 'never to another team');
    t.equal(await outcome(() => ownerForNew(request(token), deps, null)), 'ok', 'null team_id falls back to its team');
    t.same(await ownerForNew(request(token), deps, null), { user_id: member, team_id: team });
  });

  t.test('ownerScope and ownerForNew', async (t) => {
    const scope = await ownerScope(request(session(member)), deps);
    t.same({ user_id: scope.user_id, team_ids: [...scope.team_ids].sort() }, { user_id: member, team_ids: [team, other].sort() }, 'own and every team read');
    t.same(await ownerScope(request(session(member)), deps, 'write'), { user_id: member, team_ids: [team] }, 'write: not the team it only views');
    t.same(await ownerScope(request(session(member)), deps, 'read', other), { user_id: null, team_ids: [other] }, '?team_id= narrows to it');
    t.same(await ownerScope(request(session(outsider)), deps, 'read', team), { user_id: null, team_ids: [] }, 'a team one is not in: empty, no error');
    t.same(await ownerScope(request(session(member)), deps, 'read', null), { user_id: member, team_ids: [] }, 'null: personal only');
    t.same(await ownerForNew(request(session(member)), deps), { user_id: member, team_id: null }, 'personal by default');
    t.same(await ownerForNew(request(session(member)), deps, team), { user_id: member, team_id: team });
    t.equal(await outcome(() => ownerForNew(request(session(member)), deps, other)), 'FORBIDDEN', 'a viewer cannot create in the team');
    t.equal(await outcome(() => ownerForNew(request(session(outsider)), deps, team)), 'TEAM_NOT_FOUND', 'a non-member: 404');
    t.equal(await outcome(() => ownerForNew(request(session(member)), deps, newId('team'))), 'TEAM_NOT_FOUND', 'an unknown team: 404');
  });

  t.test('ownedBy selects exactly the rows of a scope', async (t) => {
    const rows = { mine: newId('monitor_group'), theirs: newId('monitor_group'), team: newId('monitor_group'), other: newId('monitor_group') };
    await sql`INSERT INTO monitor_groups (id, user_id, name, team_id) VALUES
      (${rows.mine}, ${member}, 'mine', NULL), (${rows.theirs}, ${owner}, 'theirs', NULL),
      (${rows.team}, ${owner}, 'team', ${team}), (${rows.other}, ${outsider}, 'other', ${other})`;
    const ids = async (scope: Awaited<ReturnType<typeof ownerScope>>) =>
      (await sql<{ id: string }[]>`SELECT g.id FROM monitor_groups g WHERE ${ownedBy(sql, scope, 'g')}`).map((r) => r.id).sort();
    t.same(await ids(await ownerScope(request(session(member)), deps)), [rows.mine, rows.team, rows.other].sort(), 'own + both teams, not the owner\'s personal row');
    t.same(await ids(await ownerScope(request(session(owner)), deps)), [rows.theirs, rows.team].sort());
    t.same(await ids(await ownerScope(request(session(member)), deps, 'write')), [rows.mine, rows.team].sort());
    t.same(await ids(await ownerScope(request(workspace(member, team)), deps)), [rows.team], 'a workspace token: its team only');
    t.same(await ids({ user_id: outsider, team_ids: [] }), [], 'a team row is never personal to its creator');
    t.same((await sql<{ id: string }[]>`SELECT id FROM monitor_groups WHERE ${ownedBy(sql, { user_id: member, team_ids: [] })}`).map((r) => r.id), [rows.mine], 'unqualified columns');
  });

  t.test('a removed member loses access at its next request; a demoted one its writes', async (t) => {
    const resource: Owner = { user_id: owner, team_id: team };
    const before = request(session(admin));
    t.equal(await outcome(() => authorize(before, deps, resource, 'write', 'NOT_FOUND', 'x')), 'ok');
    await sql`UPDATE team_members SET role = 'viewer' WHERE team_id = ${team} AND user_id = ${admin}`;
    t.equal(await outcome(() => authorize(request(session(admin)), deps, resource, 'write', 'NOT_FOUND', 'x')), 'FORBIDDEN', 'demoted: read only');
    await sql`DELETE FROM team_members WHERE team_id = ${team} AND user_id = ${admin}`;
    t.equal(await outcome(() => authorize(request(session(admin)), deps, resource, 'read', 'NOT_FOUND', 'x')), 'NOT_FOUND', 'removed: 404');
    t.notOk(allows({ user_id: admin, roles: new Map(), team_only: null }, resource, 'read'));
  });
});
