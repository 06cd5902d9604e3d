import { createHmac } from 'node:crypto';
import t, { type Test } from 'tap';
import { Webhook } from 'standardwebhooks';
import type { Config } from '../../config/index.js';
import { startReceiver, type Answer, type Received } from '../../delivery/test-support.js';
import { startSmtpServer } from '../../email/test-support.js';
import { call, registerUser, testApp } from '../../test-support/app.js';

/*
 * Every channel type's test send, through the real delivery engine, to a real HTTP receiver on
 * loopback that checks the service's documented payload shape; DingTalk and Feishu signatures are
 * recomputed here from their documented recipes, the webhook signature with the standardwebhooks
 * reference verifier; e-mail through a real SMTP server.
 */

const FAST: Partial<Config> = { delivery_allow_cidrs: ['127.0.0.0/8'], delivery_poll_interval_ms: 50, delivery_retry_delays_ms: [50, 50] };
const WEBHOOK_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

async function setup(t: Test, config: Partial<Config> = {}) {
  const ctx = await testApp(t, { config: { ...FAST, ...config }, delivery: true });
  const user = await registerUser(ctx.app);
  async function channel(type: string, cfg: Record<string, unknown>): Promise<{ id: string; body: any }> {
    const r = await call(ctx.app, 'POST', '/v1/alert-channels', { token: user.access_token, body: { name: `${type} channel`, type, config: cfg } });
    if (r.status !== 201) throw new Error(`create ${type}: ${r.status} ${JSON.stringify(r.body)}`);
    return { id: r.body.data.id, body: r.body.data };
  }
  const test = async (id: string) => call(ctx.app, 'POST', `/v1/alert-channels/${id}/test`, { token: user.access_token });
  const get = async (id: string) => (await call(ctx.app, 'GET', `/v1/alert-channels/${id}`, { token: user.access_token })).body.data;
  return { ctx, user, channel, test, get };
}

/** A receiver answering `answer`, the channel created with `cfg(url)`, one test send: @returns the request and the test result. */
async function sendOne(t: Test, type: string, cfg: (base: string, url: string) => Record<string, unknown>, answer: Answer = { status: 200 }) {
  const s = await setup(t);
  const rx = await startReceiver(t, () => answer);
  const ch = await s.channel(type, cfg(`http://127.0.0.1:${rx.port}`, rx.url));
  t.equal(ch.body.verified, false, 'not verified before a test');
  const res = await s.test(ch.id);
  t.equal(res.status, 200, 'test answered');
  const [req] = await rx.waitFor(1);
  return { req: req!, res: res.body.data, s, ch };
}

const json = (r: Received) => JSON.parse(r.body);

t.test('slack: {text, blocks} to the incoming webhook; verified after success', async (t) => {
  const { req, res, s, ch } = await sendOne(t, 'slack', (_b, url) => ({ webhook_url: url }), { status: 200, body: 'ok' });
  const body = json(req);
  t.equal(req.method, 'POST');
  t.match(req.headers['content-type'], /^application\/json/);
  t.type(body.text, 'string');
  t.equal(body.blocks[0].type, 'header');
  t.equal(body.blocks[0].text.type, 'plain_text');
  t.equal(body.blocks[1].text.type, 'mrkdwn');
  t.match(body.blocks[1].text.text, /test notification/);
  t.match(res, { status: 'succeeded', attempts: 1, status_code: 200, error: null, verified: true });
  t.equal((await s.get(ch.id)).verified, true, 'verified in the channel');
});

t.test('discord: {content, embeds} with wait=true', async (t) => {
  const { req, res } = await sendOne(t, 'discord', (_b, url) => ({ webhook_url: url }), { status: 200, body: '{"id":"1"}' });
  t.match(req.path, /\/hook\?wait=true$/);
  const body = json(req);
  t.type(body.content, 'string');
  t.equal(body.embeds.length, 1);
  t.type(body.embeds[0].title, 'string');
  t.type(body.embeds[0].color, 'number');
  t.same(body.allowed_mentions, { parse: [] });
  t.equal(res.status, 'succeeded');
});

t.test('telegram: sendMessage with chat_id and text under /bot<token>/', async (t) => {
  const token = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
  const { req, res } = await sendOne(t, 'telegram', (base) => ({ bot_token: token, chat_id: -1001234567890, api_base_url: base }), { status: 200, body: '{"ok":true,"result":{}}' });
  t.equal(req.path, `/bot${token}/sendMessage`);
  const body = json(req);
  t.equal(body.chat_id, '-1001234567890');
  t.match(body.text, /test notification/);
  t.equal(res.status, 'succeeded');
});

t.test('telegram: ok false in the answer fails the test and leaves the channel unverified', async (t) => {
  const { res } = await sendOne(t, 'telegram', (base) => ({ bot_token: '1:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw', chat_id: '@vantage_ops', api_base_url: base }), { status: 200, body: '{"ok":false,"description":"chat not found"}' });
  t.match(res, { status: 'failed', verified: false });
  t.match(res.error, /chat not found/);
});

t.test('wecom: {msgtype: markdown}; errcode 0 is success, another is a failure', async (t) => {
  const { req, res } = await sendOne(t, 'wecom', (_b, url) => ({ webhook_url: `${url}?key=693a91f6-7xxx` }), { status: 200, body: '{"errcode":0,"errmsg":"ok"}' });
  const body = json(req);
  t.equal(body.msgtype, 'markdown');
  t.type(body.markdown.content, 'string');
  t.ok(Buffer.byteLength(body.markdown.content) <= 4096);
  t.equal(res.status, 'succeeded');
  const bad = await sendOne(t, 'wecom', (_b, url) => ({ webhook_url: url }), { status: 200, body: '{"errcode":93000,"errmsg":"invalid webhook url"}' });
  t.match(bad.res, { status: 'failed', verified: false });
  t.match(bad.res.error, /93000/);
});

t.test('dingtalk: markdown with timestamp and sign (HMAC-SHA256 of "timestamp\\nsecret", base64, URL-encoded)', async (t) => {
  const secret = 'SECb6e1f4c0d7b5a3e2c1f0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8';
  const { req, res } = await sendOne(t, 'dingtalk', (_b, url) => ({ webhook_url: `${url}?access_token=abc123`, secret }), { status: 200, body: '{"errcode":0,"errmsg":"ok"}' });
  const url = new URL(req.path, 'http://x');
  t.equal(url.searchParams.get('access_token'), 'abc123');
  const timestamp = url.searchParams.get('timestamp')!;
  t.match(timestamp, /^\d{13}$/, 'timestamp in ms');
  const expected = createHmac('sha256', secret).update(`${timestamp}\n${secret}`).digest('base64');
  t.equal(url.searchParams.get('sign'), expected, 'sign verifies');
  t.ok(req.path.includes(`sign=${encodeURIComponent(expected)}`), 'sign is URL-encoded in the query');
  const body = json(req);
  t.equal(body.msgtype, 'markdown');
  t.type(body.markdown.title, 'string');
  t.type(body.markdown.text, 'string');
  t.equal(res.status, 'succeeded');
});

t.test('feishu: post message with timestamp and sign (HMAC-SHA256 keyed "timestamp\\nsecret" over nothing)', async (t) => {
  const secret = 'qN3bHkOaY5u9xyzFeishuSecret';
  const { req, res } = await sendOne(t, 'feishu', (_b, url) => ({ webhook_url: url, secret }), { status: 200, body: '{"code":0,"msg":"success","data":{}}' });
  const body = json(req);
  t.match(body.timestamp, /^\d{10}$/, 'timestamp in seconds, as a string');
  t.equal(body.sign, createHmac('sha256', `${body.timestamp}\n${secret}`).update('').digest('base64'), 'sign verifies');
  t.equal(body.msg_type, 'post');
  t.type(body.content.post.zh_cn.title, 'string');
  t.ok(Array.isArray(body.content.post.zh_cn.content[0]));
  t.equal(res.status, 'succeeded');
  const bad = await sendOne(t, 'feishu', (_b, url) => ({ webhook_url: url }), { status: 200, body: '{"code":19021,"msg":"sign match fail"}' });
  t.match(bad.res, { status: 'failed', verified: false });
});

t.test('wechat (ServerChan): {title, desp} to /<sendkey>.send', async (t) => {
  const { req, res } = await sendOne(t, 'wechat', (base) => ({ sendkey: 'SCT123456TabcdefGHIJ', api_base_url: base }), { status: 200, body: '{"code":0,"message":"","data":{}}' });
  t.equal(req.path, '/SCT123456TabcdefGHIJ.send');
  const body = json(req);
  t.ok(body.title.length <= 32);
  t.type(body.desp, 'string');
  t.equal(res.status, 'succeeded');
});

t.test('sms: one request per number from the body template, values JSON-escaped, headers sent', async (t) => {
  const s = await setup(t);
  const rx = await startReceiver(t);
  const ch = await s.channel('sms', {
    url: rx.url, headers: { Authorization: 'Bearer sms-gateway-key-123456' }, phone_numbers: ['+8613800000001', '+8613800000002'],
    body_template: '{"to":"{{.Phone}}","text":"{{.Message}}"}',
  });
  const res = await s.test(ch.id);
  const reqs = await rx.waitFor(2);
  t.same(reqs.map((r) => json(r).to), ['+8613800000001', '+8613800000002']);
  t.match(json(reqs[0]!).text, /test notification/);
  t.equal(reqs[0]!.headers.authorization, 'Bearer sms-gateway-key-123456');
  t.equal(res.body.data.status, 'succeeded');
  t.equal(ch.body.config.headers.Authorization, '****3456', 'header values are masked');
});

t.test('sms: GET puts the form-encoded template in the query', async (t) => {
  const { req, res } = await sendOne(t, 'sms', (_b, url) => ({
    url: `${url}?user=ops`, method: 'GET', content_type: 'application/x-www-form-urlencoded', phone_numbers: ['13800000000'],
    body_template: 'to={{.Phone}}&msg={{.Message}}',
  }));
  t.equal(req.method, 'GET');
  const q = new URL(req.path, 'http://x').searchParams;
  t.equal(q.get('user'), 'ops');
  t.equal(q.get('to'), '13800000000');
  t.match(q.get('msg'), /test notification/);
  t.equal(res.status, 'succeeded');
});

t.test('sms: a body the bounds stop, or a stored template that no longer compiles, sends the default body saying why', async (t) => {
  const s = await setup(t);
  const rx = await startReceiver(t);
  // 341 messages of up to 500 characters: far over the 8192-character body bound.
  const ch = await s.channel('sms', { url: rx.url, phone_numbers: ['+8613800000001'], body_template: '{{.Message}}'.repeat(341) });
  t.equal((await s.test(ch.id)).body.data.status, 'succeeded');
  const [long] = await rx.waitFor(1);
  t.match(json(long!), { to: '+8613800000001', message: /^\[body_template not used: the output is longer than 8192 characters\] .*test notification/ });
  // A template stored before save-time validation (an unknown field) no longer fails every send.
  await s.ctx.sql`UPDATE alert_channels SET config = jsonb_set(config, '{body_template}', '"{\\"text\\":\\"{{.Text}}\\"}"') WHERE id = ${ch.id}`;
  t.equal((await s.test(ch.id)).body.data.status, 'succeeded');
  const [, legacy] = await rx.waitFor(2);
  t.match(json(legacy!), { to: '+8613800000001', message: /^\[body_template not used: unknown field \.Text/ });
});

t.test('pagerduty: Events API v2 trigger with routing_key, dedup_key and payload', async (t) => {
  const key = 'R0123456789ABCDEF0123456789ABCDE';
  const { req, res } = await sendOne(t, 'pagerduty', (_b, url) => ({ routing_key: key, api_url: url }), { status: 202, body: '{"status":"success","message":"Event processed","dedup_key":"x"}' });
  const body = json(req);
  t.equal(body.routing_key, key);
  t.equal(body.event_action, 'trigger');
  t.type(body.dedup_key, 'string');
  t.type(body.payload.summary, 'string');
  t.type(body.payload.source, 'string');
  t.equal(body.payload.severity, 'info', 'a test triggers at info');
  t.equal(res.status, 'succeeded');
  t.equal(res.status_code, 202);
  const bad = await sendOne(t, 'pagerduty', (_b, url) => ({ routing_key: key, api_url: url }), { status: 400, body: '{"status":"invalid event"}' });
  t.match(bad.res, { status: 'failed', attempts: 1, status_code: 400, verified: false }, 'a 400 is not retried');
});

t.test('webhook: Standard Webhooks signature verified by the reference library', async (t) => {
  const { req, res } = await sendOne(t, 'webhook', (_b, url) => ({ url, secret: WEBHOOK_SECRET }));
  const headers = { 'webhook-id': String(req.headers['webhook-id']), 'webhook-timestamp': String(req.headers['webhook-timestamp']), 'webhook-signature': String(req.headers['webhook-signature']) };
  const verified = new Webhook(WEBHOOK_SECRET).verify(req.body, headers) as any;
  t.equal(verified.type, 'alert.test');
  t.equal(verified.id, headers['webhook-id']);
  t.equal(verified.data.kind, 'test');
  t.equal(res.status, 'succeeded');
});

t.test('email: through a real SMTP server, one e-mail to each confirmed address', async (t) => {
  const smtp = await startSmtpServer(t);
  const s = await setup(t, { smtp_url: smtp.smtp_url });
  const ch = await s.channel('email', { to: ['a@example.test', 'b@example.test'] });
  // Registration sent a verification e-mail, the channel one opt-in e-mail per address: confirm both.
  await smtp.waitFor(3);
  for (const m of smtp.messages.filter((x) => x.parsed.subject === 'Confirm alert e-mails from Vantage')) {
    const link = /https?:\/\/[^/\s]+(\/v1\/alert-channels\/recipients\/confirm\?token=\S+)/.exec(m.parsed.text ?? '');
    t.equal((await call(s.ctx.app, 'POST', link![1]!)).status, 200, `confirmed ${m.to.join()}`);
  }
  const res = await s.test(ch.id);
  await smtp.waitFor(5);
  const mails = smtp.messages.filter((m) => /test notification/.test(m.parsed.subject ?? ''));
  t.same(mails.map((m) => m.to.join()).sort(), ['a@example.test', 'b@example.test'], 'each address its own e-mail');
  t.match(mails[0]!.parsed.subject, /Vantage test notification/);
  t.match(mails[0]!.parsed.text, /test notification/);
  t.match(res.body.data, { status: 'succeeded', verified: true });
});

t.test('email without an SMTP server fails at once with the reason', async (t) => {
  const s = await setup(t);
  const ch = await s.channel('email', { to: ['a@example.test'] });
  const res = await s.test(ch.id);
  t.match(res.body.data, { status: 'failed', verified: false });
  t.match(res.body.data.error, /SMTP/);
});

t.test('an address the outbound policy refuses fails the test without a request', async (t) => {
  const s = await setup(t, { delivery_allow_cidrs: [] });
  const r = await call(s.ctx.app, 'POST', '/v1/alert-channels', { token: s.user.access_token, body: { name: 'x', type: 'slack', config: { webhook_url: 'http://127.0.0.1:9/hook' } } });
  t.equal(r.status, 400);
  t.equal(r.body.error.code, 'ALERT_CHANNEL_INVALID');
  t.equal(r.body.error.details.fields[0].path, 'config.webhook_url');
});
