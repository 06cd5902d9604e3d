import t from 'tap';
import { Webhook } from 'standardwebhooks';
import type { Config } from '../config/index.js';
import { eventually, startReceiver, type Received } from '../delivery/test-support.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { seedTeam as teamOf } from '../teams/test-support.js';

/*
 * Webhook endpoints of teams (docs/api/webhooks.md "Teams"): every route decides through the one
 * authorization function (a viewer reads, a member changes, anyone else gets 404), and an event of
 * a team's resource goes to the team's endpoints, never to a member's personal ones.
 */

const FAST: Partial<Config> = {
  delivery_allow_cidrs: ['127.0.0.0/8'],
  delivery_poll_interval_ms: 50,
  delivery_retry_delays_ms: [50, 50, 50, 50, 50],
};

type User = Awaited<ReturnType<typeof registerUser>>;

function headers(r: Received): Record<string, string> {
  return { 'webhook-id': String(r.headers['webhook-id']), 'webhook-timestamp': String(r.headers['webhook-timestamp']), 'webhook-signature': String(r.headers['webhook-signature']) };
}

t.test('creating a team endpoint: members and above may, a viewer gets 403, a non-member 404 TEAM_NOT_FOUND', async (t) => {
  const { app, sql } = await testApp(t, { config: FAST });
  const [owner, member, viewer, outsider] = [await registerUser(app), await registerUser(app), await registerUser(app), await registerUser(app)];
  const team_id = await teamOf(sql, { owner, member, viewer });
  const body = { url: 'http://127.0.0.1:9/hook', events: ['*'], team_id };
  const byMember = await call(app, 'POST', '/v1/webhook-endpoints', { token: member.access_token, body });
  t.equal(byMember.status, 201, JSON.stringify(byMember.body));
  t.equal(byMember.body.data.endpoint.team_id, team_id, 'the endpoint is the team\'s');
  t.equal(byMember.body.data.endpoint.user_id, member.user_id, 'the endpoint names its creator');
  const byViewer = await call(app, 'POST', '/v1/webhook-endpoints', { token: viewer.access_token, body });
  t.equal(byViewer.status, 403);
  t.match(byViewer.body.error, { code: 'FORBIDDEN', details: { team_id, role: 'viewer', required_role: 'member' } });
  const byOutsider = await call(app, 'POST', '/v1/webhook-endpoints', { token: outsider.access_token, body });
  t.equal(byOutsider.status, 404);
  t.equal(byOutsider.body.error.code, 'TEAM_NOT_FOUND');
  const personal = await call(app, 'POST', '/v1/webhook-endpoints', { token: member.access_token, body: { url: 'http://127.0.0.1:9/mine', events: ['*'] } });
  t.equal(personal.body.data.endpoint.team_id, null, 'without team_id: personal');
  const [{ n }] = await sql<[{ n: number }]>`SELECT count(*)::int AS n FROM webhook_endpoints`;
  t.equal(n, 2, 'refused creates changed nothing');

  const all = await call(app, 'GET', '/v1/webhook-endpoints', { token: member.access_token });
  t.equal(all.body.data.total, 2, 'the list shows personal and team endpoints');
  const onlyTeam = await call(app, 'GET', `/v1/webhook-endpoints?team_id=${team_id}`, { token: member.access_token });
  t.same(onlyTeam.body.data.items.map((e: { id: string }) => e.id), [byMember.body.data.endpoint.id], '?team_id= filters to the team');
  t.equal((await call(app, 'GET', '/v1/webhook-endpoints', { token: owner.access_token })).body.data.total, 1, 'the owner sees the team\'s, not the member\'s personal one');
  const seen = await call(app, 'GET', '/v1/webhook-endpoints', { token: viewer.access_token });
  t.equal(seen.body.data.total, 1, 'a viewer lists the team\'s');
  t.equal(seen.body.data.items[0].user_id, member.user_id, 'and sees who created it');
  t.equal((await call(app, 'GET', '/v1/webhook-endpoints', { token: outsider.access_token })).body.data.total, 0, 'an outsider lists nothing');
  t.equal((await call(app, 'GET', `/v1/webhook-endpoints?team_id=${team_id}`, { token: outsider.access_token })).body.data.total, 0, 'a team filter of another team is empty, not an error');
});

t.test('authorization table: every endpoint and delivery route by role; non-members, other accounts and removed members get 404', async (t) => {
  const { app, sql } = await testApp(t, { config: FAST });
  const users = { owner: await registerUser(app), admin: await registerUser(app), member: await registerUser(app), viewer: await registerUser(app) };
  const outsider = await registerUser(app);
  const team_id = await teamOf(sql, users);
  const other_team = await teamOf(sql, { owner: outsider });
  const created = await call(app, 'POST', '/v1/webhook-endpoints', { token: users.admin.access_token, body: { url: 'http://127.0.0.1:9/hook', events: ['*'], team_id } });
  const id = created.body.data.endpoint.id;
  const ping = await call(app, 'POST', `/v1/webhook-endpoints/${id}/test`, { token: users.member.access_token });
  t.equal(ping.status, 202, 'a member sends a test event');
  const delivery_id = ping.body.data.id;

  const routes: Array<{ method: string; path: string; body?: unknown; write: boolean; ok: number }> = [
    { method: 'GET', path: `/v1/webhook-endpoints/${id}`, write: false, ok: 200 },
    { method: 'GET', path: `/v1/webhook-endpoints/${id}/deliveries`, write: false, ok: 200 },
    { method: 'GET', path: `/v1/webhook-endpoints/${id}/deliveries/${delivery_id}`, write: false, ok: 200 },
    { method: 'PATCH', path: `/v1/webhook-endpoints/${id}`, body: { description: 'changed' }, write: true, ok: 200 },
    { method: 'POST', path: `/v1/webhook-endpoints/${id}/rotate-secret`, write: true, ok: 200 },
    { method: 'POST', path: `/v1/webhook-endpoints/${id}/test`, write: true, ok: 202 },
    { method: 'POST', path: `/v1/webhook-endpoints/${id}/deliveries/${delivery_id}/redeliver`, write: true, ok: 202 },
  ];
  for (const [role, u] of Object.entries(users)) {
    for (const r of routes) {
      const res = await call(app, r.method, r.path, { token: u.access_token, body: r.body });
      if (role === 'viewer' && r.write) {
        t.equal(res.status, 403, `${role} ${r.method} ${r.path}`);
        t.match(res.body.error, { code: 'FORBIDDEN', details: { team_id, role: 'viewer', required_role: 'member' } });
      } else {
        t.equal(res.status, r.ok, `${role} ${r.method} ${r.path}: ${JSON.stringify(res.body.error ?? '')}`);
      }
    }
  }
  const strangers = [outsider, users.viewer];
  await sql`DELETE FROM team_members WHERE team_id = ${team_id} AND user_id = ${users.viewer.user_id}`;
  for (const u of strangers) {
    for (const r of [...routes, { method: 'DELETE', path: `/v1/webhook-endpoints/${id}`, write: true, ok: 200 }]) {
      const res = await call(app, r.method, r.path, { token: u.access_token, body: r.body });
      t.equal(res.status, 404, `${u === outsider ? 'another team\'s owner' : 'removed member'}: ${r.method} ${r.path}`);
      t.equal(res.body.error.code, 'NOT_FOUND');
    }
  }
  t.equal((await call(app, 'GET', `/v1/webhook-endpoints?team_id=${other_team}`, { token: users.owner.access_token })).body.data.total, 0);
  t.equal((await call(app, 'DELETE', `/v1/webhook-endpoints/${id}`, { token: users.viewer.access_token })).status, 404, 'the removed member lost access at once');
  const [{ n }] = await sql<[{ n: number }]>`SELECT count(*)::int AS n FROM webhook_endpoints WHERE id = ${id}`;
  t.equal(n, 1, 'refused deletes deleted nothing');
  t.equal((await call(app, 'DELETE', `/v1/webhook-endpoints/${id}`, { token: users.member.access_token })).status, 200, 'a member deletes it');
});

t.test("a team monitor's event reaches the team's endpoint, not a member's personal one; a personal monitor's the reverse", async (t) => {
  const { app, sql, deps } = await testApp(t, { config: FAST, delivery: true });
  const member = await registerUser(app);
  const team_id = await teamOf(sql, { member });
  const teamRx = await startReceiver(t);
  const personalRx = await startReceiver(t);
  const teamEp = await call(app, 'POST', '/v1/webhook-endpoints', { token: member.access_token, body: { url: teamRx.url, events: ['monitor.down'], team_id } });
  const personalEp = await call(app, 'POST', '/v1/webhook-endpoints', { token: member.access_token, body: { url: personalRx.url, events: ['*'] } });
  t.equal(teamEp.status, 201);
  t.equal(personalEp.status, 201);

  const monitor = async (name: string) => {
    const r = await call(app, 'POST', '/v1/monitors', { token: member.access_token, body: { name, type: 'heartbeat', config: { period_s: 3600 } } });
    t.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.data.id as string;
  };
  const team_monitor = await monitor('team backup');
  const personal_monitor = await monitor('my backup');
  // Moved into the team as stored (the monitors API's own move has its own tests).
  await sql`UPDATE monitors SET team_id = ${team_id} WHERE id = ${team_monitor}`;

  const down = (monitor_id: string, name: string) => deps.events.publish({
    type: 'monitor.down', user_id: member.user_id,
    data: {
      monitor: { id: monitor_id, name, type: 'heartbeat', target: '' }, status: 'down', previous_status: 'up',
      reason: 'no check-in', failing_nodes: [], changed_at: new Date().toISOString(),
    },
  });
  t.equal(await down(team_monitor, 'team backup'), 1, 'one delivery: the team\'s endpoint');
  const [got] = await teamRx.waitFor(1);
  const payload = new Webhook(teamEp.body.data.secret).verify(got!.body, headers(got!)) as { type: string; data: { monitor: { id: string } } };
  t.match(payload, { type: 'monitor.down', data: { monitor: { id: team_monitor } } }, 'signed with the team endpoint\'s secret');

  t.equal(await down(personal_monitor, 'my backup'), 1, 'one delivery: the personal endpoint');
  const [mine] = await personalRx.waitFor(1);
  const own = new Webhook(personalEp.body.data.secret).verify(mine!.body, headers(mine!)) as { data: { monitor: { id: string } } };
  t.equal(own.data.monitor.id, personal_monitor);
  await eventually('both deliveries settled', async () => {
    const [{ n }] = await sql<[{ n: number }]>`SELECT count(*)::int AS n FROM deliveries WHERE channel = 'webhook' AND status = 'succeeded'`;
    return n === 2 ? true : null;
  });
  t.equal(personalRx.received.length, 1, 'the member\'s personal endpoint never got the team monitor\'s event');
  t.equal(teamRx.received.length, 1, 'the team endpoint never got the personal monitor\'s event');
});

t.test('publishMany: events of several owners in one call reach the same endpoints one publish each would, an invalid one is dropped alone', async (t) => {
  const { app, sql, deps } = await testApp(t, { config: FAST });
  const [owner, member, other] = [await registerUser(app), await registerUser(app), await registerUser(app)];
  const team_id = await teamOf(sql, { owner, member });
  const endpoint = async (token: string, body: object) => {
    const r = await call(app, 'POST', '/v1/webhook-endpoints', { token, body: { url: 'http://127.0.0.1:9/hook', ...body } });
    t.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.data.endpoint.id as string;
  };
  const teamDown = await endpoint(member.access_token, { events: ['monitor.down'], team_id });
  const teamAll = await endpoint(owner.access_token, { events: ['*'], team_id });
  const personal = await endpoint(member.access_token, { events: ['monitor.up'] });
  const others = await endpoint(other.access_token, { events: ['*'] });
  const monitor = async (token: string, name: string) => {
    const r = await call(app, 'POST', '/v1/monitors', { token, body: { name, type: 'heartbeat', config: { period_s: 3600 } } });
    t.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.data.id as string;
  };
  const [team_monitor, personal_monitor, other_monitor] = [await monitor(member.access_token, 'team'), await monitor(member.access_token, 'mine'), await monitor(other.access_token, 'theirs')];
  await sql`UPDATE monitors SET team_id = ${team_id} WHERE id = ${team_monitor}`;
  const change = (user_id: string, monitor_id: string, status: 'down' | 'up') => ({
    type: `monitor.${status}` as const, user_id,
    data: {
      monitor: { id: monitor_id, name: 'm', type: 'heartbeat', target: '' }, status, previous_status: status === 'down' ? 'up' : 'down',
      reason: status === 'down' ? 'no check-in' : null, failing_nodes: [], changed_at: new Date().toISOString(),
    },
  });
  const queued = await deps.events.publishMany([
    change(member.user_id, team_monitor, 'down'), // the team's two endpoints
    change(member.user_id, team_monitor, 'up'), // the team's `*` endpoint only
    change(member.user_id, personal_monitor, 'down'), // the member's personal endpoint takes monitor.up only: none
    change(member.user_id, personal_monitor, 'up'), // the personal endpoint
    { ...change(other.user_id, other_monitor, 'down'), data: { monitor: { id: other_monitor } } } as never, // fails the catalog: dropped
    { ...change(other.user_id, other_monitor, 'down'), data: null } as never, // no data at all: dropped, nothing thrown
    change(other.user_id, other_monitor, 'up'), // the other account's endpoint
  ]);
  t.equal(queued, 5);
  const rows = await sql<{ destination: string; event_type: string; monitor_id: string }[]>`
    SELECT destination, event_type, payload->'data'->'monitor'->>'id' AS monitor_id FROM deliveries WHERE channel = 'webhook' ORDER BY destination, event_type`;
  const want = [
    { destination: teamDown, event_type: 'monitor.down', monitor_id: team_monitor },
    { destination: teamAll, event_type: 'monitor.down', monitor_id: team_monitor },
    { destination: teamAll, event_type: 'monitor.up', monitor_id: team_monitor },
    { destination: personal, event_type: 'monitor.up', monitor_id: personal_monitor },
    { destination: others, event_type: 'monitor.up', monitor_id: other_monitor },
  ].sort((a, b) => (a.destination + a.event_type < b.destination + b.event_type ? -1 : 1));
  t.same(rows, want, 'each event went to its owner\'s subscribed endpoints');
  t.equal(await deps.events.publishMany([]), 0, 'nothing to publish: nothing queued');
});
