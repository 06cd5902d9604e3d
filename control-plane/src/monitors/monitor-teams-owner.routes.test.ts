import t from 'tap';
import { call, registerUser, testApp } from '../test-support/app.js';
import { seedTeam as teamOf, type User } from '../teams/test-support.js';

/*
 * What owning a monitor by a team means (docs/api/monitors.md "Teams"): names unique per owner,
 * the plan's quota counted per owner, a monitor and its group of the same owner, and moves into
 * and out of a team with write access on both sides.
 */

const http = (name: string, extra: Record<string, unknown> = {}) => ({ name, type: 'http', target: 'http://1.1.1.1/', ...extra });

t.test('names are unique per owner: personal ones per user, a team\'s across its members', async (t) => {
  const { app, sql } = await testApp(t, { config: { plan: 'business' } });
  const [a, b] = [await registerUser(app), await registerUser(app)];
  const team_id = await teamOf(sql, [[a, 'member'], [b, 'member']]);
  const api = (u: User, method: string, path: string, body?: unknown) => call(app, method, path, { token: u.access_token, body });
  t.equal((await api(a, 'POST', '/v1/monitors', http('API'))).status, 201, 'a\'s personal API');
  t.equal((await api(b, 'POST', '/v1/monitors', http('API'))).status, 201, 'b\'s personal API');
  t.equal((await api(a, 'POST', '/v1/monitors', http('API', { team_id }))).status, 201, 'the team\'s API');
  const dup = await api(b, 'POST', '/v1/monitors', http('API', { team_id }));
  t.equal(dup.status, 409, 'another member cannot take the team\'s name');
  t.equal(dup.body.error.code, 'MONITOR_NAME_TAKEN');
  const personal = (await api(b, 'GET', '/v1/monitors?q=API')).body.data.items.find((m: { team_id: string | null }) => m.team_id === null);
  const move = await api(b, 'PATCH', `/v1/monitors/${personal.id}`, { team_id });
  t.equal(move.status, 409, 'nor move a monitor of that name in');
  t.equal(move.body.error.code, 'MONITOR_NAME_TAKEN');
  t.equal((await api(b, 'GET', `/v1/monitors/${personal.id}`)).body.data.team_id, null, 'the refused move changed nothing');

  t.equal((await api(a, 'POST', '/v1/monitor-groups', { name: 'prod' })).status, 201);
  t.equal((await api(a, 'POST', '/v1/monitor-groups', { name: 'prod', team_id })).status, 201, 'group names too: per owner');
  t.equal((await api(b, 'POST', '/v1/monitor-groups', { name: 'prod', team_id })).body.error.code, 'CONFLICT');
});

t.test('the plan\'s monitor quota counts per owner: a user\'s personal monitors, a team\'s', async (t) => {
  const { app, sql } = await testApp(t, { config: { plan_monitors_max: 2 } });
  const [a, b] = [await registerUser(app), await registerUser(app)];
  const team_id = await teamOf(sql, [[a, 'owner'], [b, 'member']]);
  const api = (u: User, method: string, path: string, body?: unknown) => call(app, method, path, { token: u.access_token, body });
  const p1 = await api(a, 'POST', '/v1/monitors', http('p1'));
  t.equal((await api(a, 'POST', '/v1/monitors', http('p2'))).status, 201);
  t.equal((await api(a, 'POST', '/v1/monitors', http('p3'))).body.error.code, 'MONITOR_LIMIT_EXCEEDED', 'a\'s personal quota is full');
  t.equal((await api(a, 'POST', '/v1/monitors', http('t1', { team_id }))).status, 201, 'the team has its own');
  t.equal((await api(b, 'POST', '/v1/monitors', http('t2', { team_id }))).status, 201);
  const full = await api(b, 'POST', '/v1/monitors', http('t3', { team_id }));
  t.equal(full.status, 422);
  t.equal(full.body.error.code, 'MONITOR_LIMIT_EXCEEDED', 'the team\'s quota is full, whoever creates');
  t.equal((await api(b, 'POST', '/v1/monitors', http('b1'))).status, 201, 'b\'s personal quota is untouched');
  const moved = await api(a, 'PATCH', `/v1/monitors/${p1.body.data.id}`, { team_id });
  t.equal(moved.body.error?.code, 'MONITOR_LIMIT_EXCEEDED', 'a move into a full team is refused too');
  const imported = await api(b, 'POST', `/v1/monitors/import?team_id=${team_id}`, { monitors: [http('t4')] });
  t.equal(imported.body.data.items[0].error.code, 'MONITOR_LIMIT_EXCEEDED', 'and an import');
  const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM monitors WHERE team_id = ${team_id}`;
  t.equal(row!.n, 2);
});

t.test('a monitor and its group have the same owner; moves need write on both sides', async (t) => {
  const { app, sql } = await testApp(t, { config: { plan: 'business' } });
  const [a, b, outsider] = [await registerUser(app), await registerUser(app), await registerUser(app)];
  const team_id = await teamOf(sql, [[a, 'member'], [b, 'member']]);
  const watched = await teamOf(sql, [[a, 'viewer']]);
  const api = (u: User, method: string, path: string, body?: unknown) => call(app, method, path, { token: u.access_token, body });
  const mine = (await api(a, 'POST', '/v1/monitor-groups', { name: 'mine' })).body.data.id;
  const ours = (await api(a, 'POST', '/v1/monitor-groups', { name: 'ours', team_id })).body.data.id;

  const crossed = await api(a, 'POST', '/v1/monitors', http('x', { team_id, group_id: mine }));
  t.equal(crossed.status, 400, 'a team monitor in a personal group');
  t.match(crossed.body.error, { code: 'VALIDATION_FAILED', details: { fields: [{ path: 'group_id' }] } });
  t.equal((await api(a, 'POST', '/v1/monitors', http('y', { group_id: ours }))).body.error.code, 'VALIDATION_FAILED', 'a personal monitor in a team group');
  t.equal((await api(b, 'POST', '/v1/monitors', http('z', { team_id, group_id: ours }))).status, 201, 'a team monitor in the team\'s group, by any member');

  const m = (await api(a, 'POST', '/v1/monitors', http('site', { group_id: mine }))).body.data;
  const toViewerTeam = await api(a, 'PATCH', `/v1/monitors/${m.id}`, { team_id: watched });
  t.match(toViewerTeam, { status: 403, body: { error: { code: 'FORBIDDEN', details: { team_id: watched, role: 'viewer' } } } }, 'not into a team it only views');
  const toStranger = await api(a, 'PATCH', `/v1/monitors/${m.id}`, { team_id: await teamOf(sql, [[outsider, 'owner']]) });
  t.match(toStranger, { status: 404, body: { error: { code: 'TEAM_NOT_FOUND' } } }, 'nor into a team it is not in');
  const badGroup = await api(a, 'PATCH', `/v1/monitors/${m.id}`, { team_id, group_id: mine });
  t.equal(badGroup.body.error.code, 'VALIDATION_FAILED', 'nor with its personal group');
  t.match((await api(a, 'GET', `/v1/monitors/${m.id}`)).body.data, { team_id: null, group_id: mine }, 'refused moves changed nothing');

  const moved = await api(a, 'PATCH', `/v1/monitors/${m.id}`, { team_id });
  t.equal(moved.status, 200);
  t.match(moved.body.data, { team_id, group_id: null, user_id: a.user_id }, 'moved in, leaving its personal group');
  t.equal((await api(b, 'PATCH', `/v1/monitors/${m.id}`, { group_id: ours })).body.data.group_id, ours, 'now any member changes it');
  const takeOut = await api(b, 'PATCH', `/v1/monitors/${m.id}`, { team_id: null });
  t.match(takeOut, { status: 403, body: { error: { code: 'FORBIDDEN' } } }, 'only its creator takes it out of the team');
  const back = await api(a, 'PATCH', `/v1/monitors/${m.id}`, { team_id: null });
  t.match(back.body.data, { team_id: null, group_id: null }, 'its creator does: it is personal again');
  t.equal((await api(b, 'GET', `/v1/monitors/${m.id}`)).status, 404, 'and the team no longer sees it');
});
