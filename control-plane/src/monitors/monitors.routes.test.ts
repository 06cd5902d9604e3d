import t from 'tap';
import { call, createApiKey, registerUser, testApp } from '../test-support/app.js';
import { hashHeartbeatToken } from './heartbeat.js';
import { findMonitorByHeartbeatHash } from './monitors.db.js';

const HTTPS = { name: 'Checkout', type: 'https', target: 'https://1.1.1.1/health' };

t.test('create fills defaults and returns the full record; read, list, patch, delete', async (t) => {
  const { app } = await testApp(t);
  const u = await registerUser(app);
  const created = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { ...HTTPS, tags: ['Prod', 'shop', 'prod ', 'API'] } });
  t.equal(created.status, 201, JSON.stringify(created.body));
  const m = created.body.data;
  t.match(m.id, /^m_[0-9a-z]{26}$/);
  t.match(m, {
    user_id: u.user_id, name: 'Checkout', type: 'https', target: 'https://1.1.1.1/health', interval_s: 300, node_count: 3,
    group_id: null, tags: ['api', 'prod', 'shop'], status: 'active', state: 'pending', private_target: false, node_ids: [],
    heartbeat: null, last_check_at: null, uptime_24h: null,
  });
  t.same(m.config, { method: 'GET', timeout_ms: 10000, headers: {}, follow_redirects: true, ip_version: 'auto', expected_status: '200-399', assertions: [], ignore_tls_errors: false }, 'every default filled');
  t.ok(m.created_at && m.updated_at && m.state_changed_at);

  const read = await call(app, 'GET', `/v1/monitors/${m.id}`, { token: u.access_token });
  t.same(read.body.data, m, 'a read returns the same record');
  const list = await call(app, 'GET', '/v1/monitors', { token: u.access_token });
  t.same(list.body.data, { items: [m], total: 1, page: 1, limit: 20 });

  const patched = await call(app, 'PATCH', `/v1/monitors/${m.id}`, { token: u.access_token, body: { name: 'Checkout EU', interval_s: 60, tags: ['EU'], node_count: 5, config: { expected_status: 200 } } });
  t.equal(patched.status, 200, JSON.stringify(patched.body));
  t.match(patched.body.data, { id: m.id, name: 'Checkout EU', interval_s: 60, tags: ['eu'], node_count: 5, target: m.target, type: 'https' });
  t.equal(patched.body.data.config.expected_status, '200', 'config replaced and re-validated');
  t.equal(patched.body.data.config.method, 'GET');
  const target = await call(app, 'PATCH', `/v1/monitors/${m.id}`, { token: u.access_token, body: { target: 'https://8.8.8.8/' } });
  t.match(target.body.data, { target: 'https://8.8.8.8/', name: 'Checkout EU', interval_s: 60 }, 'omitted fields unchanged');
  const bad = await call(app, 'PATCH', `/v1/monitors/${m.id}`, { token: u.access_token, body: { type: 'ping' } });
  t.equal(bad.status, 400, 'the type cannot change');
  t.equal(bad.body.error.code, 'VALIDATION_FAILED');

  t.equal((await call(app, 'DELETE', `/v1/monitors/${m.id}`, { token: u.access_token })).status, 200);
  const gone = await call(app, 'GET', `/v1/monitors/${m.id}`, { token: u.access_token });
  t.equal(gone.status, 404);
  t.equal(gone.body.error.code, 'MONITOR_NOT_FOUND');
  t.equal((await call(app, 'DELETE', `/v1/monitors/${m.id}`, { token: u.access_token })).status, 404, 'delete is permanent');
});

t.test("another account's monitor is 404 on every route; bad ids are 404", async (t) => {
  const { app } = await testApp(t);
  const owner = await registerUser(app);
  const other = await registerUser(app);
  const { body } = await call(app, 'POST', '/v1/monitors', { token: owner.access_token, body: { name: 'hb', type: 'heartbeat' } });
  const id = body.data.id;
  const routes: Array<[string, string, unknown?]> = [
    ['GET', `/v1/monitors/${id}`], ['PATCH', `/v1/monitors/${id}`, { name: 'mine now' }], ['DELETE', `/v1/monitors/${id}`],
    ['POST', `/v1/monitors/${id}/pause`], ['POST', `/v1/monitors/${id}/resume`], ['POST', `/v1/monitors/${id}/heartbeat/rotate`],
  ];
  for (const [method, path, reqBody] of routes) {
    const r = await call(app, method, path, { token: other.access_token, body: reqBody });
    t.equal(r.status, 404, `${method} ${path}`);
    t.equal(r.body.error.code, 'MONITOR_NOT_FOUND');
    const malformed = await call(app, method, path.replace(id, 'm_nonsense'), { token: owner.access_token, body: reqBody });
    t.equal(malformed.status, 404, `${method} with a malformed id`);
  }
  t.equal((await call(app, 'GET', '/v1/monitors', { token: other.access_token })).body.data.total, 0, 'not listed for the other account');
  const mine = await call(app, 'GET', `/v1/monitors/${id}`, { token: owner.access_token });
  t.match(mine.body.data, { name: 'hb', status: 'active' }, 'untouched for its owner');
});

t.test('credentials: anonymous 401, read-only key reads but cannot write', async (t) => {
  const { app } = await testApp(t);
  const u = await registerUser(app);
  t.equal((await call(app, 'GET', '/v1/monitors')).status, 401);
  t.equal((await call(app, 'POST', '/v1/monitors', { body: HTTPS })).status, 401);
  const { key } = await createApiKey(app, u.access_token, ['read']);
  t.equal((await call(app, 'GET', '/v1/monitors', { token: key })).status, 200);
  const refused = await call(app, 'POST', '/v1/monitors', { token: key, body: HTTPS });
  t.equal(refused.status, 403);
  t.equal(refused.body.error.code, 'FORBIDDEN');
  const { key: rw } = await createApiKey(app, u.access_token);
  t.equal((await call(app, 'POST', '/v1/monitors', { token: rw, body: HTTPS })).status, 201, 'a read-write key creates');
});

t.test('names are unique per account (create and patch); another account may reuse one', async (t) => {
  const { app } = await testApp(t);
  const u = await registerUser(app);
  const v = await registerUser(app);
  t.equal((await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: HTTPS })).status, 201);
  const dup = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { ...HTTPS, name: '  Checkout ' } });
  t.equal(dup.status, 409);
  t.equal(dup.body.error.code, 'MONITOR_NAME_TAKEN');
  const second = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { ...HTTPS, name: 'Other' } });
  const clash = await call(app, 'PATCH', `/v1/monitors/${second.body.data.id}`, { token: u.access_token, body: { name: 'Checkout' } });
  t.equal(clash.status, 409);
  t.equal(clash.body.error.code, 'MONITOR_NAME_TAKEN');
  t.equal((await call(app, 'POST', '/v1/monitors', { token: v.access_token, body: HTTPS })).status, 201);
  const long = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { ...HTTPS, name: 'x'.repeat(201) } });
  t.equal(long.body.error.code, 'VALIDATION_FAILED', 'name over 200 characters');
});

t.test('the plan quota and node_count', async (t) => {
  const { app } = await testApp(t, { config: { plan: 'free', plan_monitors_max: 2, plan_node_count_default: 2, plan_node_count_max: 4 } });
  const u = await registerUser(app);
  const a = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { ...HTTPS, name: 'a', node_count: 0 } });
  t.equal(a.body.data.node_count, 2, 'node_count 0 = the plan default');
  const over = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { ...HTTPS, name: 'b', node_count: 5 } });
  t.equal(over.status, 422);
  t.equal(over.body.error.code, 'MONITOR_LIMIT_EXCEEDED');
  t.match(over.body.error.details, { limit: 'node_count', max: 4 });
  const hb = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { name: 'b', type: 'heartbeat', node_count: 3 } });
  t.equal(hb.body.data.node_count, 0, 'heartbeat runs on the control plane: no nodes');
  const full = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { ...HTTPS, name: 'c' } });
  t.equal(full.status, 422);
  t.equal(full.body.error.code, 'MONITOR_LIMIT_EXCEEDED');
  t.match(full.body.error.details, { limit: 'monitors', max: 2, plan: 'free' });
  t.equal((await call(app, 'DELETE', `/v1/monitors/${a.body.data.id}`, { token: u.access_token })).status, 200);
  t.equal((await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { ...HTTPS, name: 'c' } })).status, 201, 'room again after a delete');
});

t.test('pause and resume follow the monitor states', async (t) => {
  const { app } = await testApp(t);
  const u = await registerUser(app);
  const { body } = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: HTTPS });
  const id = body.data.id;
  const resumeActive = await call(app, 'POST', `/v1/monitors/${id}/resume`, { token: u.access_token });
  t.equal(resumeActive.status, 409, 'resuming an active monitor');
  t.equal(resumeActive.body.error.code, 'CONFLICT');
  t.match(resumeActive.body.error.message, /already active/);
  const paused = await call(app, 'POST', `/v1/monitors/${id}/pause`, { token: u.access_token });
  t.equal(paused.status, 200);
  t.same(paused.body.data, { id, status: 'paused', state: 'paused' });
  const again = await call(app, 'POST', `/v1/monitors/${id}/pause`, { token: u.access_token });
  t.equal(again.status, 409);
  t.equal(again.body.error.code, 'MONITOR_PAUSED');
  t.match((await call(app, 'GET', `/v1/monitors/${id}`, { token: u.access_token })).body.data, { status: 'paused', state: 'paused' });
  const edited = await call(app, 'PATCH', `/v1/monitors/${id}`, { token: u.access_token, body: { name: 'still paused' } });
  t.match(edited.body.data, { status: 'paused', name: 'still paused' }, 'a paused monitor can be edited and stays paused');
  const resumed = await call(app, 'POST', `/v1/monitors/${id}/resume`, { token: u.access_token });
  t.same(resumed.body.data, { id, status: 'active', state: 'pending' });
});

t.test('pause and resume queue monitor.paused / monitor.resumed for subscribed endpoints', async (t) => {
  const { app, sql } = await testApp(t, { config: { delivery_allow_cidrs: ['127.0.0.0/8'] } });
  const u = await registerUser(app);
  const ep = await call(app, 'POST', '/v1/webhook-endpoints', { token: u.access_token, body: { url: 'http://127.0.0.1:9/hook', events: ['monitor.paused', 'monitor.resumed'] } });
  t.equal(ep.status, 201, JSON.stringify(ep.body));
  const { body } = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: HTTPS });
  await call(app, 'POST', `/v1/monitors/${body.data.id}/pause`, { token: u.access_token });
  await call(app, 'POST', `/v1/monitors/${body.data.id}/resume`, { token: u.access_token });
  const deliveries = await call(app, 'GET', `/v1/webhook-endpoints/${ep.body.data.endpoint.id}/deliveries`, { token: u.access_token });
  t.same(deliveries.body.data.items.map((d: { event_type: string }) => d.event_type).sort(), ['monitor.paused', 'monitor.resumed']);
  t.ok(sql, 'deliveries are rows of the delivery queue');
});

t.test('heartbeat: token and URL once on create; rotate invalidates the old token at once', async (t) => {
  const { app, sql } = await testApp(t, { config: { public_url: 'https://vantage.example.com/' } });
  const u = await registerUser(app);
  const created = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { name: 'backup', type: 'heartbeat', target: 'ignored', interval_s: 60, config: { period_s: 3600, grace_s: 600 } } });
  t.equal(created.status, 201, JSON.stringify(created.body));
  const m = created.body.data;
  t.match(m, { target: null, interval_s: 3600, node_count: 0, config: { period_s: 3600, grace_s: 600 } }, 'target ignored, interval from the schedule');
  const token: string = m.heartbeat.token;
  t.match(token, /^hb_[0-9a-z]{32}$/);
  t.equal(m.heartbeat.url, `https://vantage.example.com/v1/heartbeat/${token}`);
  t.equal(m.heartbeat.token_preview, `hb_${token.slice(3, 7)}…${token.slice(-4)}`);
  const read = await call(app, 'GET', `/v1/monitors/${m.id}`, { token: u.access_token });
  t.same(read.body.data.heartbeat, { token_preview: m.heartbeat.token_preview }, 'never shown again');
  const [stored] = await sql`SELECT heartbeat_token_hash FROM monitors WHERE id = ${m.id}`;
  t.equal(stored!.heartbeat_token_hash, hashHeartbeatToken(token), 'only the hash is stored');
  t.notOk((await sql`SELECT row_to_json(m)::text AS j FROM monitors m`).some((r) => r.j.includes(token)), 'the token is in no column');

  const rotated = await call(app, 'POST', `/v1/monitors/${m.id}/heartbeat/rotate`, { token: u.access_token });
  t.equal(rotated.status, 200);
  t.not(rotated.body.data.token, token);
  t.equal(rotated.body.data.url, `https://vantage.example.com/v1/heartbeat/${rotated.body.data.token}`);
  t.equal(await findMonitorByHeartbeatHash(sql, hashHeartbeatToken(token)), null, 'the old token matches nothing');
  t.equal((await findMonitorByHeartbeatHash(sql, hashHeartbeatToken(rotated.body.data.token)))?.id, m.id);

  const cron = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { name: 'nightly', type: 'heartbeat', config: { cron: '0 3 * * *', timezone: 'Europe/Paris' } } });
  t.match(cron.body.data, { interval_s: 86400, config: { cron: '0 3 * * *', timezone: 'Europe/Paris', grace_s: 60 } });

  const web = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: HTTPS });
  const notHb = await call(app, 'POST', `/v1/monitors/${web.body.data.id}/heartbeat/rotate`, { token: u.access_token });
  t.equal(notHb.status, 409);
  t.equal(notHb.body.error.code, 'CONFLICT');
});

t.test('without a public URL the check-in URL uses the listening address, not the request\'s host (config/public-url.test.ts)', async (t) => {
  const { app, url } = await testApp(t);
  const u = await registerUser(app);
  const created = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { name: 'hb', type: 'heartbeat' } });
  t.equal(created.body.data.heartbeat.url, `${url}/v1/heartbeat/${created.body.data.heartbeat.token}`);
});

t.test('monitor errors are localised by Accept-Language; the code stays the same', async (t) => {
  const { app } = await testApp(t);
  const u = await registerUser(app);
  const r = await call(app, 'GET', '/v1/monitors/m_01jd3k6w9z4q8r2t7v5x1y3b6c', { token: u.access_token, headers: { 'accept-language': 'zh-CN' } });
  t.equal(r.body.error.code, 'MONITOR_NOT_FOUND');
  t.equal(r.body.error.message, '监控不存在');
});

t.test('concurrent creates never overshoot the quota', async (t) => {
  const { app } = await testApp(t, { config: { plan_monitors_max: 3 } });
  const u = await registerUser(app);
  const results = await Promise.all(Array.from({ length: 12 }, (_, i) =>
    call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { ...HTTPS, name: `m${i}` } })));
  t.equal(results.filter((r) => r.status === 201).length, 3);
  t.ok(results.filter((r) => r.status !== 201).every((r) => r.body.error.code === 'MONITOR_LIMIT_EXCEEDED'));
  t.equal((await call(app, 'GET', '/v1/monitors', { token: u.access_token })).body.data.total, 3);
});
