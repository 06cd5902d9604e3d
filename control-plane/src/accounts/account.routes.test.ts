import t from 'tap';
import { call, createApiKey, registerUser, testApp } from '../test-support/app.js';

t.test('account profile: profile rules and a bad-input table', async (t) => {
  const { app, sql } = await testApp(t);
  const u = await registerUser(app);
  const auth = { token: u.access_token };
  const snapshot = async () => JSON.stringify(await sql`SELECT * FROM users ORDER BY id`) + JSON.stringify(await sql`SELECT id, revoked_at FROM sessions ORDER BY id`);

  t.test('defaults', async (t) => {
    const r = await call(app, 'GET', '/v1/account/profile', auth);
    t.match(r.body.data, { email: u.email, email_verified: false, phone: '', phone_verified: false, has_password: true, display_name: null, bio: null, locale: 'en', timezone: 'UTC', theme: 'system', status: 'active' });
  });

  t.test('valid patches', async (t) => {
    const emoji64 = '😀'.repeat(64);
    const cases: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
      ['64 emoji display_name', { display_name: emoji64 }, { display_name: emoji64 }],
      ['64 composed characters (NFC)', { display_name: 'e\u0301'.repeat(64) }, { display_name: '\u00e9'.repeat(64) }],
      ['all fields', { bio: 'line 1\nline 2', locale: 'tw', timezone: 'Asia/Taipei', theme: 'dark' }, { bio: 'line 1\nline 2', locale: 'tw', timezone: 'Asia/Taipei', theme: 'dark' }],
      ['UTC timezone', { timezone: 'UTC' }, { timezone: 'UTC' }],
      ['blank clears', { display_name: '   ', bio: '' }, { display_name: null, bio: null }],
      ['null clears', { display_name: 'x' }, { display_name: 'x' }],
      ['null clears (2)', { display_name: null }, { display_name: null }],
      ['empty patch changes nothing', {}, { locale: 'tw' }],
      ['SQL text is just text', { display_name: "Robert'); DROP TABLE users;--" }, { display_name: "Robert'); DROP TABLE users;--" }],
    ];
    for (const [name, body, expect] of cases) {
      const r = await call(app, 'PATCH', '/v1/account/profile', { ...auth, body });
      t.equal(r.status, 200, name);
      t.match(r.body.data, expect, name);
    }
    const get = await call(app, 'GET', '/v1/account/profile', auth);
    t.equal(get.body.data.display_name, "Robert'); DROP TABLE users;--", 'stored and read back');
  });

  t.test('bad input changes nothing', async (t) => {
    const big = JSON.stringify({ bio: 'b'.repeat(33 * 1024) });
    const cases: Array<{ name: string; body: unknown; status: number; code: string; headers?: Record<string, string> }> = [
      { name: 'unknown field', body: { nickname: 'x' }, status: 400, code: 'VALIDATION_FAILED' },
      { name: 'unknown field next to a valid one', body: { theme: 'dark', is_admin: true }, status: 400, code: 'VALIDATION_FAILED' },
      { name: '65 emoji', body: { display_name: '😀'.repeat(65) }, status: 400, code: 'VALIDATION_FAILED' },
      { name: '65 uncomposable combining sequences count twice', body: { display_name: 'q\u0307'.repeat(33) }, status: 400, code: 'VALIDATION_FAILED' },
      { name: 'bio 501', body: { bio: 'b'.repeat(501) }, status: 400, code: 'VALIDATION_FAILED' },
      { name: 'NUL in display_name', body: { display_name: 'a\u0000b' }, status: 400, code: 'VALIDATION_FAILED' },
      { name: 'NUL in bio', body: { bio: 'a\u0000b' }, status: 400, code: 'VALIDATION_FAILED' },
      { name: 'newline in display_name', body: { display_name: 'a\nb' }, status: 400, code: 'VALIDATION_FAILED' },
      { name: 'number display_name', body: { display_name: 42 }, status: 400, code: 'VALIDATION_FAILED' },
      { name: 'array theme', body: { theme: ['dark'] }, status: 400, code: 'VALIDATION_FAILED' },
      { name: 'bad theme', body: { theme: 'neon' }, status: 400, code: 'VALIDATION_FAILED' },
      { name: 'bad locale', body: { locale: 'fr' }, status: 400, code: 'ACCOUNT_LOCALE_UNSUPPORTED' },
      { name: 'bad timezone', body: { timezone: 'Mars/Olympus' }, status: 400, code: 'ACCOUNT_TIMEZONE_INVALID' },
      { name: 'SQL in timezone', body: { timezone: "UTC'; DROP TABLE users;--" }, status: 400, code: 'ACCOUNT_TIMEZONE_INVALID' },
      { name: 'null timezone', body: { timezone: null }, status: 400, code: 'ACCOUNT_TIMEZONE_INVALID' },
      { name: 'JSON array body', body: [], status: 400, code: 'VALIDATION_FAILED' },
      { name: 'JSON string body', body: '"x"', status: 400, code: 'VALIDATION_FAILED' },
      { name: 'malformed JSON', body: '{"theme": "dark"', status: 400, code: 'REQUEST_BODY_INVALID' },
      { name: 'huge body', body: big, status: 413, code: 'PAYLOAD_TOO_LARGE' },
      { name: 'prototype pollution key', body: '{"__proto__": {"is_admin": true}}', status: 400, code: 'VALIDATION_FAILED' },
    ];
    for (const c of cases) {
      const before = await snapshot();
      const r = await call(app, 'PATCH', '/v1/account/profile', { ...auth, body: c.body, headers: c.headers });
      t.equal(r.status, c.status, `${c.name}: status`);
      t.equal(r.body.error?.code, c.code, `${c.name}: code`);
      t.equal(await snapshot(), before, `${c.name}: rows unchanged`);
    }
  });

  t.test('register bad input creates no user', async (t) => {
    const cases: Array<[string, unknown, string]> = [
      ['missing password', { email: 'a@b.test' }, 'VALIDATION_FAILED'],
      ['missing email', { password: 'longenough' }, 'VALIDATION_FAILED'],
      ['number email', { email: 5, password: 'longenough' }, 'VALIDATION_FAILED'],
      ['7-char password', { email: 'a@b.test', password: '1234567' }, 'VALIDATION_FAILED'],
      ['NUL in password', { email: 'a@b.test', password: 'abcd\u0000efgh' }, 'VALIDATION_FAILED'],
      ['SQL in email', { email: "x'@b.test; DROP TABLE users", password: 'longenough' }, 'VALIDATION_FAILED'],
      ['header injection in email', { email: 'a@b.test\r\nX-Evil: 1', password: 'longenough' }, 'VALIDATION_FAILED'],
    ];
    for (const [name, body, code] of cases) {
      const before = await snapshot();
      const r = await call(app, 'POST', '/v1/auth/register', { body });
      t.equal(r.status, 400, name);
      t.equal(r.body.error.code, code, name);
      t.equal(await snapshot(), before, `${name}: rows unchanged`);
    }
  });

  t.test('header injection attempts are inert', async (t) => {
    const r = await call(app, 'GET', '/v1/nope%0d%0aX-Evil:%201', { headers: { 'accept-language': 'zh-CN;q=abc, <script>, en;q=2' } });
    t.equal(r.status, 404);
    t.equal(r.headers.get('x-evil'), null);
    const idHeader = await call(app, 'GET', '/v1/account/profile', { ...auth, headers: { 'x-request-id': 'req_attacker' } });
    t.not(idHeader.body.request_id, 'req_attacker', 'request ids are never taken from the client');
  });

  t.test('a read-only key may GET but not PATCH', async (t) => {
    const { key } = await createApiKey(app, u.access_token, ['read']);
    t.equal((await call(app, 'GET', '/v1/account/profile', { token: key })).status, 200);
    const before = await snapshot();
    const r = await call(app, 'PATCH', '/v1/account/profile', { token: key, body: { theme: 'light' } });
    t.equal(r.status, 403);
    t.equal(r.body.error.code, 'FORBIDDEN');
    t.equal(await snapshot(), before);
  });
});
