import t from 'tap';
import { MONITOR_TYPES } from '@vantage/shared-protocol';
import { addNode } from '../probes/test-support.js';
import { call, registerUser, testApp } from '../test-support/app.js';

// A valid target and config for every type (public literal addresses: nothing is contacted).
const VALID: Record<(typeof MONITOR_TYPES)[number], { target?: string; config?: Record<string, unknown>; interval_s?: number }> = {
  http: { target: 'http://1.1.1.1/' },
  https: { target: 'https://1.1.1.1/' },
  keyword: { target: 'https://1.1.1.1/status', config: { keyword: 'operational' } },
  llm_endpoint: { target: 'https://1.1.1.1/v1/chat/completions' },
  tool_api: { target: 'https://1.1.1.1/tools/search' },
  rag: { target: 'https://1.1.1.1/query' },
  ping: { target: '1.1.1.1' },
  traceroute: { target: '8.8.8.8' },
  tcp: { target: '1.1.1.1:443' },
  dns: { target: 'example.com', config: { server: '1.1.1.1' } },
  ssl_expiry: { target: '1.1.1.1:8443' },
  domain_expiry: { target: 'example.com' },
  rbl: { target: '1.1.1.1' },
  heartbeat: {},
  browser: { target: 'https://1.1.1.1/' },
};

// A config every type refuses, with the field the error names.
const BAD_CONFIG: Record<(typeof MONITOR_TYPES)[number], [Record<string, unknown>, string]> = {
  http: [{ method: 'FETCH' }, 'config.method'],
  https: [{ ignore_tls_errors: 'yes' }, 'config.ignore_tls_errors'],
  keyword: [{}, 'config.keyword'],
  llm_endpoint: [{ timeout_ms: 200_000 }, 'config.timeout_ms'],
  tool_api: [{ expected_fields: ['choices'] }, 'config.expected_fields[0]'],
  rag: [{ assertions: [{ type: 'json_path', op: 'eq', value: 1 }] }, 'config.assertions[0].path'],
  ping: [{ count: 51 }, 'config.count'],
  traceroute: [{ max_hops: 65 }, 'config.max_hops'],
  tcp: [{ port: 70000 }, 'config.port'],
  dns: [{ record_type: 'PTRX' }, 'config.record_type'],
  ssl_expiry: [{ warn_days: 5, critical_days: 10 }, 'config.critical_days'],
  domain_expiry: [{ warn_days: 0 }, 'config.warn_days'],
  rbl: [{ zones: ['not a zone'] }, 'config.zones[0]'],
  heartbeat: [{ cron: '0 3 * *' }, 'config.cron'],
  browser: [{ assertions: [{ kind: 'element_present' }] }, 'config.assertions[0].selector'],
};

// A target every type (but heartbeat) refuses.
const BAD_TARGET: Record<string, string> = {
  http: 'ftp://1.1.1.1/', https: 'http://1.1.1.1/', keyword: 'not a url', llm_endpoint: '1.1.1.1', tool_api: 'https://', rag: 'mailto:a@b.c',
  ping: 'http://1.1.1.1/', traceroute: '1.1.1.1:80', tcp: '1.1.1.1', dns: '1.1.1.1', ssl_expiry: 'http://1.1.1.1/',
  domain_expiry: '1.1.1.1', rbl: 'not valid!', browser: 'javascript:alert(1)',
};

t.test('every type is created with its defaults filled; every type refuses a bad config and a bad target', async (t) => {
  const { app } = await testApp(t, { config: { plan_monitors_max: 100 } });
  const u = await registerUser(app);
  for (const type of MONITOR_TYPES) {
    const ok = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { name: `ok ${type}`, type, ...VALID[type] } });
    t.equal(ok.status, 201, `${type}: ${JSON.stringify(ok.body)}`);
    t.ok(Object.keys(ok.body.data.config).length > 0, `${type}: config defaults filled`);

    const [config, path] = BAD_CONFIG[type];
    const bad = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { name: `bad ${type}`, type, ...VALID[type], config } });
    t.equal(bad.status, 400, `${type} bad config`);
    t.equal(bad.body.error.code, 'VALIDATION_FAILED');
    t.ok(bad.body.error.details.fields.some((f: { path: string }) => f.path === path), `${type}: names ${path}: ${JSON.stringify(bad.body.error.details)}`);

    const unknown = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { name: `typo ${type}`, type, ...VALID[type], config: { ...VALID[type].config, tiemout_ms: 5 } } });
    t.equal(unknown.status, 400, `${type}: an unknown config field is refused`);

    if (type === 'heartbeat') continue;
    const badTarget = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { name: `target ${type}`, type, ...VALID[type], target: BAD_TARGET[type] } });
    t.equal(badTarget.status, 422, `${type} target ${BAD_TARGET[type]}: ${JSON.stringify(badTarget.body)}`);
    t.equal(badTarget.body.error.code, 'MONITOR_INVALID_TARGET');
    const missing = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { name: `no target ${type}`, type, config: VALID[type].config } });
    t.equal(missing.body.error.code, 'MONITOR_INVALID_TARGET', `${type}: a target is required`);
  }
  const list = await call(app, 'GET', '/v1/monitors?limit=100', { token: u.access_token });
  t.equal(list.body.data.total, MONITOR_TYPES.length, 'only the valid ones were created');
});

t.test('expected_fields: a JSONPath the nodes refuse to run (match(), search()) is refused at save', async (t) => {
  const { app } = await testApp(t);
  const u = await registerUser(app);
  const config = { expected_fields: ['$.choices[0]', '$.items[?search(@.name, "(a+)+$")]'] };
  const r = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { name: 'llm', type: 'llm_endpoint', target: 'https://1.1.1.1/v1/chat/completions', config } });
  t.equal(r.status, 400);
  t.equal(r.body.error.code, 'VALIDATION_FAILED');
  t.match(r.body.error.details.fields, [{ path: 'config.expected_fields[1]', message: /search\(\) is not supported in a JSONPath/ }]);
});

t.test('ports: tcp and ssl_expiry take the port from the target or the config, and refuse a disagreement', async (t) => {
  const { app } = await testApp(t);
  const u = await registerUser(app);
  const tcp = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { name: 'a', type: 'tcp', target: '1.1.1.1', config: { port: 22 } } });
  t.equal(tcp.status, 201);
  const clash = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { name: 'b', type: 'tcp', target: '1.1.1.1:80', config: { port: 22 } } });
  t.equal(clash.body.error.code, 'MONITOR_INVALID_TARGET');
  t.match(clash.body.error.details.fields, [{ path: 'config.port' }]);
  const ssl = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { name: 'c', type: 'ssl_expiry', target: 'https://1.1.1.1:8443/', config: { port: 443 } } });
  t.equal(ssl.body.error.code, 'MONITOR_INVALID_TARGET');
});

t.test('browser viewport is clamped, not refused', async (t) => {
  const { app } = await testApp(t);
  const u = await registerUser(app);
  const r = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { name: 'b', type: 'browser', target: 'https://1.1.1.1/', config: { viewport: { width: 100, height: 99999 } } } });
  t.equal(r.status, 201);
  t.same(r.body.data.config.viewport, { width: 320, height: 2160 });
  t.equal(r.body.data.config.load_budget_ms, 8000);
});

t.test('intervals: 60, 300 or 1800; browser at least 300; heartbeat derived', async (t) => {
  const { app } = await testApp(t);
  const u = await registerUser(app);
  for (const interval_s of [0, 30, 120, 3600]) {
    const r = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { name: `i${interval_s}`, type: 'http', target: 'http://1.1.1.1/', interval_s } });
    t.equal(r.status, 400, `interval_s ${interval_s}`);
    t.equal(r.body.error.code, 'MONITOR_INVALID_INTERVAL');
  }
  const text = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { name: 'x', type: 'http', target: 'http://1.1.1.1/', interval_s: '300' } });
  t.equal(text.body.error.code, 'VALIDATION_FAILED', 'not a number');
  const browser = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { name: 'br', type: 'browser', target: 'https://1.1.1.1/', interval_s: 60 } });
  t.equal(browser.body.error.code, 'MONITOR_INVALID_INTERVAL');
  const browserDefault = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { name: 'br', type: 'browser', target: 'https://1.1.1.1/' } });
  t.equal(browserDefault.body.data.interval_s, 300);
  const fast = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { name: 'fast', type: 'ping', target: '1.1.1.1', interval_s: 60 } });
  t.equal(fast.body.data.interval_s, 60);
  const patch = await call(app, 'PATCH', `/v1/monitors/${fast.body.data.id}`, { token: u.access_token, body: { interval_s: 45 } });
  t.equal(patch.body.error.code, 'MONITOR_INVALID_INTERVAL');
  t.equal((await call(app, 'GET', `/v1/monitors/${fast.body.data.id}`, { token: u.access_token })).body.data.interval_s, 60, 'unchanged');
  const hb = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { name: 'hb', type: 'heartbeat', interval_s: 120, config: { period_s: 7200 } } });
  t.equal(hb.body.data.interval_s, 7200, 'heartbeat ignores interval_s');
});

t.test('private targets need a node of the owner that allows them (address policy of probe targets)', async (t) => {
  const { app, sql } = await testApp(t, { config: { probe_allow_cidrs: ['198.18.0.0/15'] } });
  const u = await registerUser(app);
  const other = await registerUser(app);
  const refused = [
    { type: 'http', target: 'http://10.0.0.5/' }, { type: 'ping', target: '127.0.0.1' }, { type: 'https', target: 'https://localhost/' },
    { type: 'tcp', target: '[::1]:22' }, { type: 'dns', target: 'example.com', config: { server: '192.168.1.1' } },
    { type: 'ssl_expiry', target: '169.254.169.254' }, { type: 'http', target: 'http://2130706433/' }, { type: 'http', target: 'http://name.invalid/' },
  ];
  for (const [i, body] of refused.entries()) {
    const r = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { name: `p${i}`, ...body } });
    t.equal(r.status, 422, `${body.type} ${body.target}`);
    t.equal(r.body.error.code, 'MONITOR_INVALID_TARGET');
  }
  const allowList = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { name: 'testnet', type: 'http', target: 'http://198.18.1.10/' } });
  t.match(allowList.body.data, { private_target: false }, 'the deployment allow-list counts as public');
  const rbl = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { name: 'rbl', type: 'rbl', target: '10.0.0.1' } });
  t.equal(rbl.status, 201, 'an rbl target is looked up, not contacted');

  await addNode(sql, { owner_user_id: other.user_id, allow_private: true });
  await addNode(sql, { owner_user_id: u.user_id, allow_private: false });
  t.equal((await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { name: 'p', ...refused[0] } })).status, 422, "another user's node or a node without allow_private does not count");

  await addNode(sql, { owner_user_id: u.user_id, allow_private: true });
  const ok = await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { name: 'p', ...refused[0] } });
  t.equal(ok.status, 201);
  t.equal(ok.body.data.private_target, true);
  const pub = await call(app, 'PATCH', `/v1/monitors/${ok.body.data.id}`, { token: u.access_token, body: { target: 'http://1.1.1.1/' } });
  t.equal(pub.body.data.private_target, false, 'recomputed when the target changes');

  const web = await call(app, 'POST', '/v1/monitors', { token: other.access_token, body: { name: 'w', type: 'http', target: 'http://1.1.1.1/' } });
  await sql`UPDATE nodes SET allow_private = false WHERE owner_user_id = ${other.user_id}`;
  const toPrivate = await call(app, 'PATCH', `/v1/monitors/${web.body.data.id}`, { token: other.access_token, body: { target: 'http://10.1.1.1/' } });
  t.equal(toPrivate.body.error.code, 'MONITOR_INVALID_TARGET');
  t.equal((await call(app, 'GET', `/v1/monitors/${web.body.data.id}`, { token: other.access_token })).body.data.target, 'http://1.1.1.1/', 'a refused PATCH changes nothing');
});
