import t from 'tap';
import { WEBHOOK_LIMITS } from '@vantage/shared-protocol';
import { call, registerUser, testApp } from '../test-support/app.js';

const LOOPBACK = { delivery_allow_cidrs: ['127.0.0.0/8'] };

t.test('create returns the endpoint and its secret once; list, read, patch, delete', async (t) => {
  const { app } = await testApp(t, { config: LOOPBACK });
  const u = await registerUser(app);
  const created = await call(app, 'POST', '/v1/webhook-endpoints', { token: u.access_token, body: { url: 'http://127.0.0.1:9/hook', events: ['node.online', 'node.online', 'monitor.down'], description: 'ops' } });
  t.equal(created.status, 201, JSON.stringify(created.body));
  const { endpoint, secret } = created.body.data;
  t.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/, 'whsec_ + base64 of 32 bytes');
  t.match(endpoint, { url: 'http://127.0.0.1:9/hook', events: ['node.online', 'monitor.down'], description: 'ops', enabled: true, disabled_reason: null, failing_since: null });
  t.match(endpoint.id, /^we_/);

  const read = await call(app, 'GET', `/v1/webhook-endpoints/${endpoint.id}`, { token: u.access_token });
  t.equal(read.status, 200);
  t.notOk(JSON.stringify(read.body).includes(secret), 'the secret is never shown again');
  const list = await call(app, 'GET', '/v1/webhook-endpoints', { token: u.access_token });
  t.match(list.body.data, { total: 1, page: 1, page_size: 20, has_more: false });
  t.equal(list.body.data.items[0].id, endpoint.id);

  const patched = await call(app, 'PATCH', `/v1/webhook-endpoints/${endpoint.id}`, { token: u.access_token, body: { events: ['*'], description: null, enabled: false } });
  t.equal(patched.status, 200);
  t.match(patched.body.data, { events: ['*'], description: null, enabled: false, disabled_reason: 'user' });
  const enabled = await call(app, 'PATCH', `/v1/webhook-endpoints/${endpoint.id}`, { token: u.access_token, body: { enabled: true } });
  t.match(enabled.body.data, { enabled: true, disabled_reason: null });

  t.equal((await call(app, 'DELETE', `/v1/webhook-endpoints/${endpoint.id}`, { token: u.access_token })).status, 200);
  t.equal((await call(app, 'GET', `/v1/webhook-endpoints/${endpoint.id}`, { token: u.access_token })).status, 404);
  t.equal((await call(app, 'DELETE', `/v1/webhook-endpoints/${endpoint.id}`, { token: u.access_token })).status, 404);
});

t.test("another account's endpoint is 404 on every route", async (t) => {
  const { app } = await testApp(t, { config: LOOPBACK });
  const owner = await registerUser(app);
  const other = await registerUser(app);
  const { body } = await call(app, 'POST', '/v1/webhook-endpoints', { token: owner.access_token, body: { url: 'http://127.0.0.1:9/hook', events: ['*'] } });
  const id = body.data.endpoint.id;
  const test = await call(app, 'POST', `/v1/webhook-endpoints/${id}/test`, { token: owner.access_token });
  t.equal(test.status, 202);
  const delivery_id = test.body.data.id;
  const attempts: Array<[string, string, unknown?]> = [
    ['GET', `/v1/webhook-endpoints/${id}`],
    ['PATCH', `/v1/webhook-endpoints/${id}`, { enabled: false }],
    ['DELETE', `/v1/webhook-endpoints/${id}`],
    ['POST', `/v1/webhook-endpoints/${id}/rotate-secret`],
    ['POST', `/v1/webhook-endpoints/${id}/test`],
    ['GET', `/v1/webhook-endpoints/${id}/deliveries`],
    ['GET', `/v1/webhook-endpoints/${id}/deliveries/${delivery_id}`],
    ['POST', `/v1/webhook-endpoints/${id}/deliveries/${delivery_id}/redeliver`],
  ];
  for (const [method, path, reqBody] of attempts) {
    const r = await call(app, method, path, { token: other.access_token, body: reqBody });
    t.equal(r.status, 404, `${method} ${path}`);
    t.equal(r.body.error.code, 'NOT_FOUND');
  }
  const list = await call(app, 'GET', '/v1/webhook-endpoints', { token: other.access_token });
  t.equal(list.body.data.total, 0, 'not listed for the other account');
  t.equal((await call(app, 'GET', `/v1/webhook-endpoints/${id}`, { token: owner.access_token })).status, 200, 'untouched for its owner');
  t.equal((await call(app, 'GET', '/v1/webhook-endpoints/we_nonsense', { token: owner.access_token })).status, 404, 'malformed id is 404');
});

t.test('private and reserved URLs are refused with 422 unless the operator allows the range', async (t) => {
  const { app } = await testApp(t); // no delivery_allow_cidrs
  const u = await registerUser(app);
  const refused = ['http://127.0.0.1:8080/h', 'http://localhost/h', 'http://10.1.2.3/h', 'http://[::1]/h', 'http://169.254.169.254/latest', 'http://2130706433/h', 'http://0x7f.1/h', 'http://192.168.0.1/', 'http://[::ffff:127.0.0.1]/', 'http://198.18.0.1/'];
  for (const url of refused) {
    const r = await call(app, 'POST', '/v1/webhook-endpoints', { token: u.access_token, body: { url, events: ['*'] } });
    t.equal(r.status, 422, url);
    t.equal(r.body.error?.code, 'WEBHOOK_URL_NOT_ALLOWED', url);
  }
  t.equal((await call(app, 'GET', '/v1/webhook-endpoints', { token: u.access_token })).body.data.total, 0, 'nothing was created');
  const bad = await call(app, 'POST', '/v1/webhook-endpoints', { token: u.access_token, body: { url: 'http://name.invalid/h', events: ['*'] } });
  t.equal(bad.body.error?.code, 'WEBHOOK_URL_NOT_ALLOWED', 'a name that does not resolve is refused too');

  const { app: open } = await testApp(t, { config: { delivery_allow_cidrs: ['127.0.0.0/8'] } });
  const v = await registerUser(open);
  t.equal((await call(open, 'POST', '/v1/webhook-endpoints', { token: v.access_token, body: { url: 'http://127.0.0.1:8080/h', events: ['*'] } })).status, 201, 'allowed range');
  t.equal((await call(open, 'POST', '/v1/webhook-endpoints', { token: v.access_token, body: { url: 'http://10.0.0.1/h', events: ['*'] } })).status, 422, 'other private ranges stay refused');
  const created = await call(open, 'POST', '/v1/webhook-endpoints', { token: v.access_token, body: { url: 'http://127.0.0.1:8080/h', events: ['*'] } });
  const patch = await call(open, 'PATCH', `/v1/webhook-endpoints/${created.body.data.endpoint.id}`, { token: v.access_token, body: { url: 'http://10.0.0.1/h' } });
  t.equal(patch.status, 422, 'PATCH checks the URL too');
});

t.test('bad input is a 400 envelope and changes nothing', async (t) => {
  const { app } = await testApp(t, { config: LOOPBACK });
  const u = await registerUser(app);
  const bodies: unknown[] = [
    {}, { url: 'http://127.0.0.1/h' }, { url: 'http://127.0.0.1/h', events: [] }, { url: 'http://127.0.0.1/h', events: ['monitor.sideways'] },
    { url: 'http://127.0.0.1/h', events: ['webhook.ping'] }, { url: 'ftp://127.0.0.1/h', events: ['*'] }, { url: 'http://u:p@127.0.0.1/h', events: ['*'] },
    { url: 'http://127.0.0.1/h', events: ['*'], description: 'x'.repeat(WEBHOOK_LIMITS.description_max_chars + 1) },
    { url: 'http://127.0.0.1/h', events: ['*'], extra: 1 }, { url: `http://127.0.0.1/${'a'.repeat(2100)}`, events: ['*'] },
    { url: 'http://127.0.0.1/h', events: '*' }, { url: 42, events: ['*'] },
  ];
  for (const body of bodies) {
    const r = await call(app, 'POST', '/v1/webhook-endpoints', { token: u.access_token, body });
    t.equal(r.status, 400, JSON.stringify(body).slice(0, 80));
    t.equal(r.body.error.code, 'VALIDATION_FAILED');
  }
  t.equal((await call(app, 'POST', '/v1/webhook-endpoints', { token: u.access_token, body: '{not json' })).body.error.code, 'REQUEST_BODY_INVALID');
  t.equal((await call(app, 'GET', '/v1/webhook-endpoints?page=0', { token: u.access_token })).status, 400);
  t.equal((await call(app, 'GET', '/v1/webhook-endpoints', { token: u.access_token })).body.data.total, 0);
  t.equal((await call(app, 'GET', '/v1/webhook-endpoints')).status, 401, 'anonymous');
});

t.test('rotate-secret returns a new secret once and keeps the old one for 24 h', async (t) => {
  const { app, sql } = await testApp(t, { config: LOOPBACK });
  const u = await registerUser(app);
  const created = await call(app, 'POST', '/v1/webhook-endpoints', { token: u.access_token, body: { url: 'http://127.0.0.1:9/h', events: ['*'] } });
  const id = created.body.data.endpoint.id;
  const rotated = await call(app, 'POST', `/v1/webhook-endpoints/${id}/rotate-secret`, { token: u.access_token });
  t.equal(rotated.status, 200);
  t.not(rotated.body.data.secret, created.body.data.secret);
  const overlap_ms = Date.parse(rotated.body.data.previous_secret_expires_at) - Date.now();
  t.ok(overlap_ms > 23.9 * 3600_000 && overlap_ms <= 24 * 3600_000 + 5000, 'previous secret signs for 24 h');
  t.equal(rotated.body.data.endpoint.previous_secret_expires_at, rotated.body.data.previous_secret_expires_at);
  const [row] = await sql<{ secret: string; previous_secret: string }[]>`SELECT secret, previous_secret FROM webhook_endpoints WHERE id = ${id}`;
  t.same(row, { secret: rotated.body.data.secret, previous_secret: created.body.data.secret });
});

t.test('an account may have at most the endpoint limit', async (t) => {
  const { app } = await testApp(t, { config: LOOPBACK });
  const u = await registerUser(app);
  for (let i = 0; i < WEBHOOK_LIMITS.endpoints_per_account_max; i++) {
    const r = await call(app, 'POST', '/v1/webhook-endpoints', { token: u.access_token, body: { url: `http://127.0.0.1:9/h${i}`, events: ['*'] } });
    if (r.status !== 201) t.fail(`create ${i}: ${r.status}`);
  }
  const over = await call(app, 'POST', '/v1/webhook-endpoints', { token: u.access_token, body: { url: 'http://127.0.0.1:9/x', events: ['*'] } });
  t.equal(over.status, 422);
  t.equal(over.body.error.code, 'WEBHOOK_ENDPOINT_LIMIT_EXCEEDED');
});

t.test('the OpenAPI document lists the routes and every event under webhooks', async (t) => {
  const { app } = await testApp(t);
  const doc = (await call(app, 'GET', '/v1/openapi.json')).body;
  for (const p of ['/v1/webhook-endpoints', '/v1/webhook-endpoints/{id}', '/v1/webhook-endpoints/{id}/rotate-secret', '/v1/webhook-endpoints/{id}/test', '/v1/webhook-endpoints/{id}/deliveries', '/v1/webhook-endpoints/{id}/deliveries/{delivery_id}/redeliver']) {
    t.ok(doc.paths[p], p);
  }
  for (const e of ['monitor.down', 'monitor.up', 'monitor.degraded', 'monitor.paused', 'monitor.resumed', 'alert.firing', 'alert.acknowledged', 'alert.resolved', 'node.online', 'node.offline', 'probe.completed', 'heartbeat.missed', 'ssl.expiring', 'domain.expiring', 'webhook.ping']) {
    t.ok(doc.webhooks?.[e]?.post?.requestBody, `webhooks.${e}`);
  }
});
