import t from 'tap';
import { call, createApiKey, registerUser, testApp } from '../test-support/app.js';

/*
 * Administrators manage accounts (docs/api/accounts.md "Administration"): create one whatever the
 * registration mode, list, mark, disable; every change is in the admin audit log; nobody else
 * gets in (403), anonymous callers get 401.
 */

t.test('admin accounts: create, list, mark, disable; audit; others refused', async (t) => {
  const { app, sql } = await testApp(t, { config: { registration: 'closed', admin_emails: ['listed@example.test'] } });
  const admin = await registerUser(app, 'root@example.test');
  const token = admin.access_token;

  t.test('create with a generated password, then with one given', async (t) => {
    const made = await call(app, 'POST', '/v1/admin/accounts', { token, body: { email: 'dev@example.test' } });
    t.equal(made.status, 201, JSON.stringify(made.body));
    t.match(made.body.data, { id: /^u_/, email: 'dev@example.test', is_admin: false, status: 'active', email_verified: false, password: /^[A-Za-z0-9_-]{24}$/ });
    const login = await call(app, 'POST', '/v1/auth/login', { body: { email: 'dev@example.test', password: made.body.data.password } });
    t.equal(login.status, 200, 'the generated password logs in');
    const given = await call(app, 'POST', '/v1/admin/accounts', { token, body: { email: 'ops@example.test', password: 'chosen-password', is_admin: true } });
    t.equal(given.status, 201);
    t.equal(given.body.data.password, null, 'a given password is not echoed');
    t.equal(given.body.data.is_admin, true);
    t.equal((await call(app, 'POST', '/v1/auth/login', { body: { email: 'ops@example.test', password: 'chosen-password' } })).status, 200);
    const dup = await call(app, 'POST', '/v1/admin/accounts', { token, body: { email: 'DEV@example.test' } });
    t.equal(dup.status, 409);
    t.equal(dup.body.error.code, 'ACCOUNT_EMAIL_TAKEN');
    const bad = await call(app, 'POST', '/v1/admin/accounts', { token, body: { email: 'not-an-address', password: 'short' } });
    t.equal(bad.status, 400);
    t.equal(bad.body.error.code, 'VALIDATION_FAILED');
    const extra = await call(app, 'POST', '/v1/admin/accounts', { token, body: { email: 'x@example.test', role: 'owner' } });
    t.equal(extra.status, 400, 'unknown fields refused');
    t.equal((await sql`SELECT count(*)::int AS n FROM users`)[0]!.n, 3, 'bad requests created nothing');
  });

  t.test('list, oldest first', async (t) => {
    const list = await call(app, 'GET', '/v1/admin/accounts', { token });
    t.equal(list.status, 200);
    t.equal(list.body.data.total, 3);
    t.same(list.body.data.accounts.map((a: any) => [a.email, a.is_admin]), [['root@example.test', true], ['dev@example.test', false], ['ops@example.test', true]]);
    const page = await call(app, 'GET', '/v1/admin/accounts?limit=1&offset=1', { token });
    t.same(page.body.data.accounts.map((a: any) => a.email), ['dev@example.test']);
  });

  t.test('non-administrators get 403 on every admin route, anonymous callers 401', async (t) => {
    const dev = await call(app, 'POST', '/v1/auth/login', { body: { email: 'ops@example.test', password: 'chosen-password' } });
    const plain = (await call(app, 'POST', '/v1/admin/accounts', { token, body: { email: 'plain@example.test', password: 'plain-password' } })).body.data;
    const session = (await call(app, 'POST', '/v1/auth/login', { body: { email: 'plain@example.test', password: 'plain-password' } })).body.data.access_token;
    const key = (await createApiKey(app, session)).key;
    const routes: Array<[string, string, unknown?]> = [
      ['GET', '/v1/admin/accounts'], ['POST', '/v1/admin/accounts', { email: 'sneak@example.test' }],
      ['PATCH', `/v1/admin/accounts/${plain.id}`, { is_admin: true }], ['POST', '/v1/admin/invites', {}], ['GET', '/v1/admin/invites'],
      ['DELETE', '/v1/admin/invites/inv_01jd3k6w9z4q8r2t7v5x1y3b6c'],
    ];
    for (const [method, path, body] of routes) {
      for (const [who, cred] of [['session', session], ['api key', key]] as const) {
        const r = await call(app, method, path, { token: cred, ...(body ? { body } : {}) });
        t.equal(r.status, 403, `${who}: ${method} ${path}`);
        t.equal(r.body.error.code, 'FORBIDDEN');
      }
      t.equal((await call(app, method, path, body ? { body } : {})).status, 401, `anonymous: ${method} ${path}`);
    }
    t.equal((await sql`SELECT is_admin FROM users WHERE id = ${plain.id}`)[0]!.is_admin, false, 'nothing changed');
    t.equal((await sql`SELECT count(*)::int AS n FROM users WHERE email = 'sneak@example.test'`)[0]!.n, 0);
    t.equal(dev.status, 200, 'the administrator made by an administrator logs in');
    const viaListed = await call(app, 'GET', '/v1/admin/accounts', { token: dev.body.data.access_token });
    t.equal(viaListed.status, 200, 'an account marked is_admin by an administrator may use admin routes');
  });

  t.test('mark, disable (its sessions and keys stop), enable; own account protected; 404s', async (t) => {
    const victim = (await call(app, 'POST', '/v1/admin/accounts', { token, body: { email: 'victim@example.test', password: 'victim-password' } })).body.data;
    const session = (await call(app, 'POST', '/v1/auth/login', { body: { email: 'victim@example.test', password: 'victim-password' } })).body.data;
    const key = (await createApiKey(app, session.access_token)).key;
    t.equal((await call(app, 'GET', '/v1/account/profile', { token: key })).status, 200);

    const off = await call(app, 'PATCH', `/v1/admin/accounts/${victim.id}`, { token, body: { status: 'disabled' } });
    t.equal(off.status, 200, JSON.stringify(off.body));
    t.equal(off.body.data.status, 'disabled');
    t.equal((await call(app, 'GET', '/v1/account/profile', { token: session.access_token })).body.error?.code, 'AUTH_ACCOUNT_DISABLED', 'its session ended: answered as disabled');
    t.equal((await call(app, 'POST', '/v1/auth/refresh', { body: { refresh_token: session.refresh_token } })).status, 401, 'and cannot be refreshed');
    const byKey = await call(app, 'GET', '/v1/account/profile', { token: key });
    t.equal(byKey.status, 403);
    t.equal(byKey.body.error.code, 'AUTH_ACCOUNT_DISABLED', 'its keys stop');
    t.equal((await call(app, 'POST', '/v1/auth/login', { body: { email: 'victim@example.test', password: 'victim-password' } })).body.error.code, 'AUTH_ACCOUNT_DISABLED');

    const on = await call(app, 'PATCH', `/v1/admin/accounts/${victim.id}`, { token, body: { status: 'active', is_admin: true } });
    t.match(on.body.data, { status: 'active', is_admin: true });
    t.equal((await call(app, 'GET', '/v1/account/profile', { token: key })).body.error?.code, 'API_KEY_REVOKED', 'enabled: its revoked keys stay revoked');
    t.equal((await call(app, 'GET', '/v1/account/profile', { token: session.access_token })).body.error?.code, 'AUTH_SESSION_INVALID', 'and its sessions stay ended');

    const self = await call(app, 'PATCH', `/v1/admin/accounts/${admin.user_id}`, { token, body: { is_admin: false } });
    t.equal(self.status, 409);
    t.equal(self.body.error.code, 'CONFLICT');
    t.equal((await call(app, 'PATCH', `/v1/admin/accounts/${admin.user_id}`, { token, body: { status: 'disabled' } })).status, 409);
    t.equal((await call(app, 'PATCH', '/v1/admin/accounts/u_01jd3k6w9z4q8r2t7v5x1y3b6c', { token, body: { is_admin: true } })).body.error.code, 'ACCOUNT_NOT_FOUND');
    t.equal((await call(app, 'PATCH', '/v1/admin/accounts/garbage', { token, body: { is_admin: true } })).status, 404);
    const empty = await call(app, 'PATCH', `/v1/admin/accounts/${victim.id}`, { token, body: {} });
    t.equal(empty.status, 400, 'nothing to change');
    const badStatus = await call(app, 'PATCH', `/v1/admin/accounts/${victim.id}`, { token, body: { status: 'banned' } });
    t.equal(badStatus.body.error.code, 'VALIDATION_FAILED');
  });

  t.test('every change is in the audit log, with its actor', async (t) => {
    const rows = await sql`SELECT actor_user_id, action, target_id, details FROM admin_audit ORDER BY id`;
    t.same([...new Set(rows.map((r) => r.actor_user_id))], [admin.user_id], 'all by the administrator');
    t.same(rows.map((r) => r.action), [
      'account.create', 'account.create', 'account.create', 'account.create', 'account.update', 'account.update',
    ], 'creations and updates; refused and failed requests wrote nothing');
    t.match(rows[0]!.details, { email: 'dev@example.test', password_generated: true });
    t.notOk(JSON.stringify(rows).includes('password"'), 'no password in the log');
    t.match(rows[4]!.details, { status: 'disabled' });
  });
});

t.test('a listed, verified address is an administrator too', async (t) => {
  const { app, sql } = await testApp(t, { config: { registration: 'open', admin_emails: ['boss@example.test'] } });
  const first = await registerUser(app);
  const boss = await registerUser(app, 'boss@example.test');
  const plain = await registerUser(app, 'plain@example.test');
  const administrator = async (token: string) => (await call(app, 'GET', '/v1/account/administrator', { token })).body.data;
  t.same(await administrator(first.access_token), { is_admin: true }, 'the first account says it is one (marked)');
  t.same(await administrator(plain.access_token), { is_admin: false }, 'a plain account says it is not');
  t.equal((await call(app, 'GET', '/v1/admin/accounts', { token: boss.access_token })).status, 403, 'unverified: not yet');
  t.same(await administrator(boss.access_token), { is_admin: false }, 'and says so');
  await sql`UPDATE users SET email_verified = true WHERE id = ${boss.user_id}`;
  t.same(await administrator(boss.access_token), { is_admin: true }, 'verified and listed: it says it is one');
  const list = await call(app, 'GET', '/v1/admin/accounts', { token: boss.access_token });
  t.equal(list.status, 200);
  t.match(list.body.data.accounts[1], { email: 'boss@example.test', is_admin: false, admin_email_listed: true });
  t.equal((await call(app, 'GET', '/v1/account/administrator')).status, 401, 'anonymous: 401');
});
