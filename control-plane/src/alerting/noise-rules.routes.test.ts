import t from 'tap';
import { call, registerUser, testApp } from '../test-support/app.js';
import { seedTeam } from '../teams/test-support.js';

/*
 * `/v1/alert-noise-rules`: create, list, read, patch, delete; the kind rules; monitors of the
 * rule's owner only; another account's rules are 404 ALERT_NOISE_RULE_NOT_FOUND; a team's rules
 * by role.
 */

async function setup(t: { teardown(fn: () => unknown): void }) {
  const ctx = await testApp(t);
  const a = await registerUser(ctx.app);
  const b = await registerUser(ctx.app);
  const req = (who: { access_token: string }, method: string, path: string, body?: unknown) => call(ctx.app, method, path, { token: who.access_token, body });
  const monitor = async (who: { access_token: string }, name = 'Nightly backup') => {
    const r = await req(who, 'POST', '/v1/monitors', { name, type: 'heartbeat', config: { cron: '0 3 * * *', timezone: 'Europe/Paris', grace_s: 900 } });
    if (r.status !== 201) throw new Error(`monitor: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.data.id as string;
  };
  const count = async () => (await ctx.sql`SELECT count(*)::int AS n FROM alert_noise_rules`)[0]!.n as number;
  return { ctx, a, b, req, monitor, count };
}

t.test('create, list, read, patch, delete', async (t) => {
  const s = await setup(t);
  const m = await s.monitor(s.a);
  const created = await s.req(s.a, 'POST', '/v1/alert-noise-rules', { name: 'Flapping edge', kind: 'flap', flap_changes: 4, flap_window_s: 900, monitor_ids: [m, m], tags: ['Edge'] });
  t.equal(created.status, 201, JSON.stringify(created.body));
  const rule = created.body.data;
  t.match(rule, { id: /^anr_/, user_id: s.a.user_id, team_id: null, kind: 'flap', enabled: true, monitor_ids: [m], tags: ['edge'], flap_changes: 4, flap_window_s: 900, duplicate_match: null, min_down_s: null });
  const dup = await s.req(s.a, 'POST', '/v1/alert-noise-rules', { name: 'Same host', kind: 'duplicate' });
  t.match(dup.body.data, { kind: 'duplicate', duplicate_match: 'host', monitor_ids: [], tags: [] }, 'duplicate_match defaults to host');

  t.same((await s.req(s.a, 'GET', '/v1/alert-noise-rules')).body.data.items.map((r: { id: string }) => r.id), [rule.id, dup.body.data.id]);
  t.same((await s.req(s.a, 'GET', '/v1/alert-noise-rules?kind=duplicate')).body.data.items.map((r: { id: string }) => r.id), [dup.body.data.id], 'kind filters');
  t.same((await s.req(s.b, 'GET', '/v1/alert-noise-rules')).body.data.items, [], 'another account sees none');
  t.match((await s.req(s.a, 'GET', `/v1/alert-noise-rules/${rule.id}`)).body.data, { id: rule.id, name: 'Flapping edge' });

  const patched = await s.req(s.a, 'PATCH', `/v1/alert-noise-rules/${rule.id}`, { flap_changes: 6, enabled: false, monitor_ids: [] });
  t.equal(patched.status, 200);
  t.match(patched.body.data, { flap_changes: 6, flap_window_s: 900, enabled: false, monitor_ids: [], tags: ['edge'] });

  t.equal((await s.req(s.a, 'DELETE', `/v1/alert-noise-rules/${rule.id}`)).status, 200);
  const gone = await s.req(s.a, 'GET', `/v1/alert-noise-rules/${rule.id}`);
  t.equal(gone.status, 404);
  t.equal(gone.body.error.code, 'ALERT_NOISE_RULE_NOT_FOUND');
});

t.test('bad input: 400 naming the field, nothing written', async (t) => {
  const s = await setup(t);
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ name: 'x', kind: 'flap', flap_changes: 3 }, 'flap_window_s'],
    [{ name: 'x', kind: 'flap', flap_changes: 1, flap_window_s: 600 }, 'flap_changes'],
    [{ name: 'x', kind: 'flap', flap_changes: 3, flap_window_s: 30 }, 'flap_window_s'],
    [{ name: 'x', kind: 'flap', flap_changes: 3, flap_window_s: 600, min_down_s: 60 }, 'min_down_s'],
    [{ name: 'x', kind: 'min_duration' }, 'min_down_s'],
    [{ name: 'x', kind: 'min_duration', min_down_s: 0 }, 'min_down_s'],
    [{ name: 'x', kind: 'min_duration', min_down_s: 60, duplicate_match: 'host' }, 'duplicate_match'],
    [{ name: 'x', kind: 'duplicate', duplicate_match: 'url' }, 'duplicate_match'],
    [{ name: 'x', kind: 'sometimes' }, 'kind'],
    [{ name: '', kind: 'duplicate' }, 'name'],
    [{ name: 'x', kind: 'duplicate', monitor_ids: ['nope'] }, 'monitor_ids[0]'],
    [{ name: 'x', kind: 'duplicate', surprise: 1 }, ''],
  ];
  for (const [body, path] of cases) {
    const r = await s.req(s.a, 'POST', '/v1/alert-noise-rules', body);
    t.equal(r.status, 400, JSON.stringify(body));
    t.equal(r.body.error.code, 'VALIDATION_FAILED');
    if (path) t.ok(r.body.error.details.fields.some((f: { path: string }) => f.path === path), `${JSON.stringify(body)} names ${path}: ${JSON.stringify(r.body.error.details.fields)}`);
  }
  t.equal(await s.count(), 0, 'nothing created');

  const rule = (await s.req(s.a, 'POST', '/v1/alert-noise-rules', { name: 'wait', kind: 'min_duration', min_down_s: 60 })).body.data;
  for (const body of [{ min_down_s: null }, { flap_changes: 3 }, { kind: 'flap' }, { team_id: 'nope' }]) {
    const r = await s.req(s.a, 'PATCH', `/v1/alert-noise-rules/${rule.id}`, body);
    t.equal(r.status, 400, `PATCH ${JSON.stringify(body)}`);
  }
  t.match((await s.req(s.a, 'GET', `/v1/alert-noise-rules/${rule.id}`)).body.data, { kind: 'min_duration', min_down_s: 60, flap_changes: null }, 'unchanged');
});

t.test('another account: its monitors are not found, its rules are 404', async (t) => {
  const s = await setup(t);
  const mine = await s.monitor(s.a);
  const theirs = await s.monitor(s.b);
  const r = await s.req(s.a, 'POST', '/v1/alert-noise-rules', { name: 'x', kind: 'duplicate', monitor_ids: [mine, theirs] });
  t.equal(r.status, 404);
  t.equal(r.body.error.code, 'MONITOR_NOT_FOUND');
  t.same(r.body.error.details.fields.map((f: { path: string }) => f.path), ['monitor_ids[1]']);
  t.equal(await s.count(), 0);

  const rule = (await s.req(s.a, 'POST', '/v1/alert-noise-rules', { name: 'x', kind: 'duplicate', monitor_ids: [mine] })).body.data;
  const patchTheirs = await s.req(s.a, 'PATCH', `/v1/alert-noise-rules/${rule.id}`, { monitor_ids: [theirs] });
  t.equal(patchTheirs.body.error.code, 'MONITOR_NOT_FOUND', 'nor by PATCH');
  for (const [method, body] of [['GET'], ['PATCH', { name: 'mine now' }], ['DELETE']] as const) {
    const res = await s.req(s.b, method, `/v1/alert-noise-rules/${rule.id}`, body);
    t.equal(res.status, 404, `${method} by another account`);
    t.equal(res.body.error.code, 'ALERT_NOISE_RULE_NOT_FOUND');
  }
  const unknown = await s.req(s.a, 'GET', '/v1/alert-noise-rules/anr_01jd3k6w9z4q8r2t7v5x1y3b6c');
  t.equal(unknown.body.error.code, 'ALERT_NOISE_RULE_NOT_FOUND');
  t.equal((await s.req(s.a, 'GET', '/v1/alert-noise-rules/m_nope')).status, 404, 'not a rule id at all');
  t.match((await s.req(s.a, 'GET', `/v1/alert-noise-rules/${rule.id}`)).body.data, { name: 'x', monitor_ids: [mine] }, 'unchanged');
});

t.test('a team\'s rules: members write, a viewer reads, others get 404', async (t) => {
  const s = await setup(t);
  const viewer = await registerUser(s.ctx.app);
  const team_id = await seedTeam(s.ctx.sql, { owner: s.a, viewer });
  const personal = await s.monitor(s.a);
  const wrongOwner = await s.req(s.a, 'POST', '/v1/alert-noise-rules', { name: 'x', kind: 'duplicate', team_id, monitor_ids: [personal] });
  t.equal(wrongOwner.body.error.code, 'MONITOR_NOT_FOUND', 'a team rule lists only the team\'s monitors');

  const created = await s.req(s.a, 'POST', '/v1/alert-noise-rules', { name: 'team flap', kind: 'flap', flap_changes: 3, flap_window_s: 600, team_id });
  t.equal(created.status, 201);
  const id = created.body.data.id;
  t.equal(created.body.data.team_id, team_id);
  t.equal((await s.req(viewer, 'GET', `/v1/alert-noise-rules/${id}`)).status, 200, 'a viewer reads');
  t.same((await s.req(viewer, 'GET', `/v1/alert-noise-rules?team_id=${team_id}`)).body.data.items.map((r: { id: string }) => r.id), [id]);
  const denied = await s.req(viewer, 'PATCH', `/v1/alert-noise-rules/${id}`, { name: 'mine' });
  t.equal(denied.status, 403);
  t.match(denied.body.error, { code: 'FORBIDDEN', details: { team_id, role: 'viewer', required_role: 'member' } });
  t.equal((await s.req(viewer, 'POST', '/v1/alert-noise-rules', { name: 'v', kind: 'duplicate', team_id })).status, 403, 'nor create in the team');
  t.equal((await s.req(s.b, 'GET', `/v1/alert-noise-rules/${id}`)).body.error.code, 'ALERT_NOISE_RULE_NOT_FOUND', 'a non-member: 404');
  t.equal((await s.req(s.b, 'POST', '/v1/alert-noise-rules', { name: 'b', kind: 'duplicate', team_id })).body.error.code, 'TEAM_NOT_FOUND');
  await s.ctx.sql`DELETE FROM team_members WHERE team_id = ${team_id} AND user_id = ${viewer.user_id}`;
  t.equal((await s.req(viewer, 'GET', `/v1/alert-noise-rules/${id}`)).status, 404, 'a removed member loses access at once');
});
