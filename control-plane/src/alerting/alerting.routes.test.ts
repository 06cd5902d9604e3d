import t from 'tap';
import { call, registerUser, testApp } from '../test-support/app.js';

/*
 * Channel and policy routes: validation per type, masked secrets, ownership (another account's
 * ids are 404), escalation rules, templates, the duplicate-policy conflict.
 */

// Loopback is opened for outbound URLs (no request is sent by these tests); real hosts would need DNS.
const SLACK_URL = 'http://127.0.0.1:9/services/T000/B000/SECRETSECRETSECRET1234';

async function setup(t: { teardown(fn: () => unknown): void }) {
  const ctx = await testApp(t, { config: { delivery_allow_cidrs: ['127.0.0.0/8'] } });
  const a = await registerUser(ctx.app);
  const b = await registerUser(ctx.app);
  const req = (who: { access_token: string }, method: string, path: string, body?: unknown) => call(ctx.app, method, path, { token: who.access_token, body });
  const monitor = async (who: { access_token: string }, name = 'Nightly backup') => {
    const r = await req(who, 'POST', '/v1/monitors', { name, type: 'heartbeat', config: { cron: '0 3 * * *', timezone: 'Europe/Paris', grace_s: 900 } });
    if (r.status !== 201) throw new Error(`monitor: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.data.id as string;
  };
  const channel = async (who: { access_token: string }, name = 'Ops') => {
    const r = await req(who, 'POST', '/v1/alert-channels', { name, type: 'slack', config: { webhook_url: SLACK_URL } });
    if (r.status !== 201) throw new Error(`channel: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.data.id as string;
  };
  return { ctx, a, b, req, monitor, channel };
}

t.test('channels: create, list, read, patch and delete; secrets never returned in full', async (t) => {
  const s = await setup(t);
  const created = await s.req(s.a, 'POST', '/v1/alert-channels', { name: 'DingTalk', type: 'dingtalk', config: { webhook_url: 'http://127.0.0.1:9/robot/send?access_token=tok_abcdefgh12345678', secret: 'SECabcdefghijklmnop9876' } });
  t.equal(created.status, 201);
  const ch = created.body.data;
  t.match(ch, { type: 'dingtalk', verified: false, config: { webhook_url: 'http://127.0.0.1:9/****5678', secret: '****9876' } });
  for (const path of ['/v1/alert-channels', `/v1/alert-channels/${ch.id}`]) {
    const text = JSON.stringify((await s.req(s.a, 'GET', path)).body);
    t.notMatch(text, /abcdefgh12345678|SECabcdefghijklmnop9876/, `${path} shows no secret`);
  }
  // Echoing the masked secret keeps it; a new name is applied.
  const patched = await s.req(s.a, 'PATCH', `/v1/alert-channels/${ch.id}`, { name: 'DT', config: { secret: '****9876' } });
  t.equal(patched.status, 200);
  t.equal(patched.body.data.name, 'DT');
  const [row] = await s.ctx.sql`SELECT config FROM alert_channels WHERE id = ${ch.id}`;
  t.equal(row!.config.secret, 'SECabcdefghijklmnop9876', 'stored secret kept');
  t.equal((await s.req(s.a, 'DELETE', `/v1/alert-channels/${ch.id}`)).status, 200);
  t.equal((await s.req(s.a, 'GET', `/v1/alert-channels/${ch.id}`)).status, 404);
});

t.test('channels: every type refuses a bad config with ALERT_CHANNEL_INVALID naming the field', async (t) => {
  const s = await setup(t);
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['email', { to: [] }, 'config.to'],
    ['email', { to: ['not-an-address'] }, 'config.to[0]'],
    ['webhook', { url: 'https://x.example.com/h', secret: 'short' }, 'config.secret'],
    ['webhook', { url: 'ftp://x.example.com/h', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }, 'config.url'],
    ['slack', {}, 'config.webhook_url'],
    ['discord', { webhook_url: 'https://user:pw@discord.com/api/webhooks/1/a' }, 'config.webhook_url'],
    ['telegram', { bot_token: 'nope', chat_id: '1' }, 'config.bot_token'],
    ['telegram', { bot_token: '123:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw', chat_id: 'x y' }, 'config.chat_id'],
    ['wecom', { webhook_url: 'not a url' }, 'config.webhook_url'],
    ['dingtalk', { webhook_url: 'https://oapi.dingtalk.com/robot/send', secret: '' }, 'config.secret'],
    ['feishu', { webhook_url: 'https://open.feishu.cn/x', extra: 1 }, 'config'],
    ['wechat', { sendkey: 'a b' }, 'config.sendkey'],
    ['sms', { url: 'https://sms.example.com', phone_numbers: ['abc'] }, 'config.phone_numbers[0]'],
    ['sms', { url: 'https://sms.example.com', phone_numbers: ['123456'], headers: { Host: 'x' } }, 'config.headers.Host'],
    ['sms', { url: 'http://127.0.0.1:9/send', phone_numbers: ['123456'], body_template: '{"to":"{{.Phone}}","text":"{{.Text}}"}' }, 'config.body_template'],
    ['sms', { url: 'http://127.0.0.1:9/send', phone_numbers: ['123456'], body_template: '{{with .Phone}}x{{end}}' }, 'config.body_template'],
    ['pagerduty', { routing_key: 'short' }, 'config.routing_key'],
    ['slack', { webhook_url: 'http://10.0.0.1/hook' }, 'config.webhook_url'],
  ];
  for (const [type, config, path] of cases) {
    const r = await s.req(s.a, 'POST', '/v1/alert-channels', { name: 'x', type, config });
    t.equal(r.status, 400, `${type} ${JSON.stringify(config)}`);
    t.equal(r.body.error?.code, 'ALERT_CHANNEL_INVALID');
    t.ok(r.body.error?.details.fields.some((f: { path: string }) => f.path.startsWith(path)), `${type}: names ${path} (${JSON.stringify(r.body.error?.details.fields)})`);
  }
  const unknownType = await s.req(s.a, 'POST', '/v1/alert-channels', { name: 'x', type: 'fax', config: {} });
  t.equal(unknownType.body.error.code, 'VALIDATION_FAILED');
  t.same((await s.ctx.sql`SELECT count(*)::int AS n FROM alert_channels`)[0]!.n, 0, 'nothing stored');
});

t.test('channels and policies: another account\'s ids are 404', async (t) => {
  const s = await setup(t);
  const ch = await s.channel(s.a);
  const m = await s.monitor(s.a);
  const p = (await s.req(s.a, 'POST', '/v1/alert-policies', { name: 'p', monitor_id: m, channel_ids: [ch] })).body.data.id;
  for (const [method, path, code] of [
    ['GET', `/v1/alert-channels/${ch}`, 'ALERT_CHANNEL_NOT_FOUND'], ['PATCH', `/v1/alert-channels/${ch}`, 'ALERT_CHANNEL_NOT_FOUND'],
    ['DELETE', `/v1/alert-channels/${ch}`, 'ALERT_CHANNEL_NOT_FOUND'], ['POST', `/v1/alert-channels/${ch}/test`, 'ALERT_CHANNEL_NOT_FOUND'],
    ['GET', `/v1/alert-policies/${p}`, 'ALERT_RULE_NOT_FOUND'], ['PATCH', `/v1/alert-policies/${p}`, 'ALERT_RULE_NOT_FOUND'],
    ['DELETE', `/v1/alert-policies/${p}`, 'ALERT_RULE_NOT_FOUND'],
  ] as const) {
    const r = await s.req(s.b, method, path, method === 'PATCH' ? { name: 'stolen' } : undefined);
    t.equal(r.status, 404, `${method} ${path}`);
    t.equal(r.body.error.code, code);
  }
  t.same((await s.req(s.b, 'GET', '/v1/alert-channels')).body.data.items, []);
  // b cannot bind a's channel or monitor.
  const mb = await s.monitor(s.b);
  const r1 = await s.req(s.b, 'POST', '/v1/alert-policies', { name: 'p', monitor_id: mb, channel_ids: [ch] });
  t.match(r1, { status: 404, body: { error: { code: 'ALERT_CHANNEL_NOT_FOUND', details: { fields: [{ path: 'channel_ids[0]' }] } } } });
  const r2 = await s.req(s.b, 'POST', '/v1/alert-policies', { name: 'p', monitor_id: m });
  t.match(r2, { status: 404, body: { error: { code: 'MONITOR_NOT_FOUND' } } });
});

t.test('policies: every field, escalation levels replaced in full, conflict, channel in use', async (t) => {
  const s = await setup(t);
  const [c1, c2, c3] = [await s.channel(s.a, 'one'), await s.channel(s.a, 'two'), await s.channel(s.a, 'three')];
  const m = await s.monitor(s.a);
  const body = {
    name: 'API down', monitor_id: m, channel_ids: [c1], enabled: true, delay_s: 30, recovery_n: 3, mute_start: '22:00', mute_end: '07:00',
    title_template: '[{{.State}}] {{.Monitor.Name}}', body_template: '{{if .Reason}}{{.Reason}}{{else}}no reason{{end}}{{range .Nodes}} {{.Name}}{{end}}',
    escalation_levels: [{ level_index: 1, after_seconds: 300, channel_ids: [c2] }, { level_index: 2, after_seconds: 900, channel_ids: [c2, c3] }],
    fire_on_degraded: true,
  };
  const created = await s.req(s.a, 'POST', '/v1/alert-policies', body);
  t.equal(created.status, 201, JSON.stringify(created.body));
  const p = created.body.data;
  t.match(p, { ...body, escalation_levels: [{ level_index: 1, after_seconds: 300, channel_ids: [c2] }, { level_index: 2, after_seconds: 900, channel_ids: [c2, c3] }] });
  t.match(p.escalation_levels[0].id, /^ael_/);
  const patched = await s.req(s.a, 'PATCH', `/v1/alert-policies/${p.id}`, { escalation_levels: [{ level_index: 1, after_seconds: 60, channel_ids: [c3] }] });
  t.equal(patched.status, 200);
  t.match(patched.body.data.escalation_levels, [{ level_index: 1, after_seconds: 60, channel_ids: [c3] }]);
  t.equal(patched.body.data.escalation_levels.length, 1, 'replaced in full');
  t.equal(patched.body.data.recovery_n, 3, 'other fields unchanged');
  t.equal(patched.body.data.fire_on_degraded, true, 'fire_on_degraded unchanged');
  const calm = await s.req(s.a, 'PATCH', `/v1/alert-policies/${p.id}`, { fire_on_degraded: false });
  t.equal(calm.body.data.fire_on_degraded, false, 'fire_on_degraded patched');
  t.equal((await s.req(s.a, 'GET', `/v1/alert-policies/${p.id}`)).body.data.fire_on_degraded, false, 'and read back');
  t.equal((await s.ctx.sql`SELECT fire_on_degraded FROM alert_policies WHERE id = ${p.id}`)[0]!.fire_on_degraded, false, 'stored');
  const bare = await s.req(s.a, 'POST', '/v1/alert-policies', { name: 'bare', monitor_id: m });
  t.equal(bare.body.data.fire_on_degraded, false, 'defaults to false');
  t.equal((await s.req(s.a, 'DELETE', `/v1/alert-policies/${bare.body.data.id}`)).status, 200);
  const dup = await s.req(s.a, 'POST', '/v1/alert-policies', { name: 'api DOWN', monitor_id: m });
  t.match(dup, { status: 409, body: { error: { code: 'ALERT_RULE_CONFLICT' } } });
  const inUse = await s.req(s.a, 'DELETE', `/v1/alert-channels/${c3}`);
  t.match(inUse, { status: 409, body: { error: { code: 'CONFLICT', details: { policy_ids: [p.id] } } } });
  t.equal((await s.req(s.a, 'GET', `/v1/alert-policies?monitor_id=${m}`)).body.data.items.length, 1);
  t.equal((await s.req(s.a, 'DELETE', `/v1/alert-policies/${p.id}`)).status, 200);
  t.equal((await s.req(s.a, 'DELETE', `/v1/alert-channels/${c3}`)).status, 200, 'free once the policy is gone');
});

t.test('policies: every validation error, nothing stored', async (t) => {
  const s = await setup(t);
  const c = await s.channel(s.a);
  const m = await s.monitor(s.a);
  const level = (level_index: number, after_seconds: number, channel_ids = [c]) => ({ level_index, after_seconds, channel_ids });
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ name: undefined }, 'name'],
    [{ monitor_id: undefined }, 'monitor_id'],
    [{ name: '' }, 'name'],
    [{ recovery_n: 11 }, 'recovery_n'],
    [{ recovery_n: 0 }, 'recovery_n'],
    [{ delay_s: -1 }, 'delay_s'],
    [{ mute_start: '24:00', mute_end: '01:00' }, 'mute_start'],
    [{ mute_start: '7:00', mute_end: '08:00' }, 'mute_start'],
    [{ mute_start: '22:00' }, 'mute_end'],
    [{ escalation_levels: [level(1, 60), level(2, 120), level(3, 180), level(4, 240), level(5, 300), level(6, 360)] }, 'escalation_levels'],
    [{ escalation_levels: [level(2, 60), level(1, 120)] }, 'escalation_levels[1].level_index'],
    [{ escalation_levels: [level(1, 60), level(2, 60)] }, 'escalation_levels[1].after_seconds'],
    [{ escalation_levels: [level(1, 0)] }, 'escalation_levels[0].after_seconds'],
    [{ escalation_levels: [level(1, 60, [])] }, 'escalation_levels[0].channel_ids'],
    [{ channel_ids: [c, c] }, 'channel_ids'],
    [{ title_template: '{{.Monitor.Nmae}}' }, 'title_template'],
    [{ body_template: '{{if .State}}open' }, 'body_template'],
    [{ body_template: '{{printf "%s" .State}}' }, 'body_template'],
    [{ body_template: '{{range .State}}x{{end}}' }, 'body_template'],
    // Nested blocks multiply a render's work (2 nodes, 23 levels froze the control plane for seconds).
    [{ body_template: `${'{{range .Nodes}}'.repeat(40)}{{.Name}}${'{{end}}'.repeat(40)}` }, 'body_template'],
    [{ body_template: '{{range .Nodes}}{{range .Nodes}}{{range .Nodes}}{{.Name}}{{end}}{{end}}{{end}}' }, 'body_template'],
    [{ title_template: `${'{{if .State}}'.repeat(9)}x${'{{end}}'.repeat(9)}` }, 'title_template'],
    [{ fire_on_degraded: 'yes' }, 'fire_on_degraded'],
    [{ unknown: 1 }, ''],
  ];
  for (const [extra, path] of cases) {
    const r = await s.req(s.a, 'POST', '/v1/alert-policies', { name: 'p', monitor_id: m, ...extra });
    t.equal(r.status, 400, JSON.stringify(extra));
    t.equal(r.body.error?.code, 'VALIDATION_FAILED');
    if (path) t.ok(r.body.error.details.fields.some((f: { path: string }) => f.path.startsWith(path)), `${JSON.stringify(extra)} names ${path}: ${JSON.stringify(r.body.error.details.fields)}`);
  }
  t.equal((await s.ctx.sql`SELECT count(*)::int AS n FROM alert_policies`)[0]!.n, 0, 'nothing stored');
  const p = (await s.req(s.a, 'POST', '/v1/alert-policies', { name: 'p', monitor_id: m, mute_start: '22:00', mute_end: '06:00' })).body.data;
  const clear = await s.req(s.a, 'PATCH', `/v1/alert-policies/${p.id}`, { mute_start: null });
  t.match(clear, { status: 400, body: { error: { code: 'VALIDATION_FAILED' } } }, 'a PATCH cannot leave half a mute window');
});
