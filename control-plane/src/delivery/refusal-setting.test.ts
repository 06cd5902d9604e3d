import t from 'tap';
import { call, registerUser, testApp } from '../test-support/app.js';

/*
 * A webhook endpoint or alert channel URL the outbound address policy refuses names the setting
 * that opens it (VANTAGE_DELIVERY_ALLOW_CIDRS) in the message and in `details.setting`.
 */

const SETTING = 'VANTAGE_DELIVERY_ALLOW_CIDRS';
const { app, sql } = await testApp(t);
const user = await registerUser(app);
const api = (method: string, path: string, body?: unknown) => call(app, method, path, { token: user.access_token, body });

t.test('webhook endpoints: a loopback or private URL is refused naming the setting', async (t) => {
  for (const url of ['http://127.0.0.1:9/hook', 'http://localhost:9/hook', 'https://10.1.2.3/hook', 'http://[::1]:9/hook']) {
    const r = await api('POST', '/v1/webhook-endpoints', { url, events: ['monitor.down'] });
    t.equal(r.status, 422, url);
    t.match(r.body.error, { code: 'WEBHOOK_URL_NOT_ALLOWED', message: new RegExp(SETTING), details: { setting: SETTING, fields: [{ path: 'url', message: new RegExp(SETTING) }] } }, url);
  }
  const ok = await api('POST', '/v1/webhook-endpoints', { url: 'https://93.184.215.14/hook', events: ['monitor.down'] });
  t.equal(ok.status, 201, 'a public address is accepted');
  const patched = await api('PATCH', `/v1/webhook-endpoints/${ok.body.data.endpoint.id}`, { url: 'http://127.0.0.1:9/hook' });
  t.match(patched, { status: 422, body: { error: { code: 'WEBHOOK_URL_NOT_ALLOWED', details: { setting: SETTING } } } }, 'on a patch too');
  const bad = await api('POST', '/v1/webhook-endpoints', { url: 'ftp://203.0.113.7/hook', events: ['monitor.down'] });
  t.equal(bad.body.error.details.setting, undefined, 'a refusal no setting lifts names none');
  t.equal((await sql`SELECT count(*)::int AS n FROM webhook_endpoints`)[0]!.n, 1, 'nothing stored by the refused requests');
});

t.test('alert channels: a loopback or private URL is refused naming the setting', async (t) => {
  for (const [type, config, path] of [
    ['slack', { webhook_url: 'http://127.0.0.1:9/services/T/B/X' }, 'config.webhook_url'],
    ['webhook', { url: 'http://192.168.1.20/alerts' }, 'config.url'],
    ['sms', { url: 'http://127.0.0.1:9/send', phone_numbers: ['123456'] }, 'config.url'],
  ] as const) {
    const r = await api('POST', '/v1/alert-channels', { name: 'local', type, config });
    t.equal(r.status, 400, type);
    t.match(r.body.error, { code: 'ALERT_CHANNEL_INVALID', message: new RegExp(SETTING), details: { setting: SETTING, fields: [{ path, message: new RegExp(SETTING) }] } }, type);
  }
  const bad = await api('POST', '/v1/alert-channels', { name: 'x', type: 'slack', config: { webhook_url: 'not a url' } });
  t.equal(bad.body.error.details.setting, undefined, 'a config error names no setting');
  t.equal((await sql`SELECT count(*)::int AS n FROM alert_channels`)[0]!.n, 0, 'nothing stored');
});
