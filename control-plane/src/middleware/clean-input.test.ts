import t from 'tap';
import { connect as netConnect } from 'node:net';
import { call, registerUser, testApp } from '../test-support/app.js';
import type { Sql } from '../db/sql.js';

/** A digest of every row of every table but the rate-limit counters: "the database is unchanged". */
/**
 * Tables that change on their own while the app runs, whatever the requests: request counters,
 * the instance's hub lease (renewed every few seconds) and claimed background jobs' schedules.
 */
const HOUSEKEEPING = ['rate_limit_counters', 'hub_instances', 'check_jobs', 'artifact_jobs'];

async function snapshot(sql: Sql): Promise<string> {
  const tables = await sql<{ name: string }[]>`
    SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> ALL(${HOUSEKEEPING}) ORDER BY 1`;
  const parts: string[] = [];
  for (const { name } of tables) {
    const [row] = await sql<{ n: number; digest: string | null }[]>`
      SELECT count(*)::int AS n, md5(string_agg(t::text, '|' ORDER BY t::text)) AS digest FROM ${sql(name)} t`;
    parts.push(`${name}:${row!.n}:${row!.digest}`);
  }
  return parts.join('\n');
}

const STACK = /\bat [\w.<>]+ \(|\.[jt]s:\d+:\d+|"stack"/;

/** Raw HTTP/1.1 exchange over a socket: what Node's parser and the app answer to bytes fetch() would not send. */
function rawRequest(url: string, bytes: Buffer): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const s = netConnect(Number(port), hostname, () => s.end(bytes));
    s.on('data', (d) => chunks.push(d));
    s.on('error', reject);
    s.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    s.setTimeout(20_000, () => s.destroy(new Error('raw request timed out')));
  });
}

t.test('NUL, lone surrogates and malformed percent-encoding: 400 on every route family, nothing stored', async (t) => {
  const { app, sql, url } = await testApp(t);
  const u = await registerUser(app);
  const auth = { token: u.access_token };

  // [route family, method, path, body, where, field]
  const cases: Array<[string, string, string, unknown, string, string]> = [
    ['auth', 'POST', '/v1/auth/login', { email: 'a\u0000@example.test', password: 'password1' }, 'json', 'email'],
    ['auth', 'POST', '/v1/auth/login', { email: u.email, password: 'pass\ud800word' }, 'json', 'password'],
    ['auth', 'POST', '/v1/auth/login', `{"email":"${u.email}","password":"x\\udc00y"}`, 'json', 'password'],
    ['auth', 'POST', '/v1/auth/login', { email: u.email, password: u.password, otp: '1\u00002' }, 'json', 'otp'],
    ['auth', 'POST', '/v1/auth/register', { email: 'new\u0000@example.test', password: 'long-enough-1' }, 'json', 'email'],
    ['auth', 'POST', '/v1/auth/register', { email: 'new2@example.test', password: 'long-enough-\udbff' }, 'json', 'password'],
    ['auth', 'POST', '/v1/auth/refresh', { refresh_token: 'rt_\u0000' }, 'json', 'refresh_token'],
    ['account', 'PATCH', '/v1/account/profile', { display_name: 'Ann\u0000' }, 'json', 'display_name'],
    ['account', 'PATCH', '/v1/account/profile', { bio: 'half an emoji \ud83d' }, 'json', 'bio'],
    ['account', 'PATCH', '/v1/account/profile', { timezone: 'UTC\u0000' }, 'json', 'timezone'],
    ['account', 'POST', '/v1/account/2fa/enable', { code: '12345\u0000' }, 'json', 'code'],
    ['keys', 'POST', '/v1/account/api-keys', { name: 'ci\u0000' }, 'json', 'name'],
    ['keys', 'POST', '/v1/account/api-keys', { name: 'ci', scopes: ['read\u0000'] }, 'json', 'scopes[0]'],
    ['keys', 'POST', '/v1/account/api-keys', { name: 'ci', 'x\u0000': 1 }, 'json', 'x\\u0000'],
    ['keys', 'GET', '/v1/account/api-keys?limit=1%00', undefined, 'query', 'limit'],
    ['keys', 'DELETE', '/v1/account/api-keys/key_%00', undefined, 'param', 'id'],
    ['tokens', 'POST', '/v1/account/tokens', { name: '\udfff' }, 'json', 'name'],
    ['tokens', 'DELETE', '/v1/account/tokens/pat_%ED%A0%80', undefined, 'param', 'id'],
    ['tokens', 'GET', '/v1/account/tokens?offset=%E0%80', undefined, 'query', 'offset'],
    ['nodes', 'GET', '/v1/nodes?tag=a%00', undefined, 'query', 'tag'],
    ['nodes', 'GET', '/v1/nodes?provider=%ED%B0%80', undefined, 'query', 'provider'],
    ['nodes', 'GET', '/v1/nodes?region=x%00&country=CN', undefined, 'query', 'region'],
    ['nodes', 'GET', '/v1/nodes?ta%00g=x', undefined, 'query', 'query'],
    ['nodes', 'GET', '/v1/nodes/n_%00', undefined, 'param', 'id'],
    ['nodes', 'GET', '/v1/nodes/%C0%80', undefined, 'param', 'id'],
    ['nodes', 'PATCH', '/v1/nodes/n_01jd3k6w9z4q8r2t7v5x1y3b6c', { name: 'edge\u0000' }, 'json', 'name'],
    ['nodes', 'PATCH', '/v1/nodes/n_01jd3k6w9z4q8r2t7v5x1y3b6c', { tags: ['ok', 'a\ud800'] }, 'json', 'tags[1]'],
    ['nodes', 'POST', '/v1/nodes/n_%00/disable', undefined, 'param', 'id'],
    ['enrollment-tokens', 'POST', '/v1/enrollment-tokens', { label: 'rack\u0000' }, 'json', 'label'],
    ['enrollment-tokens', 'POST', '/v1/enrollment-tokens', { sponsor_user_id: 'u_\ud800' }, 'json', 'sponsor_user_id'],
    ['enrollment-tokens', 'DELETE', '/v1/enrollment-tokens/et_%00', undefined, 'param', 'id'],
    ['probes', 'POST', '/v1/probe/http', { target: 'http://198.18.0.1/\u0000' }, 'json', 'target'],
    ['probes', 'POST', '/v1/probe/http', { target: 'http://198.18.0.1/', params: { headers: { 'x-a': 'v\u0000' } } }, 'json', 'params.headers.x-a'],
    ['probes', 'POST', '/v1/probe/http', { target: 'http://198.18.0.1/', params: { method: 'POST', body: '\ud800' } }, 'json', 'params.body'],
    ['probes', 'POST', '/v1/probe/ping', { target: '198.18.0.1', node_ids: ['n_\u0000'] }, 'json', 'node_ids[0]'],
    ['probes', 'GET', '/v1/probe/tasks/pt_%00', undefined, 'param', 'task_id'],
    ['probes', 'GET', '/v1/probe/tasks/%ED%A0%80/stream', undefined, 'param', 'task_id'],
    ['geo', 'GET', '/v1/geo/cities?country=C%00', undefined, 'query', 'country'],
    ['geo', 'GET', '/v1/geo/cities?province=%FF', undefined, 'query', 'province'],
  ];
  for (const [family, method, path, body, where, field] of cases) {
    const name = `${family}: ${method} ${path} ${body === undefined ? '' : JSON.stringify(body)}`;
    const before = await snapshot(sql);
    const r = await call(app, method, path, { ...auth, body });
    t.equal(r.status, 400, name);
    t.equal(r.body?.error?.code, 'VALIDATION_FAILED', name);
    t.equal(r.body?.error?.details?.in, where, `${name}: details.in`);
    t.equal(r.body?.error?.details?.fields?.[0]?.path, field, `${name}: names the field`);
    t.notMatch(JSON.stringify(r.body), STACK, `${name}: no stack trace`);
    t.equal(await snapshot(sql), before, `${name}: database unchanged`);
  }

  t.test('anonymous callers get the same 400 (before any credential or rate-limit work)', async (t) => {
    const r = await call(app, 'POST', '/v1/auth/login', { body: { email: 'x@example.test\u0000', password: 'password1' } });
    t.equal(r.status, 400);
    t.equal(r.body.error.code, 'VALIDATION_FAILED');
  });

  t.test('clean input still works: astral characters, percent-encoded UTF-8, plus as space', async (t) => {
    const p = await call(app, 'PATCH', '/v1/account/profile', { ...auth, body: { display_name: 'Zoë 😀 中文' } });
    t.equal(p.status, 200);
    t.equal(p.body.data.display_name, 'Zoë 😀 中文');
    const q = await call(app, 'GET', '/v1/nodes?provider=A+B%20%E4%B8%AD', auth);
    t.equal(q.status, 200);
    const k = await call(app, 'POST', '/v1/account/api-keys', { ...auth, body: { name: 'tab\there' }, headers: { 'content-type': 'application/json; charset=utf-8' } });
    t.equal(k.status, 400, 'control characters stay refused by the key schema');
  });

  t.test('a body that is not UTF-8 is REQUEST_BODY_INVALID; malformed JSON too', async (t) => {
    const before = await snapshot(sql);
    const bytes = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]);
    const res = await app.request('/v1/account/api-keys', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${u.access_token}` }, body: bytes });
    const body = await res.json() as { error: { code: string } };
    t.equal(res.status, 400);
    t.equal(body.error.code, 'REQUEST_BODY_INVALID');
    const bad = await call(app, 'POST', '/v1/account/api-keys', { ...auth, body: '{"name": "x"' });
    t.equal(bad.status, 400);
    t.equal(bad.body.error.code, 'REQUEST_BODY_INVALID');
    const upper = await call(app, 'POST', '/v1/account/api-keys', { ...auth, body: '{"name":"\\uDBFF"}' });
    t.equal(upper.body.error.code, 'VALIDATION_FAILED', 'upper-case escape of a lone surrogate');
    t.equal(upper.body.error.details.fields[0].path, 'name');
    const rawNul = await call(app, 'POST', '/v1/account/api-keys', { ...auth, body: '{"name":"a\u0000"}' });
    t.equal(rawNul.body.error.code, 'REQUEST_BODY_INVALID', 'an unescaped NUL is not JSON');
    const deep = await call(app, 'POST', '/v1/account/api-keys', { ...auth, body: `${'['.repeat(10_000)}"\\u0000"${']'.repeat(10_000)}` });
    t.equal(deep.status, 400, 'deeply nested JSON is walked without recursion');
    t.equal(await snapshot(sql), before);
  });

  t.test('JSON nested past LIMITS.json_depth_max: 400 REQUEST_BODY_INVALID naming where, on every route family, nothing stored', async (t) => {
    const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const zeros = (n: number) => '[0]'.repeat(n);
    // [method, path, body text, field]: 15,000 levels in 30 KB (under the 32 KB body bound).
    const cases: Array<[string, string, string, string]> = [
      ['POST', '/v1/monitors', `{"name":"deep","type":"llm_endpoint","target":"https://198.18.0.1/","config":{"payload_template":{"a":${nested(15_000)}}}}`, `config.payload_template.a${zeros(61)}`],
      ['POST', '/v1/monitors/import', `{"monitors":[{"name":"d","type":"http","config":{"assertions":[{"value":${nested(15_000)}}]}}]}`, `monitors[0].config.assertions[0].value${zeros(58)}`],
      ['POST', '/v1/auth/login', `{"email":${nested(15_000)}}`, `email${zeros(63)}`],
      ['POST', '/v1/probe/http', `{"target":"http://198.18.0.1/","params":{"headers":${nested(15_000)}}}`, `params.headers${zeros(62)}`],
      ['POST', '/v1/alert-channels', `{"name":"c","type":"webhook","config":{"x":${nested(15_000)}}}`, `config.x${zeros(62)}`],
      ['PATCH', '/v1/account/profile', nested(15_000), zeros(64)],
    ];
    for (const [method, path, body, field] of cases) {
      const before = await snapshot(sql);
      const r = await call(app, method, path, { ...auth, body });
      t.equal(r.status, 400, `${method} ${path}`);
      t.equal(r.body?.error?.code, 'REQUEST_BODY_INVALID', `${method} ${path}: code`);
      t.same(r.body?.error?.details, { fields: [{ path: field, message: 'nested deeper than 64 levels of arrays and objects' }], in: 'json' }, `${method} ${path}: names where`);
      t.equal(await snapshot(sql), before, `${method} ${path}: database unchanged`);
    }
    const at_bound = await call(app, 'POST', '/v1/auth/login', { body: `{"email":${nested(63)}}` });
    t.equal(at_bound.body.error.code, 'VALIDATION_FAILED', '64 levels pass the body parser and meet the route\'s validation');
  });

  t.test('raw bytes on a real socket: NUL in a header or the path never reaches the app', async (t) => {
    const header = await rawRequest(url, Buffer.from(`GET /v1/nodes HTTP/1.1\r\nHost: x\r\nX-Tag: a\u0000b\r\nConnection: close\r\n\r\n`, 'latin1'));
    t.match(header, /^HTTP\/1\.1 400/, 'NUL in a header value: 400 from the HTTP parser');
    const path = await rawRequest(url, Buffer.from(`GET /v1/nodes/n_\u0000 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, 'latin1'));
    t.match(path, /^HTTP\/1\.1 400/, 'NUL in the request line: 400');
    const body = Buffer.from('{"name":"a\\u0000"}');
    const chunked = await rawRequest(url, Buffer.concat([
      Buffer.from(`POST /v1/account/api-keys HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${u.access_token}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${body.length.toString(16)}\r\n`),
      body, Buffer.from('\r\n0\r\n\r\n'),
    ]));
    t.match(chunked, /^HTTP\/1\.1 400/);
    t.match(chunked, /VALIDATION_FAILED/);
    const alive = await fetch(`${url}/v1/nodes`);
    t.equal(alive.status, 200, 'the server is still up');
    await alive.arrayBuffer();
  });
});
