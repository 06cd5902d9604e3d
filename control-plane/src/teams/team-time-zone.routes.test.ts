import t from 'tap';
import { call, testApp } from '../test-support/app.js';
import { teamOfFour } from './test-support.js';

/*
 * A team's time zone (docs/api/teams.md "Teams"): UTC by default, set with PATCH by owners and
 * admins (renaming stays the owners'); an unknown zone is 400 and changes nothing.
 */

t.test('time_zone: default UTC, owners and admins set it, members cannot, bad names refused', async (t) => {
  const { app, team_id, owner, admin, member, outsider } = await teamOfFour(t, testApp(t));
  const path = `/v1/teams/${team_id}`;
  t.equal((await call(app, 'GET', path, { token: member.access_token })).body.data.time_zone, 'UTC', 'UTC by default');
  const byAdmin = await call(app, 'PATCH', path, { token: admin.access_token, body: { time_zone: 'Europe/Berlin' } });
  t.equal(byAdmin.status, 200, 'an admin sets it');
  t.match(byAdmin.body.data, { time_zone: 'Europe/Berlin', name: 'Platform' });
  const rename = await call(app, 'PATCH', path, { token: admin.access_token, body: { name: 'x', time_zone: 'UTC' } });
  t.match(rename, { status: 403, body: { error: { code: 'FORBIDDEN', details: { required_role: 'owner' } } } }, 'renaming is the owners\'');
  const byMember = await call(app, 'PATCH', path, { token: member.access_token, body: { time_zone: 'UTC' } });
  t.match(byMember, { status: 403, body: { error: { code: 'FORBIDDEN', details: { role: 'member', required_role: 'admin' } } } });
  t.equal((await call(app, 'PATCH', path, { token: outsider.access_token, body: { time_zone: 'UTC' } })).status, 404);
  const bad = await call(app, 'PATCH', path, { token: owner.access_token, body: { time_zone: 'Mars/Olympus' } });
  t.match(bad, { status: 400, body: { error: { code: 'VALIDATION_FAILED' } } });
  const both = await call(app, 'PATCH', path, { token: owner.access_token, body: { name: 'SRE', time_zone: 'America/New_York' } });
  t.match(both.body.data, { name: 'SRE', time_zone: 'America/New_York' }, 'an owner changes both');
  const listed = await call(app, 'GET', '/v1/teams', { token: admin.access_token });
  t.match(listed.body.data, [{ id: team_id, time_zone: 'America/New_York' }]);
});
