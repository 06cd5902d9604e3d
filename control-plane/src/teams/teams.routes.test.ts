import t from 'tap';
import { newId } from '@vantage/shared-protocol';
import { call, createApiKey, registerUser, testApp } from '../test-support/app.js';
import { teamOfFour, type User } from './test-support.js';

// One app and database for the whole file (each test makes its own accounts and team): a
// migration per test would cost more than the tests themselves on a loaded machine.
let shared: ReturnType<typeof testApp> | undefined;
const env = () => (shared ??= testApp(t));

t.test('create, list and read teams: the creator is owner; another team answers 404 TEAM_NOT_FOUND', async (t) => {
  const { app, team_id, owner, viewer, outsider } = await teamOfFour(t, env());
  const mine = await call(app, 'GET', `/v1/teams/${team_id}`, { token: owner.access_token });
  t.equal(mine.status, 200);
  t.match(mine.body.data, { id: team_id, name: 'Platform', role: 'owner', member_count: 4 });
  t.match(team_id, /^team_/);
  const viewed = await call(app, 'GET', '/v1/teams', { token: viewer.access_token });
  t.same(viewed.body.data.map((x: { id: string; role: string }) => [x.id, x.role]), [[team_id, 'viewer']], 'a viewer lists the team with its role');
  t.same((await call(app, 'GET', '/v1/teams', { token: outsider.access_token })).body.data, [], 'an outsider has no team');
  for (const id of [team_id, newId('team'), 'nonsense']) {
    const res = await call(app, 'GET', `/v1/teams/${id}`, { token: outsider.access_token });
    t.equal(res.status, 404, `${id}: 404 for an outsider`);
    t.equal(res.body.error.code, 'TEAM_NOT_FOUND');
  }
  const bad = await call(app, 'POST', '/v1/teams', { token: outsider.access_token, body: { name: '   ' } });
  t.equal(bad.status, 400, 'a blank name is refused');
  t.equal(bad.body.error.code, 'VALIDATION_FAILED');
  t.same((await call(app, 'GET', '/v1/teams', { token: outsider.access_token })).body.data, [], 'and creates nothing');
  const key = await createApiKey(app, outsider.access_token, ['read']);
  const readOnly = await call(app, 'POST', '/v1/teams', { token: key.key, body: { name: 'x' } });
  t.equal(readOnly.status, 403, 'a read-only key cannot create a team');
  t.equal(readOnly.body.error.details.required_scope, 'write');
});

t.test('renaming a team: owners only; 403 names the role needed; outsiders 404', async (t) => {
  const { app, team_id, owner, admin, member, viewer, outsider } = await teamOfFour(t, env());
  for (const [who, role] of [[viewer, 'viewer'], [member, 'member'], [admin, 'admin']] as const) {
    const res = await call(app, 'PATCH', `/v1/teams/${team_id}`, { token: who.access_token, body: { name: 'Renamed' } });
    t.equal(res.status, 403, `${role} cannot rename`);
    t.match(res.body.error, { code: 'FORBIDDEN', details: { team_id, role, required_role: 'owner' } });
  }
  t.equal((await call(app, 'PATCH', `/v1/teams/${team_id}`, { token: outsider.access_token, body: { name: 'Renamed' } })).body.error.code, 'TEAM_NOT_FOUND');
  t.equal((await call(app, 'GET', `/v1/teams/${team_id}`, { token: owner.access_token })).body.data.name, 'Platform', 'nothing changed');
  const renamed = await call(app, 'PATCH', `/v1/teams/${team_id}`, { token: owner.access_token, body: { name: 'Platform SRE' } });
  t.equal(renamed.status, 200);
  t.equal(renamed.body.data.name, 'Platform SRE');
});

t.test('deleting a team: owners only, refused with 409 naming what it still owns', async (t) => {
  const { app, sql, team_id, owner, admin } = await teamOfFour(t, env());
  const denied = await call(app, 'DELETE', `/v1/teams/${team_id}`, { token: admin.access_token });
  t.equal(denied.status, 403, 'an admin cannot delete the team');
  t.equal(denied.body.error.details.required_role, 'owner');
  const group_id = newId('monitor_group');
  await sql`INSERT INTO monitor_groups (id, user_id, name, team_id) VALUES (${group_id}, ${admin.user_id}, 'web', ${team_id})`;
  const busy = await call(app, 'DELETE', `/v1/teams/${team_id}`, { token: owner.access_token });
  t.equal(busy.status, 409);
  t.equal(busy.body.error.code, 'CONFLICT');
  t.same(busy.body.error.details.remaining, { monitor_groups: 1 }, 'names what is left');
  t.match(busy.body.error.message, /1 monitor groups/);
  t.equal((await call(app, 'GET', `/v1/teams/${team_id}`, { token: admin.access_token })).status, 200, 'the team is still there');
  await sql`DELETE FROM monitor_groups WHERE id = ${group_id}`;
  t.equal((await call(app, 'DELETE', `/v1/teams/${team_id}`, { token: owner.access_token })).status, 200);
  t.equal((await call(app, 'GET', `/v1/teams/${team_id}`, { token: owner.access_token })).status, 404, 'gone');
  const [left] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM team_members WHERE team_id = ${team_id}`;
  t.equal(left!.n, 0, 'with its members');
});

t.test('PATCH a team with nothing to change: 400 VALIDATION_FAILED, the team unchanged', async (t) => {
  const { app, team_id, owner } = await teamOfFour(t, env());
  const before = (await call(app, 'GET', `/v1/teams/${team_id}`, { token: owner.access_token })).body.data;
  const empty = await call(app, 'PATCH', `/v1/teams/${team_id}`, { token: owner.access_token, body: {} });
  t.equal(empty.status, 400);
  t.equal(empty.body.error.code, 'VALIDATION_FAILED');
  t.same((await call(app, 'GET', `/v1/teams/${team_id}`, { token: owner.access_token })).body.data, before, 'nothing changed');
  t.equal((await call(app, 'PATCH', `/v1/teams/${team_id}`, { token: owner.access_token, body: { time_zone: 'Europe/Paris' } })).status, 200, 'one field is enough');
});
