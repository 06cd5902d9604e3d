import t from 'tap';
import { call, registerUser, testApp } from '../test-support/app.js';
import { legacyScryptHash } from './password-test-support.js';
import { hashKind } from './passwords.js';

/*
 * Login and stored hashes (docs/api/accounts.md "Passwords"): a scrypt hash from before argon2id
 * still logs in and is replaced by an argon2id hash of the same password on that login; a wrong
 * password changes nothing; an account without a password never logs in with one.
 */

t.test('a scrypt hash logs in and is rehashed to argon2id on that login', async (t) => {
  const { app, sql } = await testApp(t);
  const u = await registerUser(app);
  const old = await legacyScryptHash('legacy-orbit-lantern-7');
  await sql`UPDATE users SET password_hash = ${old} WHERE id = ${u.user_id}`;
  const hashNow = async () => (await sql<{ password_hash: string }[]>`SELECT password_hash FROM users WHERE id = ${u.user_id}`)[0]!.password_hash;

  t.equal((await call(app, 'POST', '/v1/auth/login', { body: { email: u.email, password: 'legacy-orbit-lantern-8' } })).status, 401);
  t.equal(await hashNow(), old, 'a wrong password rehashes nothing');
  const ok = await call(app, 'POST', '/v1/auth/login', { body: { email: u.email, password: 'legacy-orbit-lantern-7' } });
  t.equal(ok.status, 200);
  const now = await hashNow();
  t.equal(hashKind(now), 'argon2id', 'rehashed on the successful login');
  t.equal((await call(app, 'POST', '/v1/auth/login', { body: { email: u.email, password: 'legacy-orbit-lantern-7' } })).status, 200, 'the same password logs in with the new hash');
  t.equal(await hashNow(), now, 'and is not rehashed again');
});

t.test('an account without a password and an unknown address get the same refusal', async (t) => {
  const { app, sql } = await testApp(t);
  const u = await registerUser(app);
  await sql`UPDATE users SET password_hash = '' WHERE id = ${u.user_id}`;
  const none = await call(app, 'POST', '/v1/auth/login', { body: { email: u.email, password: '' } });
  t.equal(none.status, 400, 'an empty password is refused by the schema');
  const sso = await call(app, 'POST', '/v1/auth/login', { body: { email: u.email, password: u.password } });
  const unknown = await call(app, 'POST', '/v1/auth/login', { body: { email: 'nobody@example.test', password: u.password } });
  t.equal(sso.status, 401);
  t.equal(sso.body.error.code, 'AUTH_CREDENTIALS_INVALID');
  t.equal(unknown.body.error.code, 'AUTH_CREDENTIALS_INVALID');
});
