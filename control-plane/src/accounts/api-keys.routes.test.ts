import t from 'tap';
import { createHash } from 'node:crypto';
import { call, createApiKey, registerUser, testApp } from '../test-support/app.js';

t.test('API keys and personal access tokens', async (t) => {
  const { app, sql } = await testApp(t);
  const u = await registerUser(app);
  const other = await registerUser(app);
  const auth = { token: u.access_token };
  const keysSnapshot = async () => JSON.stringify(await sql`SELECT id, revoked_at, expires_at, name, scopes FROM access_keys ORDER BY id`);

  t.test('create: sk_live_ by default, both scopes, 90 days, secret once, hash only', async (t) => {
    const r = await call(app, 'POST', '/v1/account/api-keys', { ...auth, body: { name: 'ci' } });
    t.equal(r.status, 201);
    const d = r.body.data;
    t.match(d.key, /^sk_live_[0-9a-z]{32}$/);
    t.match(d.id, /^key_/);
    t.same(d.scopes, ['read', 'write']);
    t.equal(d.type, 'production');
    t.equal(d.status, 'active');
    t.equal(d.key_prefix, `sk_live_${d.key.slice(8, 12)}…${d.key.slice(-4)}`);
    const days = (Date.parse(d.expires_at) - Date.parse(d.created_at)) / 86_400_000;
    t.equal(Math.round(days), 90);
    const [row] = await sql`SELECT key_hash FROM access_keys WHERE id = ${d.id}`;
    t.equal(row!.key_hash, createHash('sha256').update(d.key).digest('hex'));
    const list = await call(app, 'GET', '/v1/account/api-keys', auth);
    t.notMatch(JSON.stringify(list.body), d.key, 'list never shows the secret');
    const test = await call(app, 'POST', '/v1/account/api-keys', { ...auth, body: { name: 'sandbox', type: 'test', scopes: [], expires_days: 1 } });
    t.match(test.body.data.key, /^sk_test_/);
    t.same(test.body.data.scopes, ['read', 'write'], 'empty scopes = both');
    t.equal((await call(app, 'GET', '/v1/account/profile', { token: test.body.data.key })).status, 200);
  });

  t.test('list is paged with {api_keys[], total, limit, offset}', async (t) => {
    for (let i = 0; i < 3; i++) await createApiKey(app, u.access_token);
    const all = await call(app, 'GET', '/v1/account/api-keys', auth);
    const page = await call(app, 'GET', '/v1/account/api-keys?limit=2&offset=1', auth);
    t.equal(page.body.data.limit, 2);
    t.equal(page.body.data.offset, 1);
    t.equal(page.body.data.total, all.body.data.total);
    t.same(page.body.data.api_keys.map((k: { id: string }) => k.id), all.body.data.api_keys.slice(1, 3).map((k: { id: string }) => k.id));
    const bad = await call(app, 'GET', '/v1/account/api-keys?limit=500', auth);
    t.equal(bad.status, 400);
    t.equal(bad.body.error.code, 'VALIDATION_FAILED');
    const theirs = await call(app, 'GET', '/v1/account/api-keys', { token: other.access_token });
    t.equal(theirs.body.data.total, 0, "another user's keys are not listed");
  });

  t.test('bad create input changes nothing', async (t) => {
    const cases: Array<[string, unknown]> = [
      ['missing name', {}],
      ['blank name', { name: '   ' }],
      ['expires_days 0', { name: 'x', expires_days: 0 }],
      ['expires_days 91', { name: 'x', expires_days: 91 }],
      ['expires_days 1.5', { name: 'x', expires_days: 1.5 }],
      ['expires_days as string', { name: 'x', expires_days: '30' }],
      ['unknown scope', { name: 'x', scopes: ['admin'] }],
      ['NUL in name', { name: 'a\u0000' }],
    ];
    for (const [name, body] of cases) {
      const before = await keysSnapshot();
      const r = await call(app, 'POST', '/v1/account/api-keys', { ...auth, body });
      t.equal(r.status, 400, name);
      t.equal(r.body.error.code, 'VALIDATION_FAILED', name);
      t.equal(await keysSnapshot(), before, `${name}: rows unchanged`);
    }
  });

  t.test('revoked, expired and unknown keys', async (t) => {
    const revoked = await createApiKey(app, u.access_token);
    const del = await call(app, 'DELETE', `/v1/account/api-keys/${revoked.id}`, auth);
    t.equal(del.status, 200);
    t.equal(del.body.data, null);
    const r1 = await call(app, 'GET', '/v1/account/profile', { token: revoked.key });
    t.equal(r1.status, 401);
    t.equal(r1.body.error.code, 'API_KEY_REVOKED');
    const listed = await call(app, 'GET', '/v1/account/api-keys?limit=100', auth);
    t.equal(listed.body.data.api_keys.find((k: { id: string }) => k.id === revoked.id).status, 'revoked');

    const expired = await createApiKey(app, u.access_token);
    await sql`UPDATE access_keys SET expires_at = now() - interval '1 second' WHERE id = ${expired.id}`;
    const r2 = await call(app, 'GET', '/v1/account/profile', { token: expired.key });
    t.equal(r2.status, 401);
    t.equal(r2.body.error.code, 'TOKEN_EXPIRED');

    const r3 = await call(app, 'GET', '/v1/account/profile', { token: `sk_live_${'a'.repeat(32)}` });
    t.equal(r3.body.error.code, 'AUTH_INVALID_TOKEN');
    const r4 = await call(app, 'GET', '/v1/account/profile', { token: "sk_live_' OR '1'='1" });
    t.equal(r4.body.error.code, 'AUTH_INVALID_TOKEN', 'SQL in a key is just an unknown key');
  });

  t.test('another user cannot revoke my key; unknown ids 404', async (t) => {
    const mine = await createApiKey(app, u.access_token);
    const before = await keysSnapshot();
    const r = await call(app, 'DELETE', `/v1/account/api-keys/${mine.id}`, { token: other.access_token });
    t.equal(r.status, 404);
    t.equal(r.body.error.code, 'API_KEY_NOT_FOUND');
    const r2 = await call(app, 'DELETE', "/v1/account/api-keys/key_'%20OR%201=1", auth);
    t.equal(r2.body.error.code, 'API_KEY_NOT_FOUND');
    t.equal(await keysSnapshot(), before);
    t.equal((await call(app, 'GET', '/v1/account/profile', { token: mine.key })).status, 200);
  });

  t.test('X-API-Key is not accepted (docs/api/conventions.md)', async (t) => {
    const { key } = await createApiKey(app, u.access_token);
    const r = await call(app, 'GET', '/v1/account/profile', { headers: { 'x-api-key': key } });
    t.equal(r.status, 401);
    t.equal(r.body.error.code, 'AUTH_REQUIRED');
    t.match(r.body.error.message, /Authorization: Bearer/);
  });

  t.test('key scopes: read-only cannot create keys; write-only cannot read', async (t) => {
    const ro = await createApiKey(app, u.access_token, ['read']);
    const wo = await createApiKey(app, u.access_token, ['write']);
    const r1 = await call(app, 'POST', '/v1/account/api-keys', { token: ro.key, body: { name: 'x' } });
    t.equal(r1.status, 403);
    t.equal(r1.body.error.code, 'FORBIDDEN');
    const r2 = await call(app, 'GET', '/v1/account/api-keys', { token: wo.key });
    t.equal(r2.status, 403);
    const logout = await call(app, 'POST', '/v1/auth/logout', { token: wo.key });
    t.equal(logout.status, 403, 'logout is for sessions');
  });

  t.test('a key or PAT grants only scopes it holds and nothing that outlives it; sessions grant anything', async (t) => {
    const me = await registerUser(app);
    const mine = { token: me.access_token };
    const wo = await createApiKey(app, me.access_token, ['write']);
    const pat = await call(app, 'POST', '/v1/account/tokens', { ...mine, body: { name: 'write-only pat', scopes: ['write'], expires_days: 3 } });
    t.equal(pat.status, 201);
    const wpat = pat.body.data.token as string;
    const cases: Array<[string, string, string, unknown]> = [
      ['key asks for read', wo.key, '/v1/account/api-keys', { name: 'x', scopes: ['read'] }],
      ['key asks for read and write', wo.key, '/v1/account/api-keys', { name: 'x', scopes: ['read', 'write'] }],
      ['key omits scopes (= read and write)', wo.key, '/v1/account/api-keys', { name: 'x' }],
      ['key sends empty scopes (= read and write)', wo.key, '/v1/account/api-keys', { name: 'x', scopes: [] }],
      ['key creates a PAT with read', wo.key, '/v1/account/tokens', { name: 'x', scopes: ['read', 'write'] }],
      ['PAT creates a key with read', wpat, '/v1/account/api-keys', { name: 'x', scopes: ['read'] }],
      ['PAT creates a PAT with read', wpat, '/v1/account/tokens', { name: 'x' }],
    ];
    for (const [name, token, path, body] of cases) {
      const before = await keysSnapshot();
      const r = await call(app, 'POST', path, { token, body });
      t.equal(r.status, 403, name);
      t.equal(r.body.error.code, 'FORBIDDEN', name);
      t.match(r.body.error.message, /cannot grant 'read'/, `${name}: says which scope`);
      t.same(r.body.error.details.missing_scopes, ['read'], name);
      t.equal(await keysSnapshot(), before, `${name}: nothing created`);
    }

    const same = await call(app, 'POST', '/v1/account/api-keys', { token: wo.key, body: { name: 'child', scopes: ['write'] } });
    t.equal(same.status, 201, 'a subset of its own scopes is fine');
    t.same(same.body.data.scopes, ['write']);
    const child = await call(app, 'POST', '/v1/account/tokens', { token: wpat, body: { name: 'child', scopes: ['write'], expires_days: 90 } });
    t.equal(child.status, 201);
    t.equal(child.body.data.expires_at, pat.body.data.expires_at, "a PAT's child expires no later than the PAT (3 days, not 90)");
    const keyChild = Date.parse(same.body.data.expires_at);
    t.ok(keyChild <= Date.parse((await sql`SELECT expires_at FROM access_keys WHERE id = ${wo.id}`)[0]!.expires_at.toISOString()), "a key's child expires no later than the key");

    const testKey = await call(app, 'POST', '/v1/account/api-keys', { ...mine, body: { name: 'sandbox', type: 'test' } });
    for (const [name, path, body] of [
      ['test key creates a production key', '/v1/account/api-keys', { name: 'live', scopes: ['write'] }],
      ['test key creates a PAT', '/v1/account/tokens', { name: 'pat', scopes: ['write'] }],
    ] as const) {
      const before = await keysSnapshot();
      const r = await call(app, 'POST', path, { token: testKey.body.data.key, body });
      t.equal(r.status, 403, name);
      t.match(r.body.error.message, /test API key/, name);
      t.equal(await keysSnapshot(), before, `${name}: nothing created`);
    }
    const testChild = await call(app, 'POST', '/v1/account/api-keys', { token: testKey.body.data.key, body: { name: 'sandbox 2', type: 'test' } });
    t.equal(testChild.status, 201, 'a test key may create test keys');
    t.match(testChild.body.data.key, /^sk_test_/);

    const full = await createApiKey(app, me.access_token);
    const wide = await call(app, 'POST', '/v1/account/api-keys', { token: full.key, body: { name: 'both' } });
    t.equal(wide.status, 201, 'a read+write key may create a read+write key');
    const session = await call(app, 'POST', '/v1/account/api-keys', { ...mine, body: { name: 'from session', expires_days: 90 } });
    t.same(session.body.data.scopes, ['read', 'write'], 'a session grants every scope');
    t.equal(Math.round((Date.parse(session.body.data.expires_at) - Date.parse(session.body.data.created_at)) / 86_400_000), 90);
  });

  t.test('personal access tokens: create, use, list, revoke', async (t) => {
    const c = await call(app, 'POST', '/v1/account/tokens', { ...auth, body: { name: 'laptop', scopes: ['read'], expires_days: 7 } });
    t.equal(c.status, 201);
    t.match(c.body.data.token, /^svc_pat_[0-9a-z]{32}$/);
    t.match(c.body.data.id, /^pat_/);
    t.equal((await call(app, 'GET', '/v1/account/profile', { token: c.body.data.token })).status, 200);
    const w = await call(app, 'PATCH', '/v1/account/profile', { token: c.body.data.token, body: { theme: 'dark' } });
    t.equal(w.body.error.code, 'FORBIDDEN');
    const list = await call(app, 'GET', '/v1/account/tokens', auth);
    t.equal(list.body.data.total, 1);
    t.equal(list.body.data.tokens[0].token_prefix, `svc_pat_${c.body.data.token.slice(8, 12)}…${c.body.data.token.slice(-4)}`);
    const keys = await call(app, 'GET', '/v1/account/api-keys?limit=100', auth);
    t.notOk(keys.body.data.api_keys.some((k: { id: string }) => k.id === c.body.data.id), 'PATs are not API keys');
    const wrongKind = await call(app, 'DELETE', `/v1/account/api-keys/${c.body.data.id}`, auth);
    t.equal(wrongKind.status, 404);
    const del = await call(app, 'DELETE', `/v1/account/tokens/${c.body.data.id}`, auth);
    t.equal(del.status, 200);
    const after = await call(app, 'GET', '/v1/account/profile', { token: c.body.data.token });
    t.equal(after.body.error.code, 'API_KEY_REVOKED');
    const missing = await call(app, 'DELETE', '/v1/account/tokens/pat_nope', auth);
    t.equal(missing.body.error.code, 'PAT_NOT_FOUND');
  });
});
