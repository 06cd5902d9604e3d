import t from 'tap';
import { call, registerUser, testApp } from '../test-support/app.js';
import { seedTeam } from '../teams/test-support.js';

/*
 * /v1/oncall/schedules through the app on a real database: roles (viewer reads, member writes,
 * another team 404, a removed member loses access at once), validation errors, names unique per
 * team, overrides and who is on call across Berlin's spring-forward change.
 */

t.test('schedules: roles, validation, overrides and who is on call', async (t) => {
  const { app, sql } = await testApp(t);
  const [owner, member, viewer, outsider] = [await registerUser(app), await registerUser(app), await registerUser(app), await registerUser(app)];
  const team = await seedTeam(sql, { owner, member, viewer });
  const other_team = await seedTeam(sql, { owner: outsider });
  const rotation = { participants: [owner.user_id, member.user_id], starts_on: '2026-03-27', handoff_time: '09:00', shift_length: 1, shift_unit: 'days' };
  const body = { team_id: team, name: 'Primary', time_zone: 'Europe/Berlin', rotations: [rotation] };

  // Creating: a member may, a viewer may not (403 naming the role), a stranger's team is 404.
  let r = await call(app, 'POST', '/v1/oncall/schedules', { token: viewer.access_token, body });
  t.equal(r.status, 403, 'viewer cannot create');
  t.match(r.body.error, { code: 'FORBIDDEN', details: { team_id: team, role: 'viewer', required_role: 'member' } });
  r = await call(app, 'POST', '/v1/oncall/schedules', { token: outsider.access_token, body });
  t.equal(r.status, 404);
  t.equal(r.body.error.code, 'TEAM_NOT_FOUND', 'not a member of the team');
  r = await call(app, 'POST', '/v1/oncall/schedules', { token: member.access_token, body });
  t.equal(r.status, 201, JSON.stringify(r.body));
  const schedule = r.body.data;
  t.match(schedule, { id: /^ocs_/, team_id: team, name: 'Primary', time_zone: 'Europe/Berlin', rotations: [rotation], created_by: member.user_id });

  // Validation: each refused with its code, nothing written.
  const before = (await sql`SELECT count(*)::int AS n FROM oncall_schedules`)[0]!.n;
  r = await call(app, 'POST', '/v1/oncall/schedules', { token: member.access_token, body: { ...body, name: 'PRIMARY' } });
  t.equal(r.status, 409);
  t.equal(r.body.error.code, 'ONCALL_SCHEDULE_NAME_TAKEN', 'names are unique per team, any case');
  r = await call(app, 'POST', '/v1/oncall/schedules', { token: member.access_token, body: { ...body, name: 'Secondary', rotations: [{ ...rotation, participants: [member.user_id, outsider.user_id] }] } });
  t.equal(r.status, 422);
  t.equal(r.body.error.code, 'ONCALL_TEAM_MEMBER_REQUIRED');
  t.same(r.body.error.details.fields, [{ path: 'rotations[0].participants[1]', message: 'not a member of the schedule\'s team' }]);
  for (const [what, bad] of [
    ['time zone', { ...body, name: 'x', time_zone: 'Mars/Olympus' }],
    ['handoff time', { ...body, name: 'x', rotations: [{ ...rotation, handoff_time: '24:00' }] }],
    ['shift unit', { ...body, name: 'x', rotations: [{ ...rotation, shift_unit: 'months' }] }],
    ['no participant', { ...body, name: 'x', rotations: [{ ...rotation, participants: [] }] }],
    ['no team', { name: 'x' }],
  ] as const) {
    r = await call(app, 'POST', '/v1/oncall/schedules', { token: member.access_token, body: bad });
    t.equal(r.status, 400, `${what}: 400`);
    t.equal(r.body.error.code, 'VALIDATION_FAILED', what);
  }
  t.equal((await sql`SELECT count(*)::int AS n FROM oncall_schedules`)[0]!.n, before, 'nothing written');
  // The same name in another team is fine.
  r = await call(app, 'POST', '/v1/oncall/schedules', { token: outsider.access_token, body: { team_id: other_team, name: 'Primary' } });
  t.equal(r.status, 201);
  const foreign = r.body.data.id as string;

  // Reading: the viewer reads; another team's schedule looks like an unknown one.
  r = await call(app, 'GET', `/v1/oncall/schedules/${schedule.id}`, { token: viewer.access_token });
  t.equal(r.status, 200);
  r = await call(app, 'GET', `/v1/oncall/schedules/${foreign}`, { token: member.access_token });
  t.equal(r.status, 404);
  t.equal(r.body.error.code, 'ONCALL_SCHEDULE_NOT_FOUND');
  r = await call(app, 'GET', '/v1/oncall/schedules/ocs_nope', { token: member.access_token });
  t.equal(r.body.error.code, 'ONCALL_SCHEDULE_NOT_FOUND');
  r = await call(app, 'GET', '/v1/oncall/schedules', { token: member.access_token });
  t.same(r.body.data.items.map((s: { id: string }) => s.id), [schedule.id], 'the list shows the caller\'s teams only');
  r = await call(app, 'GET', `/v1/oncall/schedules?team_id=${other_team}`, { token: member.access_token });
  t.same(r.body.data.items, [], 'a team filter outside the caller\'s teams is empty');
  r = await call(app, 'PATCH', `/v1/oncall/schedules/${schedule.id}`, { token: viewer.access_token, body: { name: 'Renamed' } });
  t.equal(r.status, 403, 'viewer cannot change');
  r = await call(app, 'PATCH', `/v1/oncall/schedules/${foreign}`, { token: member.access_token, body: { name: 'Renamed' } });
  t.equal(r.status, 404, 'another team\'s: 404');

  // Who is on call across the spring-forward change (09:00 CET = 08:00Z, then 09:00 CEST = 07:00Z).
  const who = async (at: string, token = viewer.access_token) => (await call(app, 'GET', `/v1/oncall/schedules/${schedule.id}/on-call?at=${at}`, { token })).body.data;
  t.match(await who('2026-03-28T07:59:00Z'), { user_id: owner.user_id, source: 'rotation', shift_start: '2026-03-27T08:00:00.000Z', shift_end: '2026-03-28T08:00:00.000Z' });
  t.match(await who('2026-03-29T06:59:00Z'), { user_id: member.user_id, shift_start: '2026-03-28T08:00:00.000Z', shift_end: '2026-03-29T07:00:00.000Z' }, '08:59 CEST');
  t.match(await who('2026-03-29T07:00:00Z'), { user_id: owner.user_id, shift_start: '2026-03-29T07:00:00.000Z' }, '09:00 CEST');
  r = await call(app, 'GET', `/v1/oncall/schedules/${schedule.id}/on-call?at=yesterday`, { token: viewer.access_token });
  t.equal(r.status, 400, 'a bad instant');

  // Overrides: the user must be a member, replaces_user_id a participant, the span sane.
  const override = { user_id: viewer.user_id, starts_at: '2026-03-29T06:00:00Z', ends_at: '2026-03-29T10:00:00Z' };
  r = await call(app, 'POST', `/v1/oncall/schedules/${schedule.id}/overrides`, { token: viewer.access_token, body: override });
  t.equal(r.status, 403, 'viewer cannot add an override');
  r = await call(app, 'POST', `/v1/oncall/schedules/${schedule.id}/overrides`, { token: member.access_token, body: { ...override, user_id: outsider.user_id } });
  t.equal(r.body.error.code, 'ONCALL_TEAM_MEMBER_REQUIRED');
  t.same(r.body.error.details.fields.map((f: { path: string }) => f.path), ['user_id']);
  r = await call(app, 'POST', `/v1/oncall/schedules/${schedule.id}/overrides`, { token: member.access_token, body: { ...override, replaces_user_id: viewer.user_id } });
  t.equal(r.status, 404);
  t.equal(r.body.error.code, 'ONCALL_PARTICIPANT_NOT_FOUND', 'replaces someone who is not a participant');
  r = await call(app, 'POST', `/v1/oncall/schedules/${schedule.id}/overrides`, { token: member.access_token, body: { ...override, ends_at: override.starts_at } });
  t.equal(r.status, 400, 'ends_at must follow starts_at');
  t.equal((await sql`SELECT count(*)::int AS n FROM oncall_overrides`)[0]!.n, 0, 'no override written');
  r = await call(app, 'POST', `/v1/oncall/schedules/${schedule.id}/overrides`, { token: member.access_token, body: { ...override, replaces_user_id: member.user_id } });
  t.equal(r.status, 201, JSON.stringify(r.body));
  const oco = r.body.data;
  t.match(oco, { id: /^oco_/, schedule_id: schedule.id, user_id: viewer.user_id, replaces_user_id: member.user_id, starts_at: '2026-03-29T06:00:00.000Z' });
  t.match(await who('2026-03-29T06:30:00Z'), { user_id: viewer.user_id, source: 'override', override_id: oco.id }, 'the override wins over the member\'s shift');
  t.match(await who('2026-03-29T07:30:00Z'), { user_id: owner.user_id, source: 'rotation' }, 'it replaces the member only: the owner\'s shift stands');
  r = await call(app, 'DELETE', `/v1/oncall/schedules/${schedule.id}/overrides/${oco.id}`, { token: member.access_token });
  t.equal(r.status, 200);
  t.match(await who('2026-03-29T06:30:00Z'), { user_id: member.user_id, source: 'rotation' }, 'deleted: the rotation again');
  r = await call(app, 'DELETE', `/v1/oncall/schedules/${schedule.id}/overrides/${oco.id}`, { token: member.access_token });
  t.equal(r.status, 404);
  t.equal(r.body.error.code, 'ONCALL_PARTICIPANT_NOT_FOUND', 'an unknown override');

  // PATCH: rotations replaced and checked; a rename onto a taken name is 409.
  await call(app, 'POST', '/v1/oncall/schedules', { token: member.access_token, body: { team_id: team, name: 'Secondary' } });
  r = await call(app, 'PATCH', `/v1/oncall/schedules/${schedule.id}`, { token: member.access_token, body: { name: 'secondary' } });
  t.equal(r.body.error.code, 'ONCALL_SCHEDULE_NAME_TAKEN');
  r = await call(app, 'PATCH', `/v1/oncall/schedules/${schedule.id}`, { token: member.access_token, body: { rotations: [{ ...rotation, participants: [outsider.user_id] }] } });
  t.equal(r.body.error.code, 'ONCALL_TEAM_MEMBER_REQUIRED');
  r = await call(app, 'PATCH', `/v1/oncall/schedules/${schedule.id}`, { token: member.access_token, body: { time_zone: 'UTC' } });
  t.equal(r.status, 200);
  t.match(r.body.data, { name: 'Primary', time_zone: 'UTC', rotations: [rotation] }, 'only the zone changed');

  // A removed member loses access at once.
  await sql`DELETE FROM team_members WHERE team_id = ${team} AND user_id = ${viewer.user_id}`;
  r = await call(app, 'GET', `/v1/oncall/schedules/${schedule.id}`, { token: viewer.access_token });
  t.equal(r.status, 404);
  t.equal(r.body.error.code, 'ONCALL_SCHEDULE_NOT_FOUND');

  r = await call(app, 'DELETE', `/v1/oncall/schedules/${schedule.id}`, { token: member.access_token });
  t.equal(r.status, 200);
  r = await call(app, 'GET', `/v1/oncall/schedules/${schedule.id}`, { token: member.access_token });
  t.equal(r.status, 404, 'deleted');
});
