import t from 'tap';
import { Webhook } from 'standardwebhooks';
import type { Config } from '../config/index.js';
import { eventually, startReceiver, type Received } from '../delivery/test-support.js';
import { startSmtpServer } from '../email/test-support.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { ENDPOINT_CACHE_MS } from './sender.js';

const FAST: Partial<Config> = {
  delivery_allow_cidrs: ['127.0.0.0/8'],
  delivery_poll_interval_ms: 50,
  delivery_retry_delays_ms: [50, 50, 50, 50, 50],
};

const NODE = { id: 'n_01jd3k6w9z4q8r2t7v5x1y3b6c', name: 'fra-1', country: 'DE', region: 'DE-HE', city: 'Frankfurt', asn: 64500, provider: 'other' };

function headers(r: Received): Record<string, string> {
  return { 'webhook-id': String(r.headers['webhook-id']), 'webhook-timestamp': String(r.headers['webhook-timestamp']), 'webhook-signature': String(r.headers['webhook-signature']) };
}

async function setup(t: { teardown(fn: () => unknown): void }, config: Partial<Config> = {}) {
  const ctx = await testApp(t, { config: { ...FAST, ...config }, delivery: true });
  const user = await registerUser(ctx.app);
  const endpoint = async (url: string, events: string[] = ['*']) => {
    const r = await call(ctx.app, 'POST', '/v1/webhook-endpoints', { token: user.access_token, body: { url, events } });
    if (r.status !== 201) throw new Error(`create endpoint: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.data as { endpoint: { id: string }; secret: string };
  };
  const deliveries = async (id: string) => (await call(ctx.app, 'GET', `/v1/webhook-endpoints/${id}/deliveries`, { token: user.access_token })).body.data.items;
  const online = (id?: string) => ctx.deps.events.publish({ type: 'node.online', user_id: user.user_id, id, data: { node: NODE, status: 'online', changed_at: new Date().toISOString() } });
  return { ...ctx, user, endpoint, deliveries, online };
}

t.test('a receiver failing N times then succeeding gets the same webhook-id every time, signed per Standard Webhooks', async (t) => {
  const s = await setup(t);
  const rx = await startReceiver(t, (n) => (n <= 3 ? { status: 503, body: `down ${n}` } : { status: 204 }));
  const { endpoint, secret } = await s.endpoint(rx.url);
  t.equal(await s.online(), 1, 'one delivery queued');
  const got = await rx.waitFor(4);
  const ids = new Set(got.map((r) => r.headers['webhook-id']));
  t.equal(ids.size, 1, 'the same webhook-id on every attempt');
  const verifier = new Webhook(secret);
  for (const r of got) {
    const payload = verifier.verify(r.body, headers(r)) as { id: string; type: string; data: { node: { id: string } } };
    t.equal(payload.type, 'node.online');
    t.equal(payload.id, r.headers['webhook-id'], 'body id = webhook-id');
    t.equal(payload.data.node.id, NODE.id);
  }
  t.equal(got[0]!.headers['content-type'], 'application/json');
  const [d] = await eventually('delivery succeeded', async () => {
    const items = await s.deliveries(endpoint.id);
    return items[0]?.status === 'succeeded' ? items : null;
  });
  t.match(d, { status: 'succeeded', attempt_count: 4, event_type: 'node.online', event_id: got[0]!.headers['webhook-id'], next_attempt_at: null });
  t.same(d.attempts.map((a: { status_code: number }) => a.status_code), [503, 503, 503, 204], 'attempt log: status of each attempt');
  t.same(d.attempts.map((a: { outcome: string }) => a.outcome), ['failed', 'failed', 'failed', 'succeeded']);
  t.equal(d.attempts[0].response_body, 'down 1', 'the response body is logged');
  t.ok(d.attempts.every((a: { latency_ms: number }) => a.latency_ms >= 0));
  t.equal((await call(s.app, 'GET', `/v1/webhook-endpoints/${endpoint.id}`, { token: s.user.access_token })).body.data.failing_since, null, 'healthy again after the success');
  await new Promise((r) => setTimeout(r, 300));
  t.equal(rx.received.length, 4, 'nothing is sent after the success');
});

t.test('subscriptions: only subscribed and * endpoints get an event; publishing one event id twice queues it once', async (t) => {
  const s = await setup(t);
  const all = await startReceiver(t);
  const nodes = await startReceiver(t);
  const monitors = await startReceiver(t);
  await s.endpoint(all.url, ['*']);
  await s.endpoint(nodes.url, ['node.online', 'node.offline']);
  await s.endpoint(monitors.url, ['monitor.down']);
  t.equal(await s.online('evt_01jd3k6w9z4q8r2t7v5x1y3b6c'), 2);
  t.equal(await s.online('evt_01jd3k6w9z4q8r2t7v5x1y3b6c'), 0, 'same event id: nothing new');
  await all.waitFor(1);
  await nodes.waitFor(1);
  const bad = await s.deps.events.publish({ type: 'node.online', user_id: s.user.user_id, data: { node: { id: 'nope' } } as never });
  t.equal(bad, 0, 'data failing the catalog schema is dropped');
  await new Promise((r) => setTimeout(r, 300));
  t.equal(monitors.received.length, 0);
  t.equal(all.received.length, 1);
  t.equal(all.received[0]!.headers['webhook-id'], 'evt_01jd3k6w9z4q8r2t7v5x1y3b6c');
});

t.test('secret rotation: both secrets sign for the overlap, then only the new one', async (t) => {
  const s = await setup(t);
  const rx = await startReceiver(t);
  const { endpoint, secret: old } = await s.endpoint(rx.url);
  const rotated = await call(s.app, 'POST', `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, { token: s.user.access_token });
  const fresh = rotated.body.data.secret as string;
  await s.online();
  const [during] = await rx.waitFor(1);
  t.equal(String(during!.headers['webhook-signature']).split(' ').length, 2, 'two signatures during the overlap');
  t.ok(new Webhook(old).verify(during!.body, headers(during!)), 'a receiver still on the old secret verifies');
  t.ok(new Webhook(fresh).verify(during!.body, headers(during!)), 'a receiver on the new secret verifies');
  await s.sql`UPDATE webhook_endpoints SET previous_secret_expires_at = now() - interval '1 second' WHERE id = ${endpoint.id}`;
  await new Promise((r) => setTimeout(r, ENDPOINT_CACHE_MS + 100)); // attempts read the endpoint at most this stale
  await s.online();
  const after = (await rx.waitFor(2))[1]!;
  t.equal(String(after.headers['webhook-signature']).split(' ').length, 1, 'one signature after the overlap');
  t.ok(new Webhook(fresh).verify(after.body, headers(after)));
  t.throws(() => new Webhook(old).verify(after.body, headers(after)), 'the old secret no longer verifies');
});

t.test('exhausted retries fail the delivery; redeliver sends it again with the same id', async (t) => {
  const s = await setup(t, { delivery_retry_delays_ms: [20, 20] });
  const rx = await startReceiver(t, () => ({ status: 500, body: 'x'.repeat(5000) }));
  const { endpoint } = await s.endpoint(rx.url);
  await s.online();
  const [d] = await eventually('delivery failed', async () => {
    const items = await s.deliveries(endpoint.id);
    return items[0]?.status === 'failed' ? items : null;
  });
  t.equal(d.attempt_count, 3, 'first attempt and two retries');
  t.equal(d.last_error, 'HTTP 500');
  t.equal(d.attempts[0].response_body.length, 1024, 'only the first 1 KB of the answer is logged');
  rx.setAnswer(() => ({ status: 200 }));
  const again = await call(s.app, 'POST', `/v1/webhook-endpoints/${endpoint.id}/deliveries/${d.id}/redeliver`, { token: s.user.access_token });
  t.equal(again.status, 202);
  t.match(again.body.data, { id: d.id, status: 'pending' });
  const got = await rx.waitFor(4);
  t.equal(got[3]!.headers['webhook-id'], got[0]!.headers['webhook-id'], 'same webhook-id on redelivery');
  await eventually('succeeded after redelivery', async () => ((await s.deliveries(endpoint.id))[0]?.status === 'succeeded' ? true : null));
  const one = await call(s.app, 'GET', `/v1/webhook-endpoints/${endpoint.id}/deliveries/${d.id}`, { token: s.user.access_token });
  t.equal(one.body.data.attempts.length, 4, 'the attempt log keeps every attempt');
});

t.test('a hanging receiver times out and is retried; the test ping reaches the endpoint', async (t) => {
  const s = await setup(t, { delivery_timeout_ms: 300 });
  const rx = await startReceiver(t, (n) => (n === 1 ? 'hang' : { status: 200 }));
  const { endpoint, secret } = await s.endpoint(rx.url, ['monitor.down']);
  const ping = await call(s.app, 'POST', `/v1/webhook-endpoints/${endpoint.id}/test`, { token: s.user.access_token });
  t.equal(ping.status, 202);
  // The delivery as it stood when the route read it back: a worker woken by the queueing may have
  // claimed it already (its first attempt hangs, so it is not finished yet).
  t.match(ping.body.data, { event_type: 'webhook.ping', status: /^(pending|delivering)$/ });
  const got = await rx.waitFor(2);
  const body = new Webhook(secret).verify(got[1]!.body, headers(got[1]!)) as { type: string; data: { endpoint_id: string } };
  t.match(body, { type: 'webhook.ping', data: { endpoint_id: endpoint.id } });
  const [d] = await eventually('ping delivered', async () => {
    const items = await s.deliveries(endpoint.id);
    return items[0]?.status === 'succeeded' ? items : null;
  });
  t.match(d.attempts[0], { outcome: 'failed', status_code: null });
  t.match(d.attempts[0].error, /timeout/);
});

t.test('an address the policy refuses at send time fails at once and reaches nothing', async (t) => {
  const s = await setup(t, { delivery_allow_cidrs: [] });
  const rx = await startReceiver(t);
  // Stored while its name resolved to a public address (rows made here directly): the policy is applied again at every connection.
  const id = 'we_01jd3k6w9z4q8r2t7v5x1y3b6c';
  await s.sql`INSERT INTO webhook_endpoints (id, user_id, url, events, secret)
    VALUES (${id}, ${s.user.user_id}, ${rx.url.replace('127.0.0.1', 'localhost')}, ${['*']}, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')`;
  await s.online();
  const [d] = await eventually('delivery failed', async () => {
    const items = await s.deliveries(id);
    return items[0]?.status === 'failed' ? items : null;
  });
  t.equal(d.attempt_count, 1, 'not retried');
  t.match(d.attempts[0].error, /loopback/);
  t.equal(rx.received.length, 0, 'the receiver got nothing');
});

t.test('an endpoint failing continuously past the threshold is disabled and its owner e-mailed once', async (t) => {
  const smtp = await startSmtpServer(t);
  const s = await setup(t, { webhook_disable_after_s: 1, smtp_url: smtp.smtp_url, delivery_retry_delays_ms: [] });
  const rx = await startReceiver(t, () => ({ status: 500 }));
  const { endpoint } = await s.endpoint(rx.url);
  await s.online();
  await rx.waitFor(1);
  const failing = await eventually('failing_since set', async () => (await call(s.app, 'GET', `/v1/webhook-endpoints/${endpoint.id}`, { token: s.user.access_token })).body.data.failing_since);
  t.ok(failing);
  await s.sql`UPDATE webhook_endpoints SET failing_since = now() - interval '2 seconds' WHERE id = ${endpoint.id}`;
  await s.online();
  await s.online();
  const ep = await eventually('endpoint disabled', async () => {
    const r = (await call(s.app, 'GET', `/v1/webhook-endpoints/${endpoint.id}`, { token: s.user.access_token })).body.data;
    return r.enabled === false ? r : null;
  });
  t.equal(ep.disabled_reason, 'failing');
  // The first e-mail is the account's verification e-mail (registration).
  const mail = (await smtp.waitFor(2)).find((m) => /disabled/.test(m.parsed.subject ?? ''));
  t.same(mail!.to, [s.user.email]);
  t.match(mail!.parsed.subject, /Webhook endpoint disabled/);
  t.match(mail!.parsed.text, new RegExp(endpoint.id));
  t.match(String(mail!.parsed.html), new RegExp(`<p[^>]*>[^<]*${endpoint.id}`), 'HTML body too');
  await new Promise((r) => setTimeout(r, 500));
  t.equal(smtp.messages.filter((m) => /disabled/.test(m.parsed.subject ?? '')).length, 1, 'one e-mail');
  t.equal(await s.online(), 0, 'a disabled endpoint gets no new events');
  const ping = await call(s.app, 'POST', `/v1/webhook-endpoints/${endpoint.id}/test`, { token: s.user.access_token });
  t.equal(ping.status, 409);
  const enabled = await call(s.app, 'PATCH', `/v1/webhook-endpoints/${endpoint.id}`, { token: s.user.access_token, body: { enabled: true } });
  t.match(enabled.body.data, { enabled: true, disabled_reason: null, failing_since: null });
});
