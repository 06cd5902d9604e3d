import t from 'tap';
import { call, registerUser, testApp } from '../test-support/app.js';

/*
 * Usernames (docs/api/accounts.md "Username"): optional, set and cleared through the profile
 * PATCH, unique case-insensitively (409 ACCOUNT_USERNAME_TAKEN), a documented pattern that can
 * never be an e-mail address; `POST /v1/auth/login` accepts the username in `email`.
 */

t.test('username: set, shown, unique in any case, pattern, clear; login by username', async (t) => {
  const { app, sql } = await testApp(t);
  const a = await registerUser(app);
  const b = await registerUser(app);
  const profile = await call(app, 'GET', '/v1/account/profile', { token: a.access_token });
  t.equal(profile.body.data.username, null, 'none at first');

  const set = await call(app, 'PATCH', '/v1/account/profile', { token: a.access_token, body: { username: 'Ada_Lovelace', bio: 'hi' } });
  t.equal(set.status, 200, JSON.stringify(set.body));
  t.equal(set.body.data.username, 'Ada_Lovelace', 'stored as given');
  t.equal(set.body.data.bio, 'hi', 'with the other fields');
  t.equal((await call(app, 'GET', '/v1/account/profile', { token: a.access_token })).body.data.username, 'Ada_Lovelace', 'shown in the profile');

  const taken = await call(app, 'PATCH', '/v1/account/profile', { token: b.access_token, body: { username: 'ada_lovelace', bio: 'should not be stored' } });
  t.equal(taken.status, 409);
  t.equal(taken.body.error.code, 'ACCOUNT_USERNAME_TAKEN', 'taken in another letter case');
  t.equal((await call(app, 'GET', '/v1/account/profile', { token: b.access_token })).body.data.bio, null, 'a refused PATCH changes nothing');

  for (const bad of ['ab', 'a'.repeat(33), 'ada@example.com', '_ada', 'ada lovelace', 'ädä']) {
    const r = await call(app, 'PATCH', '/v1/account/profile', { token: b.access_token, body: { username: bad } });
    t.equal(r.body.error?.code, 'VALIDATION_FAILED', `refused: ${bad}`);
  }
  t.equal((await call(app, 'PATCH', '/v1/account/profile', { token: a.access_token, body: { username: 'Ada_Lovelace' } })).status, 200, 'setting its own again is fine');

  for (const login of ['Ada_Lovelace', 'ADA_LOVELACE', a.email.toUpperCase()]) {
    const r = await call(app, 'POST', '/v1/auth/login', { body: { email: login, password: a.password } });
    t.equal(r.status, 200, `login as ${login}`);
    t.equal(r.body.data.user_id, a.user_id);
  }
  const wrong = await call(app, 'POST', '/v1/auth/login', { body: { email: 'Ada_Lovelace', password: 'wrong-password' } });
  t.equal(wrong.body.error.code, 'AUTH_CREDENTIALS_INVALID');
  const unknown = await call(app, 'POST', '/v1/auth/login', { body: { email: 'nobody_here', password: a.password } });
  t.equal(unknown.body.error.code, 'AUTH_CREDENTIALS_INVALID', 'an unknown username is answered like a wrong password');

  const cleared = await call(app, 'PATCH', '/v1/account/profile', { token: a.access_token, body: { username: null } });
  t.equal(cleared.body.data.username, null, 'cleared');
  t.equal((await call(app, 'POST', '/v1/auth/login', { body: { email: 'Ada_Lovelace', password: a.password } })).status, 401, 'a cleared username no longer logs in');
  t.equal((await call(app, 'PATCH', '/v1/account/profile', { token: b.access_token, body: { username: 'ada_lovelace' } })).status, 200, 'and is free again');
  t.equal((await sql`SELECT 1 FROM users WHERE username IS NOT NULL`).length, 1);
});
