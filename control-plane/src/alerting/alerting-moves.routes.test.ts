import t from 'tap';
import { call, registerUser, testApp } from '../test-support/app.js';
import { seedTeam, type User } from '../teams/test-support.js';

/*
 * Moving alerting resources between owners (docs/api/teams.md "Moving a resource"): PATCH
 * `team_id` on channels, policies, silences, maintenance windows, noise rules, alert groups and
 * webhook endpoints follows the monitors' rule (teams/move.ts): into a team needs member or above there,
 * back to personal only its creator; what a resource refers to must belong to its new owner.
 */

const SLACK_URL = 'http://127.0.0.1:9/services/T000/B000/SECRETSECRETSECRET1234';

t.test('alerting resources move into a team and back, with the monitors\' rules', async (t) => {
  const ctx = await testApp(t, { config: { delivery_allow_cidrs: ['127.0.0.0/8'] } });
  const [creator, mate, watcher, stranger] = await Promise.all([1, 2, 3, 4].map(() => registerUser(ctx.app)));
  const team = await seedTeam(ctx.sql, [[creator!, 'member'], [mate!, 'member'], [watcher!, 'viewer']]);
  const watched = await seedTeam(ctx.sql, [[creator!, 'viewer'], [watcher!, 'owner']]);
  const foreign = await seedTeam(ctx.sql, { owner: stranger! });
  const req = (who: User, method: string, path: string, body?: unknown) => call(ctx.app, method, path, { token: who.access_token, body });
  const created = async (path: string, body: unknown) => {
    const r = await req(creator!, 'POST', path, body);
    if (r.status !== 201) throw new Error(`${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.data.endpoint ?? r.body.data;
  };
  const monitor = (await created('/v1/monitors', { name: 'hb', type: 'heartbeat', config: { cron: '0 3 * * *', timezone: 'UTC', grace_s: 900 } })).id as string;
  const teamMonitor = (await created('/v1/monitors', { name: 'team hb', type: 'heartbeat', config: { cron: '0 3 * * *', timezone: 'UTC', grace_s: 900 }, team_id: team })).id as string;

  const kinds = [
    { path: '/v1/alert-channels', id: (await created('/v1/alert-channels', { name: 'Slack', type: 'slack', config: { webhook_url: SLACK_URL } })).id },
    { path: '/v1/alert-silences', id: (await created('/v1/alert-silences', { starts_at: '2030-01-01T00:00:00Z', ends_at: '2030-01-02T00:00:00Z' })).id },
    { path: '/v1/maintenance-windows', id: (await created('/v1/maintenance-windows', { scope_type: 'all', scope_ids: [], starts_at: '2030-01-01T00:00:00Z', ends_at: '2030-01-01T01:00:00Z' })).id },
    { path: '/v1/alert-noise-rules', id: (await created('/v1/alert-noise-rules', { name: 'flaps', kind: 'flap', flap_changes: 4, flap_window_s: 600 })).id },
    { path: '/v1/webhook-endpoints', id: (await created('/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/hook', events: ['monitor.down'] })).id },
    { path: '/v1/alert-groups', id: (await created('/v1/alert-groups', { name: 'Edge', group_by: 'tag', group_value: 'edge' })).id },
  ];
  for (const k of kinds) {
    const at = `${k.path}/${k.id}`;
    const toForeign = await req(creator!, 'PATCH', at, { team_id: foreign });
    t.equal(toForeign.status, 404, `${k.path}: a team the caller is not in`);
    t.equal(toForeign.body.error.code, 'TEAM_NOT_FOUND');
    const toWatched = await req(creator!, 'PATCH', at, { team_id: watched });
    t.equal(toWatched.status, 403, `${k.path}: a team where the caller only views`);
    t.match(toWatched.body.error, { code: 'FORBIDDEN', details: { team_id: watched, role: 'viewer', required_role: 'member' } });
    t.equal((await req(creator!, 'GET', at)).body.data.team_id, null, `${k.path}: the refusals changed nothing`);
    t.equal((await req(creator!, 'PATCH', at, { team_id: 'nope' })).status, 400, `${k.path}: a malformed team id`);

    const moved = await req(creator!, 'PATCH', at, { team_id: team });
    t.equal(moved.status, 200, `${k.path}: moved into the team`);
    t.equal(moved.body.data.team_id, team);
    t.equal((await req(mate!, 'GET', at)).body.data.team_id, team, `${k.path}: a teammate now reads it`);
    t.equal((await req(watcher!, 'PATCH', at, { team_id: null })).status, 403, `${k.path}: a viewer cannot move it out`);
    const byMate = await req(mate!, 'PATCH', at, { team_id: null });
    t.equal(byMate.status, 403, `${k.path}: only its creator takes it out of the team`);
    t.equal((await req(creator!, 'PATCH', at, { team_id: null })).body.data?.team_id, null, `${k.path}: its creator takes it back`);
    t.equal((await req(mate!, 'GET', at)).status, 404, `${k.path}: personal again, the teammate no longer sees it`);
  }

  await t.test('what a resource refers to must belong to its new owner', async (t) => {
    const channel = await created('/v1/alert-channels', { name: 'Used', type: 'slack', config: { webhook_url: SLACK_URL } });
    const policy = await created('/v1/alert-policies', { name: 'Down', monitor_id: monitor, channel_ids: [channel.id] });
    const busy = await req(creator!, 'PATCH', `/v1/alert-channels/${channel.id}`, { team_id: team });
    t.equal(busy.status, 409, 'a channel a policy uses stays with the policy');
    t.match(busy.body.error, { code: 'CONFLICT', details: { policy_ids: [policy.id] } });
    const alone = await req(creator!, 'PATCH', `/v1/alert-policies/${policy.id}`, { team_id: team });
    t.equal(alone.status, 404, 'a policy cannot move without its monitor and channels');
    t.equal(alone.body.error.code, 'MONITOR_NOT_FOUND');
    const teamChannel = await created('/v1/alert-channels', { name: 'Team', type: 'slack', config: { webhook_url: SLACK_URL }, team_id: team });
    const whole = await req(creator!, 'PATCH', `/v1/alert-policies/${policy.id}`, { team_id: team, monitor_id: teamMonitor, channel_ids: [teamChannel.id] });
    t.equal(whole.status, 200, 'with the team\'s monitor and channel it moves');
    t.match(whole.body.data, { team_id: team, monitor_id: teamMonitor, channel_ids: [teamChannel.id] });
    t.equal((await req(creator!, 'PATCH', `/v1/alert-channels/${channel.id}`, { team_id: team })).status, 200, 'the channel, now unused, moves');

    const silence = await created('/v1/alert-silences', { monitor_id: monitor, starts_at: '2030-01-01T00:00:00Z', ends_at: '2030-01-02T00:00:00Z' });
    const s = await req(creator!, 'PATCH', `/v1/alert-silences/${silence.id}`, { team_id: team });
    t.equal(s.body.error?.code, 'MONITOR_NOT_FOUND', 'a silence of a personal monitor stays personal');
    const window = await created('/v1/maintenance-windows', { scope_type: 'monitor', scope_ids: [monitor], starts_at: '2030-01-01T00:00:00Z', ends_at: '2030-01-01T01:00:00Z' });
    t.equal((await req(creator!, 'PATCH', `/v1/maintenance-windows/${window.id}`, { team_id: team })).body.error?.code, 'MONITOR_NOT_FOUND', 'a window of a personal monitor too');
    const w = await req(creator!, 'PATCH', `/v1/maintenance-windows/${window.id}`, { team_id: team, scope_ids: [teamMonitor] });
    t.match(w.body.data, { team_id: team, scope_ids: [teamMonitor] }, 'unless it names the team\'s monitors in the same change');
    const rule = await created('/v1/alert-noise-rules', { name: 'one', kind: 'flap', flap_changes: 4, flap_window_s: 600, monitor_ids: [monitor] });
    t.equal((await req(creator!, 'PATCH', `/v1/alert-noise-rules/${rule.id}`, { team_id: team })).body.error?.code, 'MONITOR_NOT_FOUND', 'a noise rule of a personal monitor too');
    t.equal((await req(creator!, 'GET', `/v1/alert-noise-rules/${rule.id}`)).body.data.team_id, null);
    // An alert group does not move to an owner that already groups the same way (0052_alert_groups_per_owner.sql).
    await created('/v1/alert-groups', { name: 'Team EU', group_by: 'monitor_prefix', group_value: 'eu-', team_id: team });
    const mine = await created('/v1/alert-groups', { name: 'My EU', group_by: 'monitor_prefix', group_value: 'eu-' });
    const clash = await req(creator!, 'PATCH', `/v1/alert-groups/${mine.id}`, { team_id: team });
    t.equal(clash.status, 409, 'an alert group whose grouping the team already has stays');
    t.equal(clash.body.error?.code, 'CONFLICT');
    t.equal((await req(creator!, 'GET', `/v1/alert-groups/${mine.id}`)).body.data.team_id, null, 'personal, unchanged');
    const renamedAndMoved = await req(creator!, 'PATCH', `/v1/alert-groups/${mine.id}`, { team_id: team, group_value: 'eu-west-' });
    t.match(renamedAndMoved.body.data, { team_id: team, group_value: 'eu-west-' }, 'unless the same change groups differently');
  });
});

t.test('a webhook endpoint does not move to an owner at its limit', async (t) => {
  const ctx = await testApp(t, { config: { delivery_allow_cidrs: ['127.0.0.0/8'] } });
  const creator = await registerUser(ctx.app);
  const team = await seedTeam(ctx.sql, { member: creator });
  const add = (team_id?: string) => call(ctx.app, 'POST', '/v1/webhook-endpoints', { token: creator.access_token, body: { url: 'http://127.0.0.1:9/hook', events: ['monitor.down'], ...(team_id ? { team_id } : {}) } });
  const mine = (await add()).body.data.endpoint.id as string;
  for (let i = 0; i < 50; i++) t.equal((await add(team)).status, 201);
  const r = await call(ctx.app, 'PATCH', `/v1/webhook-endpoints/${mine}`, { token: creator.access_token, body: { team_id: team } });
  t.match(r, { status: 422, body: { error: { code: 'WEBHOOK_ENDPOINT_LIMIT_EXCEEDED' } } });
  t.equal((await call(ctx.app, 'GET', `/v1/webhook-endpoints/${mine}`, { token: creator.access_token })).body.data.team_id, null, 'it stays personal');
});
