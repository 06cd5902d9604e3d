import t from 'tap';
import { call, testApp } from '../test-support/app.js';
import { teamOfFour, type User } from './test-support.js';

// One app and database for the whole file (each test makes its own accounts and team): a
// migration per test would cost more than the tests themselves on a loaded machine.
let shared: ReturnType<typeof testApp> | undefined;
const env = () => (shared ??= testApp(t));

t.test('members: everyone reads; admins manage non-owners; only owners touch owners; the last owner stays', async (t) => {
  const { app, team_id, owner, admin, member, viewer, outsider } = await teamOfFour(t, env());
  const list = await call(app, 'GET', `/v1/teams/${team_id}/members`, { token: viewer.access_token });
  t.equal(list.status, 200);
  t.same(list.body.data.map((m: { user_id: string; role: string }) => [m.user_id, m.role]),
    [[owner.user_id, 'owner'], [admin.user_id, 'admin'], [member.user_id, 'member'], [viewer.user_id, 'viewer']], 'owners first, by role');
  t.equal((await call(app, 'GET', `/v1/teams/${team_id}/members`, { token: outsider.access_token })).status, 404);

  const patch = (who: User, target: User, role: string) => call(app, 'PATCH', `/v1/teams/${team_id}/members/${target.user_id}`, { token: who.access_token, body: { role } });
  for (const who of [viewer, member]) {
    const res = await patch(who, viewer, 'member');
    t.equal(res.status, 403, 'viewers and members cannot change roles');
    t.equal(res.body.error.details.required_role, 'admin');
  }
  t.equal((await patch(outsider, viewer, 'member')).status, 404);
  t.equal((await patch(admin, viewer, 'member')).body.data.role, 'member', 'an admin promotes a viewer');
  t.equal((await patch(admin, viewer, 'viewer')).body.data.role, 'viewer', 'and demotes it');
  const grant = await patch(admin, member, 'owner');
  t.equal(grant.status, 403, 'an admin cannot grant owner');
  t.equal(grant.body.error.details.required_role, 'owner');
  t.equal((await patch(admin, owner, 'member')).status, 403, 'nor demote an owner');
  const bad = await patch(owner, member, 'boss');
  t.equal(bad.status, 400, 'an unknown role is refused');
  t.equal((await patch(admin, outsider, 'member')).body.error.code, 'NOT_FOUND', 'a non-member is not found');

  const last = await patch(owner, owner, 'admin');
  t.equal(last.status, 409, 'the last owner cannot demote itself');
  t.equal(last.body.error.code, 'CONFLICT');
  t.equal((await call(app, 'DELETE', `/v1/teams/${team_id}/members/${owner.user_id}`, { token: owner.access_token })).status, 409, 'nor leave');
  t.equal((await patch(owner, admin, 'owner')).body.data.role, 'owner', 'an owner grants owner');
  t.equal((await patch(owner, owner, 'admin')).body.data.role, 'admin', 'with a second owner, the first may step down');
  t.equal((await patch(owner, admin, 'admin')).status, 403, 'and, now an admin, cannot demote the new owner');
});

t.test('removing members: admins remove, anyone leaves, a removed member loses access at once', async (t) => {
  const { app, team_id, owner, admin, member, viewer } = await teamOfFour(t, env());
  const remove = (who: User, target: User) => call(app, 'DELETE', `/v1/teams/${team_id}/members/${target.user_id}`, { token: who.access_token });
  t.equal((await remove(member, viewer)).status, 403, 'a member cannot remove another');
  t.equal((await remove(admin, owner)).status, 403, 'an admin cannot remove an owner');
  t.equal((await call(app, 'GET', `/v1/teams/${team_id}`, { token: viewer.access_token })).status, 200, 'the viewer reads the team');
  t.equal((await remove(admin, viewer)).status, 200, 'an admin removes the viewer');
  const after = await call(app, 'GET', `/v1/teams/${team_id}`, { token: viewer.access_token });
  t.equal(after.status, 404, 'the removed viewer gets 404 on its next request');
  t.equal(after.body.error.code, 'TEAM_NOT_FOUND');
  t.same((await call(app, 'GET', '/v1/teams', { token: viewer.access_token })).body.data, []);
  t.equal((await remove(member, member)).status, 200, 'a member leaves');
  t.equal((await call(app, 'GET', `/v1/teams/${team_id}/members`, { token: member.access_token })).status, 404);
  t.equal((await remove(owner, admin)).status, 200, 'an owner removes an admin');
  t.equal((await call(app, 'GET', `/v1/teams/${team_id}`, { token: owner.access_token })).body.data.member_count, 1);
});
