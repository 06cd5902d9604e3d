import { request as httpRequest } from 'node:http';
import t from 'tap';
import { Validator } from '@seriousme/openapi-schema-validator';
import { errorEnvelopeSchema, isId } from '@vantage/shared-protocol';
import { call, registerUser, testApp } from './test-support/app.js';

t.test('app platform: envelopes, errors, limits, OpenAPI', async (t) => {
  const { app, url } = await testApp(t);
  // A route that fails with internals in the error: the 500 must not show them.
  app.get('/v1/__test/boom', () => { throw new Error('password=hunter2 at /secret/path'); });
  const user = await registerUser(app);

  t.test('success envelope and request id', async (t) => {
    const r = await call(app, 'GET', '/v1/account/profile', { token: user.access_token });
    t.equal(r.status, 200);
    t.ok(isId('request', r.body.request_id), 'req_ id in body');
    t.equal(r.headers.get('x-request-id'), r.body.request_id, 'same id in X-Request-Id');
    t.equal(r.body.data.id, user.user_id);
  });

  const errorCases: Array<{ name: string; method: string; path: string; body?: unknown; headers?: Record<string, string>; status: number; code: string }> = [
    { name: 'unknown path', method: 'GET', path: '/v1/nope', status: 404, code: 'NOT_FOUND' },
    { name: 'unknown method on a path', method: 'PUT', path: '/v1/account/profile', status: 405, code: 'METHOD_NOT_ALLOWED' },
    { name: 'malformed JSON', method: 'POST', path: '/v1/auth/login', body: '{"email":', status: 400, code: 'REQUEST_BODY_INVALID' },
    { name: 'schema failure', method: 'POST', path: '/v1/auth/register', body: { email: 'not-an-email', password: 'short' }, status: 400, code: 'VALIDATION_FAILED' },
    { name: 'thrown internal error', method: 'GET', path: '/v1/__test/boom', status: 500, code: 'INTERNAL_ERROR' },
    { name: 'bad Content-Length', method: 'POST', path: '/v1/auth/login', body: '{}', headers: { 'content-length': '12abc' }, status: 400, code: 'REQUEST_BODY_INVALID' },
  ];
  for (const c of errorCases) {
    t.test(c.name, async (t) => {
      const r = await call(app, c.method, c.path, { body: c.body, headers: c.headers });
      t.equal(r.status, c.status);
      t.equal(r.body.error?.code, c.code);
      t.ok(errorEnvelopeSchema.safeParse(r.body).success, 'error envelope');
      t.equal(r.body.error.request_id, r.body.request_id, 'request_id inside and outside');
      t.notMatch(JSON.stringify(r.body), /hunter2|secret\/path|Error:/, 'no internals');
    });
  }

  t.test('405 carries Allow', async (t) => {
    const r = await call(app, 'DELETE', '/v1/account/profile');
    t.equal(r.headers.get('allow'), 'GET, PATCH, HEAD');
  });

  t.test('VALIDATION_FAILED lists fields', async (t) => {
    const r = await call(app, 'POST', '/v1/auth/register', { body: { email: 'x@y.test', password: 'short' } });
    t.same(r.body.error.details.fields.map((f: { path: string }) => f.path), ['password']);
  });

  t.test('messages follow Accept-Language', async (t) => {
    const cases = [['zh-CN', '资源不存在'], ['zh-TW,zh;q=0.9', '資源不存在'], ['zh-Hant-HK', '資源不存在'], ['en-GB', 'no route for GET /v1/nope'], ['fr, zh;q=0.5', '资源不存在'], ['de', 'no route for GET /v1/nope']];
    for (const [lang, message] of cases) {
      const r = await call(app, 'GET', '/v1/nope', { headers: { 'accept-language': lang! } });
      t.equal(r.body.error.message, message, String(lang));
    }
  });

  t.test('413 from Content-Length before reading', async (t) => {
    const big = JSON.stringify({ email: 'a@b.test', password: 'x'.repeat(40 * 1024) });
    const r = await call(app, 'POST', '/v1/auth/register', { body: big });
    t.equal(r.status, 413);
    t.equal(r.body.error.code, 'PAYLOAD_TOO_LARGE');
  });

  t.test('bodies on a real socket: Content-Length over the limit is 413; a body of either framing is read once and reaches the route', async (t) => {
    /** One raw HTTP/1.1 exchange on its own socket: the status line's code and the body. */
    const exchange = (head: Record<string, string>, chunks: string[]) => new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = httpRequest(`${url}/v1/auth/register`, { method: 'POST', headers: { 'content-type': 'application/json', ...head } }, (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      });
      req.on('error', reject);
      for (const chunk of chunks) req.write(chunk);
      req.end();
    });
    const valid = (tag: string) => JSON.stringify({ email: `${tag}-${Date.now()}@body.test`, password: 'correct horse battery staple' });
    const sized = valid('sized');
    const ok = await exchange({ 'content-length': String(Buffer.byteLength(sized)) }, [sized]);
    t.equal(ok.status, 201, 'a Content-Length body reaches the route');
    const chunked = await exchange({ 'transfer-encoding': 'chunked' }, [valid('chunked').slice(0, 10), valid('chunked').slice(10)]);
    t.equal(chunked.status, 201, 'so does a chunked one');
    const big = await exchange({ 'content-length': String(40 * 1024) }, ['x'.repeat(40 * 1024)]);
    t.equal(big.status, 413);
    t.equal(big.body.error.code, 'PAYLOAD_TOO_LARGE');
    const bad = await exchange({ 'content-length': '3' }, ['{"e']);
    t.equal(bad.body.error.code, 'REQUEST_BODY_INVALID', 'malformed JSON read from the socket is still the validator\'s 400');
    const get = await fetch(`${url}/v1/nodes`);
    t.equal(get.status, 200, 'a GET has no body to read');
    await get.arrayBuffer();
  });

  t.test('413 for a chunked body over 32 KB (real socket)', async (t) => {
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${url}/v1/auth/register`, { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      });
      req.on('error', reject);
      for (let i = 0; i < 40; i++) req.write('x'.repeat(1024));
      req.end();
    });
    t.equal(status, 413);
    t.equal(JSON.parse(body).error.code, 'PAYLOAD_TOO_LARGE');
  });

  t.test('body of exactly 32 KB is read', async (t) => {
    const base = JSON.stringify({ email: 'a@b.test', password: '' });
    const body = JSON.stringify({ email: 'a@b.test', password: 'p'.repeat(32 * 1024 - base.length) });
    t.equal(Buffer.byteLength(body), 32 * 1024);
    const r = await call(app, 'POST', '/v1/auth/login', { body });
    t.equal(r.status, 400, 'reaches validation (password over 1024 chars), not 413');
    t.equal(r.body.error.code, 'VALIDATION_FAILED');
  });

  t.test('GET /v1/openapi.json is a valid OpenAPI 3.1 document with every route', async (t) => {
    const r = await call(app, 'GET', '/v1/openapi.json');
    t.equal(r.status, 200);
    t.equal(r.body.openapi, '3.1.0');
    const validator = new Validator();
    const result = await validator.validate(r.body);
    t.ok(result.valid, JSON.stringify(result.errors ?? []).slice(0, 2000));
    const paths = Object.keys(r.body.paths);
    for (const p of ['/v1/auth/register', '/v1/auth/login', '/v1/auth/logout', '/v1/auth/refresh', '/v1/account/profile', '/v1/account/api-keys', '/v1/account/api-keys/{id}', '/v1/account/tokens', '/v1/account/tokens/{id}', '/v1/account/2fa/setup', '/v1/openapi.json']) {
      t.ok(paths.includes(p), p);
    }
    // Every route the app serves appears in the document (the test-only route excepted).
    const served = app.routes.filter((x) => x.method !== 'ALL' && !x.path.includes('__test')).map((x) => x.path.replace(/:([^/]+)/g, '{$1}'));
    for (const p of new Set(served)) t.ok(paths.includes(p), `documented: ${p}`);
  });
});
