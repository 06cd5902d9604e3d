import t from 'tap';
import { newId } from '@vantage/shared-protocol';
import { call, registerUser, testApp } from '../test-support/app.js';
import { seedTeam } from '../teams/test-support.js';

/*
 * The authorization table of the alerting family (docs/api/alerting.md "Teams"): channels,
 * policies, silences, alert groups, maintenance windows and alert events of a team, read and
 * changed by each role (owner, admin, member: write; viewer: read only, 403), by another team's
 * owner (404, as for another account) and by a member removed a moment ago (404 at once).
 * Cross-references stay within one owner. Teams and memberships are written straight into the
 * tables (0046_teams.sql): this family only reads them.
 */

const SLACK_URL = 'http://127.0.0.1:9/services/T000/B000/SECRETSECRETSECRET1234';
type Who = { access_token: string; user_id: string };

t.test('alerting routes through the one authorization function', async (t) => {
  const ctx = await testApp(t, { config: { delivery_allow_cidrs: ['127.0.0.0/8'] } });
  const req = (who: Who, method: string, path: string, body?: unknown) => call(ctx.app, method, path, { token: who.access_token, body });
  const [owner, admin, member, viewer, removed, outsider] = await Promise.all(Array.from({ length: 6 }, () => registerUser(ctx.app)));
  const team = await seedTeam(ctx.sql, [[owner!, 'owner'], [admin!, 'admin'], [member!, 'member'], [viewer!, 'viewer'], [removed!, 'member']]);
  const other = await seedTeam(ctx.sql, { owner: outsider! });

  const created = async (who: Who, path: string, body: unknown) => {
    const r = await req(who, 'POST', path, body);
    if (r.status !== 201) throw new Error(`${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.data;
  };
  /** A monitor of `who`, moved into `team_id` when given (monitors are another family's routes). */
  const monitor = async (who: Who, team_id: string | null) => {
    const m = await created(who, '/v1/monitors', { name: `hb ${Math.random()}`, type: 'heartbeat', config: { cron: '0 3 * * *', timezone: 'UTC', grace_s: 900 } });
    if (team_id) await ctx.sql`UPDATE monitors SET team_id = ${team_id} WHERE id = ${m.id}`;
    return m.id as string;
  };

  const teamMonitor = await monitor(member!, team);
  const personalMonitor = await monitor(member!, null);
  const channel = await created(member!, '/v1/alert-channels', { name: 'Team Slack', type: 'slack', config: { webhook_url: SLACK_URL }, team_id: team });
  t.equal(channel.team_id, team, 'a created channel carries its team');
  const personalChannel = await created(member!, '/v1/alert-channels', { name: 'Mine', type: 'slack', config: { webhook_url: SLACK_URL } });
  t.equal(personalChannel.team_id, null, 'without team_id: personal');
  const policy = await created(member!, '/v1/alert-policies', { name: 'Down', monitor_id: teamMonitor, channel_ids: [channel.id], team_id: team });
  const silence = await created(member!, '/v1/alert-silences', { monitor_id: teamMonitor, starts_at: '2030-01-01T00:00:00Z', ends_at: '2030-01-02T00:00:00Z', team_id: team });
  const group = await created(member!, '/v1/alert-groups', { name: 'Edge', group_by: 'tag', group_value: 'edge', team_id: team });
  const window = await created(member!, '/v1/maintenance-windows', { scope_type: 'monitor', scope_ids: [teamMonitor], starts_at: '2030-01-01T00:00:00Z', ends_at: '2030-01-01T01:00:00Z', team_id: team });
  for (const r of [policy, silence, group, window]) t.equal(r.team_id, team);
  const event = newId('alert_event');
  await ctx.sql`INSERT INTO alert_events (id, user_id, policy_id, monitor_id, type, started_at, fired_at) VALUES (${event}, ${member!.user_id}, ${policy.id}, ${teamMonitor}, 'down', now(), now())`;

  const kinds = [
    { path: '/v1/alert-channels', id: channel.id, code: 'ALERT_CHANNEL_NOT_FOUND', patch: { name: 'Renamed' }, field: 'name' },
    { path: '/v1/alert-policies', id: policy.id, code: 'ALERT_RULE_NOT_FOUND', patch: { delay_s: 60 }, field: 'delay_s' },
    { path: '/v1/alert-silences', id: silence.id, code: 'NOT_FOUND', patch: { reason: 'changed' }, field: 'reason' },
    { path: '/v1/alert-groups', id: group.id, code: 'NOT_FOUND', patch: { wait_seconds: 30 }, field: 'wait_seconds' },
    { path: '/v1/maintenance-windows', id: window.id, code: 'NOT_FOUND', patch: { title: 'changed' }, field: 'title' },
  ] as const;
  const listed = async (who: Who, path: string, query = '') => {
    const r = await req(who, 'GET', `${path}${query}`);
    t.equal(r.status, 200, `GET ${path}${query}`);
    return (r.body.data.items as Array<{ id: string }>).map((i) => i.id);
  };

  await t.test('every role reads; owner, admin and member change; a viewer gets 403 and changes nothing', async (t) => {
    for (const k of kinds) {
      for (const [role, who] of [['owner', owner], ['admin', admin], ['member', member], ['viewer', viewer]] as const) {
        t.ok((await listed(who!, k.path)).includes(k.id), `${role} lists ${k.path}`);
        t.ok((await listed(who!, k.path, `?team_id=${team}`)).includes(k.id), `${role} lists ${k.path}?team_id`);
        const one = await req(who!, 'GET', `${k.path}/${k.id}`);
        t.equal(one.status, 200, `${role} reads ${k.path}`);
        t.equal(one.body.data.team_id, team);
      }
      for (const [role, who] of [['owner', owner], ['admin', admin], ['member', member]] as const) {
        t.equal((await req(who!, 'PATCH', `${k.path}/${k.id}`, k.patch)).status, 200, `${role} patches ${k.path}`);
      }
      const before = (await req(member!, 'GET', `${k.path}/${k.id}`)).body.data;
      const patch = await req(viewer!, 'PATCH', `${k.path}/${k.id}`, { [k.field]: k.field === 'delay_s' || k.field === 'wait_seconds' ? 120 : 'viewer was here' });
      t.equal(patch.status, 403, `viewer PATCH ${k.path}`);
      t.match(patch.body.error, { code: 'FORBIDDEN', details: { team_id: team, role: 'viewer', required_role: 'member' } });
      t.equal((await req(viewer!, 'DELETE', `${k.path}/${k.id}`)).status, 403, `viewer DELETE ${k.path}`);
      t.same((await req(member!, 'GET', `${k.path}/${k.id}`)).body.data, before, `${k.path}: the viewer changed nothing`);
    }
    // Actions are writes too.
    t.equal((await req(viewer!, 'POST', `/v1/alert-channels/${channel.id}/test`)).status, 403, 'viewer cannot test-send');
    t.equal((await req(viewer!, 'POST', `/v1/alert-channels/${channel.id}/recipients/opt-in`, { address: 'x@example.com' })).status, 403, 'viewer cannot resend an opt-in');
  });

  await t.test('creating in a team: a viewer 403, a non-member 404 TEAM_NOT_FOUND, a bad id 400; nothing stored', async (t) => {
    const count = async () => (await ctx.sql<Array<{ n: number }>>`SELECT count(*)::int AS n FROM alert_channels`)[0]!.n;
    const n = await count();
    const body = (team_id: string) => ({ name: 'x', type: 'slack', config: { webhook_url: SLACK_URL }, team_id });
    const asViewer = await req(viewer!, 'POST', '/v1/alert-channels', body(team));
    t.equal(asViewer.status, 403);
    t.equal(asViewer.body.error.code, 'FORBIDDEN');
    const asOutsider = await req(outsider!, 'POST', '/v1/alert-channels', body(team));
    t.equal(asOutsider.status, 404);
    t.equal(asOutsider.body.error.code, 'TEAM_NOT_FOUND');
    const bad = await req(member!, 'POST', '/v1/alert-channels', body('nope'));
    t.equal(bad.status, 400);
    t.equal(bad.body.error.code, 'VALIDATION_FAILED');
    for (const path of ['/v1/alert-groups', '/v1/alert-silences', '/v1/maintenance-windows', '/v1/alert-policies']) {
      const b = { '/v1/alert-groups': { name: 'g', group_by: 'tag', group_value: 'v' }, '/v1/alert-silences': { starts_at: '2030-01-01T00:00:00Z', ends_at: '2030-01-02T00:00:00Z' },
        '/v1/maintenance-windows': { scope_type: 'all', starts_at: '2030-01-01T00:00:00Z', ends_at: '2030-01-01T01:00:00Z' }, '/v1/alert-policies': { name: 'p', monitor_id: teamMonitor } }[path];
      t.equal((await req(viewer!, 'POST', path, { ...b, team_id: team })).status, 403, `viewer creates no ${path}`);
      t.equal((await req(outsider!, 'POST', path, { ...b, team_id: team })).body.error?.code, 'TEAM_NOT_FOUND', `outsider creates no ${path}`);
    }
    t.equal(await count(), n, 'nothing stored');
  });

  await t.test('cross-references stay within one owner (404 like unknown ids)', async (t) => {
    const teamWithPersonalChannel = await req(member!, 'POST', '/v1/alert-policies', { name: 'x', monitor_id: teamMonitor, channel_ids: [personalChannel.id], team_id: team });
    t.match(teamWithPersonalChannel, { status: 404, body: { error: { code: 'ALERT_CHANNEL_NOT_FOUND', details: { fields: [{ path: 'channel_ids[0]' }] } } } });
    const teamWithPersonalMonitor = await req(member!, 'POST', '/v1/alert-policies', { name: 'x', monitor_id: personalMonitor, team_id: team });
    t.equal(teamWithPersonalMonitor.body.error.code, 'MONITOR_NOT_FOUND');
    const personalWithTeamChannel = await req(member!, 'POST', '/v1/alert-policies', { name: 'x', monitor_id: personalMonitor, channel_ids: [channel.id] });
    t.equal(personalWithTeamChannel.body.error.code, 'ALERT_CHANNEL_NOT_FOUND', 'a personal policy cannot page a team channel');
    const escalation = await req(member!, 'PATCH', `/v1/alert-policies/${policy.id}`, { escalation_levels: [{ level_index: 1, after_seconds: 300, channel_ids: [personalChannel.id] }] });
    t.equal(escalation.body.error.code, 'ALERT_CHANNEL_NOT_FOUND', 'nor an escalation level of a team policy a personal channel');
    t.equal((await req(member!, 'POST', '/v1/alert-silences', { monitor_id: personalMonitor, starts_at: '2030-01-01T00:00:00Z', ends_at: '2030-01-02T00:00:00Z', team_id: team })).body.error.code, 'MONITOR_NOT_FOUND');
    t.equal((await req(member!, 'POST', '/v1/maintenance-windows', { scope_type: 'monitor', scope_ids: [personalMonitor], starts_at: '2030-01-01T00:00:00Z', ends_at: '2030-01-01T01:00:00Z', team_id: team })).body.error.code, 'MONITOR_NOT_FOUND');
    t.equal((await req(member!, 'PATCH', `/v1/maintenance-windows/${window.id}`, { scope_ids: [personalMonitor] })).body.error.code, 'MONITOR_NOT_FOUND');
  });

  await t.test('lists: ?team_id= narrows to the team; personal items stay their creator\'s', async (t) => {
    const all = await listed(member!, '/v1/alert-channels');
    t.ok(all.includes(channel.id) && all.includes(personalChannel.id), 'no filter: yours and your teams\'');
    t.same(await listed(member!, '/v1/alert-channels', `?team_id=${team}`), [channel.id], 'team_id: only the team\'s');
    t.notOk((await listed(admin!, '/v1/alert-channels')).includes(personalChannel.id), 'another member does not see a personal channel');
    t.equal((await req(admin!, 'GET', `/v1/alert-channels/${personalChannel.id}`)).status, 404);
    t.same(await listed(outsider!, '/v1/alert-channels', `?team_id=${team}`), [], 'a team you are not in filters to nothing');
  });

  await t.test('alert groups are unique per owner', async (t) => {
    t.equal((await req(admin!, 'POST', '/v1/alert-groups', { name: 'Again', group_by: 'tag', group_value: 'EDGE', team_id: team })).status, 409, 'the team has it');
    t.equal((await req(member!, 'POST', '/v1/alert-groups', { name: 'Mine', group_by: 'tag', group_value: 'edge' })).status, 201, 'a personal one beside the team\'s');
  });

  await t.test('alert events are owned like their policy: viewers read, members acknowledge and resolve', async (t) => {
    for (const who of [owner, admin, member, viewer]) {
      t.ok((await listed(who!, '/v1/alert-events')).includes(event));
      t.equal((await req(who!, 'GET', `/v1/alert-events/${event}`)).body.data?.team_id, team);
    }
    t.ok((await listed(viewer!, '/v1/alert-events', `?team_id=${team}`)).includes(event));
    for (const action of ['ack', 'resolve']) {
      const r = await req(viewer!, 'POST', `/v1/alert-events/${event}/${action}`);
      t.equal(r.status, 403, `viewer ${action}`);
      t.equal(r.body.error.details.required_role, 'member');
    }
    t.equal((await ctx.sql`SELECT status FROM alert_events WHERE id = ${event}`)[0]!.status, 'firing', 'the viewer changed nothing');
    const acked = await req(admin!, 'POST', `/v1/alert-events/${event}/ack`);
    t.match(acked, { status: 200, body: { data: { status: 'acknowledged', acknowledged_by: admin!.user_id, team_id: team } } });
    const resolved = await req(member!, 'POST', `/v1/alert-events/${event}/resolve`);
    t.match(resolved, { status: 200, body: { data: { status: 'resolved', resolved_by: member!.user_id } } });
  });

  await t.test('another team and a removed member: 404 everywhere, at once', async (t) => {
    for (const k of kinds) t.equal((await req(removed!, 'GET', `${k.path}/${k.id}`)).status, 200, `still a member: reads ${k.path}`);
    await ctx.sql`DELETE FROM team_members WHERE team_id = ${team} AND user_id = ${removed!.user_id}`;
    for (const [label, who] of [['another team', outsider], ['removed member', removed]] as const) {
      for (const k of kinds) {
        t.notOk((await listed(who!, k.path)).includes(k.id), `${label}: not listed in ${k.path}`);
        for (const [method, body] of [['GET', undefined], ['PATCH', k.patch], ['DELETE', undefined]] as const) {
          const r = await req(who!, method, `${k.path}/${k.id}`, body);
          t.equal(r.status, 404, `${label}: ${method} ${k.path}`);
          t.equal(r.body.error.code, k.code);
        }
      }
      for (const [method, path] of [['GET', ''], ['POST', '/ack'], ['POST', '/resolve']] as const) {
        t.equal((await req(who!, method, `/v1/alert-events/${event}${path}`)).status, 404, `${label}: ${method} event${path}`);
      }
      t.equal((await req(who!, 'POST', `/v1/alert-channels/${channel.id}/test`)).status, 404, `${label}: test-send`);
    }
  });

  await t.test('members delete; the channel a team policy uses is still protected', async (t) => {
    t.equal((await req(member!, 'DELETE', `/v1/alert-channels/${channel.id}`)).status, 409, 'used by the team policy');
    for (const k of [...kinds.slice(1), kinds[0]]) t.equal((await req(admin!, 'DELETE', `${k.path}/${k.id}`)).status, 200, `admin deletes ${k.path}`);
  });
});
