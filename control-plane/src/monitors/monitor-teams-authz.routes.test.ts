import t from 'tap';
import type { TeamRole } from '../teams/roles.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { seedTeam as teamOf } from '../teams/test-support.js';

/*
 * The authorization table of the monitors family (docs/api/monitors.md "Teams"): every route
 * decides through the one authorization function. On a team's monitor (and group), owners,
 * admins and members read and write, a viewer reads and gets 403 on every change, another
 * account (or another team) and a removed member get 404, at once.
 */

type User = Awaited<ReturnType<typeof registerUser>>;

const { app, sql } = await testApp(t, { config: { plan: 'business' } });
const users = { owner: await registerUser(app), admin: await registerUser(app), member: await registerUser(app), viewer: await registerUser(app) };
const outsider = await registerUser(app);
const removed = await registerUser(app);
const team_id = await teamOf(sql, { ...users });
await sql`INSERT INTO team_members (team_id, user_id, role) VALUES (${team_id}, ${removed.user_id}, 'member')`;
// The outsider has a team of its own: being in some team opens no other team's monitors.
await teamOf(sql, { owner: outsider });
const api = (u: User, method: string, path: string, body?: unknown) => call(app, method, path, { token: u.access_token, body });

const created = await api(users.member, 'POST', '/v1/monitors', { name: 'shop', type: 'http', target: 'http://1.1.1.1/', team_id });
const group = await api(users.member, 'POST', '/v1/monitor-groups', { name: 'prod', team_id });
const beat = await api(users.member, 'POST', '/v1/monitors', { name: 'cron', type: 'heartbeat', team_id, config: { period_s: 300, grace_s: 60 } });
const m = created.body.data.id as string;
const g = group.body.data.id as string;
const hb = beat.body.data?.id as string;

t.test('a member creates team monitors and groups: team_id in every answer', async (t) => {
  t.equal(created.status, 201, JSON.stringify(created.body));
  t.equal(created.body.data.team_id, team_id);
  t.equal(created.body.data.user_id, users.member.user_id, 'user_id stays its creator');
  t.equal(group.status, 201, JSON.stringify(group.body));
  t.equal(group.body.data.team_id, team_id);
  t.equal(beat.status, 201, JSON.stringify(beat.body));
});

/** Read routes: every member role answers 200. */
const READS: Array<[string, string]> = [
  ['GET', `/v1/monitors/${m}`], ['GET', `/v1/monitors/${m}/checks`], ['GET', `/v1/monitors/${m}/uptime`],
  ['GET', `/v1/monitors/${m}/stats`], ['GET', `/v1/monitors/${m}/state-changes`], ['GET', `/v1/monitor-groups/${g}`],
];

t.test('reads: every role of the team reads; another account and a removed member get 404', async (t) => {
  const roles = Object.entries(users) as Array<[TeamRole, User]>;
  for (const [role, u] of roles) {
    for (const [method, path] of READS) t.equal((await api(u, method, path)).status, 200, `${role} ${method} ${path}`);
    const list = await api(u, 'GET', '/v1/monitors');
    t.ok(list.body.data.items.some((x: { id: string }) => x.id === m), `${role} lists the team's monitor`);
    const groups = await api(u, 'GET', `/v1/monitor-groups?team_id=${team_id}`);
    t.same(groups.body.data.map((x: { id: string }) => x.id), [g], `${role} lists the team's groups`);
    const exported = await api(u, 'GET', `/v1/monitors/export?team_id=${team_id}`);
    t.equal(exported.status, 200, `${role} exports the team's monitors`);
    t.same(exported.body.data.monitors.map((x: { name: string }) => x.name).sort(), ['cron', 'shop']);
  }
  // The outsider: another account, in a team of its own but not in this one.
  for (const [who, u] of [['another account', outsider]] as const) {
    for (const [method, path] of READS) {
      const res = await api(u, method, path);
      t.equal(res.status, 404, `${who} ${method} ${path}`);
      t.equal(res.body.error.code, path.startsWith('/v1/monitor-groups') ? 'NOT_FOUND' : 'MONITOR_NOT_FOUND');
    }
    t.equal((await api(u, 'GET', '/v1/monitors')).body.data.total, 0, `${who} lists none of the team's`);
    t.same((await api(u, 'GET', `/v1/monitor-groups?team_id=${team_id}`)).body.data, []);
    const exported = await api(u, 'GET', `/v1/monitors/export?team_id=${team_id}`);
    t.equal(exported.status, 404);
    t.equal(exported.body.error.code, 'TEAM_NOT_FOUND');
  }
});

t.test('a viewer reads but every change is 403 FORBIDDEN naming the role it needs, and changes nothing', async (t) => {
  const v = users.viewer;
  const writes: Array<[string, string, unknown?]> = [
    ['POST', '/v1/monitors', { name: 'v', type: 'http', target: 'http://1.1.1.1/', team_id }],
    ['PATCH', `/v1/monitors/${m}`, { name: 'renamed' }], ['POST', `/v1/monitors/${m}/pause`], ['POST', `/v1/monitors/${m}/resume`],
    ['POST', `/v1/monitors/${m}/run`], ['POST', `/v1/monitors/${hb}/heartbeat/rotate`], ['DELETE', `/v1/monitors/${m}`],
    ['POST', '/v1/monitor-groups', { name: 'v', team_id }], ['PATCH', `/v1/monitor-groups/${g}`, { name: 'renamed' }],
    ['DELETE', `/v1/monitor-groups/${g}`],
    ['POST', `/v1/monitors/import?team_id=${team_id}`, { monitors: [{ name: 'imp', type: 'http', target: 'http://1.1.1.1/' }] }],
  ];
  for (const [method, path, body] of writes) {
    const res = await api(v, method, path, body);
    t.equal(res.status, 403, `viewer ${method} ${path}`);
    t.match(res.body.error, { code: 'FORBIDDEN', details: { team_id, role: 'viewer', required_role: 'member' } });
  }
  const [row] = await sql<{ n: number; names: string[] }[]>`SELECT count(*)::int AS n, array_agg(name ORDER BY name) AS names FROM monitors WHERE team_id = ${team_id}`;
  t.same(row, { n: 2, names: ['cron', 'shop'] }, 'no monitor was created, renamed or deleted');
  t.equal((await api(v, 'GET', `/v1/monitors/${m}`)).body.data.status, 'active', 'nor paused');
  t.equal((await api(v, 'GET', `/v1/monitor-groups/${g}`)).body.data.name, 'prod');
});

t.test('writes: owner, admin and member change the team\'s monitor; another account gets 404 on each', async (t) => {
  for (const role of ['owner', 'admin', 'member'] as const) {
    const u = users[role];
    const patched = await api(u, 'PATCH', `/v1/monitors/${m}`, { name: `shop ${role}`, group_id: g });
    t.equal(patched.status, 200, `${role} PATCH`);
    t.match(patched.body.data, { name: `shop ${role}`, team_id, group_id: g });
    t.equal((await api(u, 'POST', `/v1/monitors/${m}/pause`)).status, 200, `${role} pause`);
    t.equal((await api(u, 'POST', `/v1/monitors/${m}/resume`)).status, 200, `${role} resume`);
    // Authorized, then refused for what the monitor is: placed on no node yet.
    t.equal((await api(u, 'POST', `/v1/monitors/${m}/run`)).body.error.code, 'PROBE_TOO_FEW_NODES', `${role} run`);
    t.equal((await api(u, 'POST', `/v1/monitors/${hb}/heartbeat/rotate`)).status, 200, `${role} rotate`);
    t.equal((await api(u, 'PATCH', `/v1/monitor-groups/${g}`, { sort_order: 5 })).status, 200, `${role} group PATCH`);
    const doomed = await api(u, 'POST', '/v1/monitors', { name: `doomed ${role}`, type: 'http', target: 'http://1.1.1.1/', team_id });
    t.equal(doomed.status, 201);
    const imported = await api(u, 'POST', `/v1/monitors/import?team_id=${team_id}`, { monitors: [{ name: `imp ${role}`, type: 'http', target: 'http://1.1.1.1/', group: 'prod' }] });
    t.match(imported.body.data, { created: 1, groups_created: [] }, `${role} imports into the team, matching the team's group`);
    for (const [method, path, body] of [
      ['PATCH', `/v1/monitors/${doomed.body.data.id}`, { name: 'x' }], ['POST', `/v1/monitors/${doomed.body.data.id}/pause`],
      ['POST', `/v1/monitors/${doomed.body.data.id}/run`], ['DELETE', `/v1/monitors/${doomed.body.data.id}`], ['PATCH', `/v1/monitor-groups/${g}`, { name: 'x' }],
    ] as Array<[string, string, unknown?]>) {
      const res = await api(outsider, method, path, body);
      t.equal(res.status, 404, `outsider ${method} ${path}`);
    }
    t.equal((await api(u, 'DELETE', `/v1/monitors/${doomed.body.data.id}`)).status, 200, `${role} DELETE`);
  }
  const byOutsider = await api(outsider, 'POST', '/v1/monitors', { name: 'x', type: 'http', target: 'http://1.1.1.1/', team_id });
  t.equal(byOutsider.status, 404);
  t.equal(byOutsider.body.error.code, 'TEAM_NOT_FOUND');
  const imports = await api(outsider, 'POST', `/v1/monitors/import?team_id=${team_id}`, { monitors: [] });
  t.equal(imports.body.error.code, 'TEAM_NOT_FOUND');
  const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM monitors WHERE user_id = ${outsider.user_id}`;
  t.equal(row!.n, 0, 'the outsider created nothing');
});

t.test('a removed member loses access at once; a teammate\'s personal monitor stays private', async (t) => {
  t.equal((await api(removed, 'GET', `/v1/monitors/${m}`)).status, 200, 'a member reads');
  const own = await api(users.member, 'POST', '/v1/monitors', { name: 'mine', type: 'http', target: 'http://1.1.1.1/' });
  t.equal(own.body.data.team_id, null, 'without team_id: personal');
  await sql`DELETE FROM team_members WHERE team_id = ${team_id} AND user_id = ${removed.user_id}`;
  for (const [method, path] of [...READS, ['PATCH', `/v1/monitors/${m}`], ['POST', `/v1/monitors/${m}/pause`], ['DELETE', `/v1/monitors/${m}`]] as Array<[string, string]>) {
    t.equal((await api(removed, method, path, method === 'PATCH' ? { name: 'x' } : undefined)).status, 404, `removed ${method} ${path}`);
  }
  t.equal((await api(removed, 'GET', '/v1/monitors')).body.data.total, 0, 'and lists none');
  for (const role of ['owner', 'viewer'] as const) {
    t.equal((await api(users[role], 'GET', `/v1/monitors/${own.body.data.id}`)).status, 404, `the team's ${role} cannot read a member's personal monitor`);
  }
  const onlyTeam = await api(users.member, 'GET', `/v1/monitors?team_id=${team_id}`);
  t.notOk(onlyTeam.body.data.items.some((x: { id: string }) => x.id === own.body.data.id), '?team_id= filters to the team');
  t.ok((await api(users.member, 'GET', '/v1/monitors')).body.data.items.some((x: { id: string }) => x.id === own.body.data.id), 'absent: personal ones too');
});
