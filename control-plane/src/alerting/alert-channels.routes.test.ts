import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { Webhook } from 'standardwebhooks';
import { waitFor } from '../hub/test-harness.js';
import { call, registerUser, testApp } from '../test-support/app.js';

/*
 * Webhook channels get a generated secret when none is given (returned once, as webhook endpoints
 * do), and a policy's channel ids are found or not found whatever their shape.
 */

const { app, sql } = await testApp(t, { config: { delivery_allow_cidrs: ['127.0.0.0/8'], delivery_poll_interval_ms: 50 }, delivery: true });
const user = await registerUser(app);
const api = (method: string, path: string, body?: unknown) => call(app, method, path, { token: user.access_token, body });

t.test('a webhook channel without a secret gets one, shown once; it signs the notifications', async (t) => {
  const received: Array<{ headers: IncomingMessage['headers']; body: string }> = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => { body += d.toString(); });
    req.on('end', () => { received.push({ headers: req.headers, body }); res.end('ok'); });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  const created = await api('POST', '/v1/alert-channels', { name: 'Receiver', type: 'webhook', config: { url } });
  t.equal(created.status, 201, created.body.error?.message ?? "created");
  const secret = created.body.data.secret as string;
  t.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/, 'a whsec_ secret of 32 random bytes');
  t.equal(created.body.data.config.secret, `****${secret.slice(-4)}`, 'masked in the config');
  const [row] = await sql<{ config: { secret: string } }[]>`SELECT config FROM alert_channels WHERE id = ${created.body.data.id}`;
  t.equal(row!.config.secret, secret, 'the returned secret is the stored one');

  const read = await api('GET', `/v1/alert-channels/${created.body.data.id}`);
  t.equal(read.body.data.secret, undefined, 'never again on a read');
  t.notMatch(JSON.stringify(read.body), secret);
  t.notMatch(JSON.stringify((await api('GET', '/v1/alert-channels')).body), secret, 'nor in the list');
  const patched = await api('PATCH', `/v1/alert-channels/${created.body.data.id}`, { name: 'Receiver 2' });
  t.equal(patched.body.data.secret, undefined, 'nor on a patch');

  // The test send is signed with that secret (Standard Webhooks, the reference verifier).
  const sent = await api('POST', `/v1/alert-channels/${created.body.data.id}/test`);
  t.equal(sent.status, 200, JSON.stringify(sent.body));
  await waitFor(async () => received.length > 0, 60_000);
  const h = received[0]!.headers;
  t.ok(new Webhook(secret).verify(received[0]!.body, { 'webhook-id': String(h['webhook-id']), 'webhook-timestamp': String(h['webhook-timestamp']), 'webhook-signature': String(h['webhook-signature']) }), 'verifies');

  const given = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const own = await api('POST', '/v1/alert-channels', { name: 'Own secret', type: 'webhook', config: { url, secret: given } });
  t.equal(own.status, 201);
  t.equal(own.body.data.secret, undefined, 'a secret the user chose is not echoed');
  const [ownRow] = await sql<{ config: { secret: string } }[]>`SELECT config FROM alert_channels WHERE id = ${own.body.data.id}`;
  t.equal(ownRow!.config.secret, given, 'and is kept as given');

  const slack = await api('POST', '/v1/alert-channels', { name: 'Slack', type: 'slack', config: { webhook_url: `${url}/slack` } });
  t.equal(slack.body.data.secret, undefined, 'other types get nothing generated');
});

t.test('policy channel ids: a malformed id is not found like an unknown one', async (t) => {
  const m = (await api('POST', '/v1/monitors', { name: 'hb', type: 'heartbeat' })).body.data.id as string;
  const ch = (await api('POST', '/v1/alert-channels', { name: 'Slack', type: 'slack', config: { webhook_url: 'http://127.0.0.1:9/s' } })).body.data.id as string;
  const policies = async () => (await sql`SELECT count(*)::int AS n FROM alert_policies`)[0]!.n as number;
  const before = await policies();
  for (const [body, path] of [
    [{ channel_ids: [ch, 'not-an-id'] }, 'channel_ids[1]'],
    [{ channel_ids: ['ach_01jd3k6w9z4q8r2t7v5x1y3b6c'] }, 'channel_ids[0]'],
    [{ channel_ids: [ch], escalation_levels: [{ level_index: 1, after_seconds: 60, channel_ids: ['m_01jd3k6w9z4q8r2t7v5x1y3b6c'] }] }, 'escalation_levels[0].channel_ids[0]'],
  ] as const) {
    const r = await api('POST', '/v1/alert-policies', { name: 'p', monitor_id: m, ...body });
    t.equal(r.status, 404, JSON.stringify(body));
    t.match(r.body.error, { code: 'ALERT_CHANNEL_NOT_FOUND', details: { fields: [{ path, message: 'not one of your alert channels' }] } });
  }
  const p = (await api('POST', '/v1/alert-policies', { name: 'p', monitor_id: m, channel_ids: [ch] })).body.data.id as string;
  const patched = await api('PATCH', `/v1/alert-policies/${p}`, { channel_ids: ['x'] });
  t.match(patched, { status: 404, body: { error: { code: 'ALERT_CHANNEL_NOT_FOUND' } } }, 'on a patch too');
  t.same((await api('GET', `/v1/alert-policies/${p}`)).body.data.channel_ids, [ch], 'the patch changed nothing');
  t.equal(await policies(), before + 1, 'nothing stored by the refused requests');
  t.equal((await api('POST', '/v1/alert-policies', { name: 'q', monitor_id: m, channel_ids: [ch, ch] })).body.error.code, 'VALIDATION_FAILED', 'a repeated channel stays a validation error');
});

t.test('an id of the wrong kind reads "an alert channel id"', async (t) => {
  const { idSchema } = await import('@vantage/shared-protocol');
  t.equal(idSchema('alert_channel').safeParse('x').error?.issues[0]?.message, 'must be an alert channel id (ach_…)');
  t.equal(idSchema('monitor').safeParse('x').error?.issues[0]?.message, 'must be a monitor id (m_…)');
});
