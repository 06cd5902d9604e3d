import t from 'tap';
import { call, registerUser, testApp } from '../test-support/app.js';
import { seedTeam } from '../teams/test-support.js';

/*
 * The data export (docs/api/accounts.md "Data export"): one JSON document of the caller's own
 * resources, with no secret anywhere in it, and nothing of another account.
 */

t.test('export: own resources, secrets left out, nobody else\'s', async (t) => {
  const { app, sql } = await testApp(t, { config: { delivery_allow_cidrs: ['127.0.0.0/8'], probe_allow_cidrs: ['198.18.0.0/15'], plan: 'business' } });
  const [u, other] = await Promise.all([registerUser(app), registerUser(app)]);
  const auth = { token: u.access_token };
  const post = async (path: string, body: unknown, token = u.access_token) => {
    const r = await call(app, 'POST', path, { token, body });
    t.equal(r.status, 201, `${path}: ${JSON.stringify(r.body)}`);
    return r.body.data;
  };
  const group = await post('/v1/monitor-groups', { name: 'Edge' });
  const monitor = await post('/v1/monitors', {
    name: 'api', type: 'http', target: 'https://198.18.1.11/health', group_id: group.id,
    config: { headers: { Authorization: 'Bearer monitor-header-secret' } },
  });
  const channel = await post('/v1/alert-channels', { name: 'tg', type: 'telegram', config: { bot_token: '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw', chat_id: 42, api_base_url: 'http://127.0.0.1:9' } });
  const policy = await post('/v1/alert-policies', { name: 'p', monitor_id: monitor.id, channel_ids: [channel.id] });
  const endpoint = await post('/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/hook', events: ['monitor.down'] });
  const key = await post('/v1/account/api-keys', { name: 'ci' });
  const pat = await post('/v1/account/tokens', { name: 'laptop' });
  const team = await seedTeam(sql, [[other, 'owner'], [u, 'member']]);
  await post('/v1/monitor-groups', { name: 'Not mine' }, other.access_token);
  await call(app, 'PATCH', '/v1/account/profile', { ...auth, body: { username: 'exporter' } });

  const r = await call(app, 'GET', '/v1/account/export', auth);
  t.equal(r.status, 200, JSON.stringify(r.body).slice(0, 500));
  const doc = r.body.data;
  t.match(doc, { version: 1, exported_at: String, profile: { id: u.user_id, email: u.email, username: 'exporter' } });
  t.same(doc.monitor_groups.map((g: { id: string }) => g.id), [group.id], 'own groups only');
  t.equal(doc.monitors.length, 1);
  t.match(doc.monitors[0], { id: monitor.id, name: 'api', type: 'http', target: 'https://198.18.1.11/health', group: 'Edge' });
  t.same(doc.alert_policies.map((p: { id: string }) => p.id), [policy.id]);
  t.same(doc.alert_channels.map((c: { id: string }) => c.id), [channel.id]);
  t.same(doc.webhook_endpoints.map((e: { id: string }) => e.id), [endpoint.endpoint.id]);
  t.match(doc.api_keys, [{ id: key.id, name: 'ci', status: 'active' }]);
  t.match(doc.personal_access_tokens, [{ id: pat.id, name: 'laptop' }]);
  t.match(doc.team_memberships, [{ team_id: team, role: 'member' }]);
  t.same(doc.passkeys, []);
  t.same(doc.oauth_identities, []);
  for (const k of ['alert_silences', 'maintenance_windows']) t.same(doc[k], [], `${k}: none`);

  const text = JSON.stringify(doc);
  for (const secret of ['monitor-header-secret', 'AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw', key.key, pat.token, endpoint.secret, 'key_hash', 'password_hash', 'totp_secret']) {
    t.notOk(text.includes(secret), `no ${String(secret).slice(0, 12)}… in the export`);
  }
  t.notOk(text.includes(other.user_id), 'nothing of another account');

  const byKey = await call(app, 'GET', '/v1/account/export', { token: key.key });
  t.equal(byKey.status, 200, 'an API key with read exports too');
});
