import t from 'tap';
import { startSmtpServer } from '../email/test-support.js';
import { call, createApiKey, registerUser, testApp } from '../test-support/app.js';
import { hashKind } from './passwords.js';

/*
 * POST /v1/account/password (docs/api/accounts.md "Passwords"): change with the current password;
 * strength and reuse rules; the other sessions end, this one stays; a notice is e-mailed; an
 * account without a password sets one only from a fresh session.
 */

const FAST = { delivery_poll_interval_ms: 50, delivery_retry_delays_ms: [50, 50, 50] };
const login = (app: any, email: string, password: string) => call(app, 'POST', '/v1/auth/login', { body: { email, password } });

t.test('change: current password checked, other sessions end, notice e-mailed, new password logs in', async (t) => {
  const smtp = await startSmtpServer(t);
  const { app, sql } = await testApp(t, { config: { ...FAST, smtp_url: smtp.smtp_url }, delivery: true });
  const u = await registerUser(app);
  await smtp.waitFor(1); // the verification e-mail
  const other = (await login(app, u.email, u.password)).body.data;
  const key = await createApiKey(app, u.access_token);

  const missing = await call(app, 'POST', '/v1/account/password', { token: u.access_token, body: { new_password: 'staple-orbit-lantern-42' } });
  t.equal(missing.status, 400);
  t.match(missing.body.error, { code: 'VALIDATION_FAILED', details: { fields: [{ path: 'current_password' }] } });
  const wrong = await call(app, 'POST', '/v1/account/password', { token: u.access_token, body: { current_password: 'not-my-password-1', new_password: 'staple-orbit-lantern-42' } });
  t.equal(wrong.status, 401);
  t.equal(wrong.body.error.code, 'AUTH_CREDENTIALS_INVALID');
  const weak = await call(app, 'POST', '/v1/account/password', { token: u.access_token, body: { current_password: u.password, new_password: 'password1' } });
  t.equal(weak.status, 400);
  t.match(weak.body.error, { code: 'AUTH_PASSWORD_WEAK', details: { score: 0, min_score: 3, warning: 'This is a commonly used password.', suggestions: Array, fields: [{ path: 'new_password' }] } });
  const short = await call(app, 'POST', '/v1/account/password', { token: u.access_token, body: { current_password: u.password, new_password: 'short' } });
  t.equal(short.body.error.code, 'VALIDATION_FAILED', 'the 8-character minimum stays');
  const same = await call(app, 'POST', '/v1/account/password', { token: u.access_token, body: { current_password: u.password, new_password: u.password } });
  t.equal(same.status, 400);
  t.equal(same.body.error.code, 'AUTH_PASSWORD_REUSED', 'the current password is one of the last five');
  const byKey = await call(app, 'POST', '/v1/account/password', { token: key.key, body: { current_password: u.password, new_password: 'staple-orbit-lantern-42' } });
  t.equal(byKey.status, 403, 'an API key cannot change the password');
  t.equal(byKey.body.error.code, 'FORBIDDEN');
  t.equal((await login(app, u.email, u.password)).status, 200, 'refusals changed nothing');

  const changed = await call(app, 'POST', '/v1/account/password', { token: u.access_token, body: { current_password: u.password, new_password: 'staple-orbit-lantern-42' } });
  t.equal(changed.status, 200, JSON.stringify(changed.body));
  t.match(changed.body.data, { message: 'password changed', sessions_ended: 2 }, 'the two other sessions (login above, and the one a moment ago) ended');
  t.equal((await call(app, 'GET', '/v1/account/profile', { token: u.access_token })).status, 200, 'the calling session stays');
  const ended = await call(app, 'GET', '/v1/account/profile', { token: other.access_token });
  t.equal(ended.status, 401);
  t.equal(ended.body.error.code, 'AUTH_SESSION_INVALID', 'another session ended');
  t.equal((await call(app, 'POST', '/v1/auth/refresh', { body: { refresh_token: other.refresh_token } })).status, 401, 'its refresh token too');
  t.equal((await login(app, u.email, u.password)).body.error.code, 'AUTH_CREDENTIALS_INVALID', 'the old password no longer logs in');
  t.equal((await login(app, u.email, 'staple-orbit-lantern-42')).status, 200, 'the new one does');
  const [row] = await sql<{ password_hash: string }[]>`SELECT password_hash FROM users WHERE id = ${u.user_id}`;
  t.equal(hashKind(row!.password_hash), 'argon2id');

  const mails = await smtp.waitFor(2);
  const notice = mails[1]!;
  t.same(notice.to, [u.email]);
  t.equal(notice.parsed.subject, 'Your Vantage password was changed');
  t.match(notice.parsed.text, /was changed at \d{4}-\d\d-\d\d \d\d:\d\d UTC\. Your other sessions were signed out/);
  t.equal((await call(app, 'POST', '/v1/account/password', { body: { current_password: 'x', new_password: 'staple-orbit-lantern-43' } })).status, 401, 'anonymous: 401');
});

t.test('reuse: any of the last N passwords is refused, an older one is accepted again', async (t) => {
  const { app } = await testApp(t, { config: { password_history_count: 3 } });
  const u = await registerUser(app);
  const passwords = [u.password, 'amber-cobalt-river-11', 'violet-quartz-meadow-22', 'silver-mango-tundra-33'];
  for (let i = 1; i < passwords.length; i++) {
    const r = await call(app, 'POST', '/v1/account/password', { token: u.access_token, body: { current_password: passwords[i - 1], new_password: passwords[i] } });
    t.equal(r.status, 200, `change ${i}`);
  }
  // Current: silver (3). The last 3: silver, violet, amber. The first (registered) one is 4 back.
  for (const reused of ['silver-mango-tundra-33', 'violet-quartz-meadow-22', 'amber-cobalt-river-11']) {
    const r = await call(app, 'POST', '/v1/account/password', { token: u.access_token, body: { current_password: 'silver-mango-tundra-33', new_password: reused } });
    t.equal(r.status, 400, reused);
    t.match(r.body.error, { code: 'AUTH_PASSWORD_REUSED', details: { history_count: 3, fields: [{ path: 'new_password' }] } });
  }
  const back = await call(app, 'POST', '/v1/account/password', { token: u.access_token, body: { current_password: 'silver-mango-tundra-33', new_password: u.password } });
  t.equal(back.status, 200, 'a password 4 changes back is allowed with a history of 3');
});

t.test('an account without a password sets one without current_password, only from a fresh session', async (t) => {
  const { app, sql } = await testApp(t);
  const u = await registerUser(app);
  const later = (await login(app, u.email, u.password)).body.data;
  await sql`UPDATE users SET password_hash = '' WHERE id = ${u.user_id}`; // as single sign-on makes them
  await sql`UPDATE sessions SET created_at = now() - interval '11 minutes' WHERE id <> (SELECT id FROM sessions WHERE user_id = ${u.user_id} ORDER BY created_at DESC LIMIT 1) AND user_id = ${u.user_id}`;
  const old = await call(app, 'POST', '/v1/account/password', { token: u.access_token, body: { new_password: 'staple-orbit-lantern-42' } });
  t.equal(old.status, 403);
  t.match(old.body.error, { code: 'FORBIDDEN', details: { reason: 'session_too_old', setting: 'VANTAGE_PASSWORD_SET_SESSION_MAX_AGE_S', max_age_s: 600 } });
  const weak = await call(app, 'POST', '/v1/account/password', { token: later.access_token, body: { new_password: 'longenough' } });
  t.equal(weak.body.error.code, 'AUTH_PASSWORD_WEAK');
  const set = await call(app, 'POST', '/v1/account/password', { token: later.access_token, body: { new_password: 'staple-orbit-lantern-42' } });
  t.equal(set.status, 200, JSON.stringify(set.body));
  t.equal(set.body.data.sessions_ended, 1);
  t.equal((await call(app, 'GET', '/v1/account/profile', { token: later.access_token })).body.data.has_password, true);
  t.equal((await login(app, u.email, 'staple-orbit-lantern-42')).status, 200);
  const [n] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM password_history WHERE user_id = ${u.user_id}`;
  t.equal(n!.n, 0, 'no password before: nothing joins the history');
});

t.test('registration and administrator-created accounts meet the same strength rule', async (t) => {
  const { app, sql } = await testApp(t);
  const admin = await registerUser(app, 'root@example.test');
  const reg = await call(app, 'POST', '/v1/auth/register', { body: { email: 'kim.tanaka@example.test', password: 'kimtanaka1' } });
  t.equal(reg.status, 400);
  t.match(reg.body.error, { code: 'AUTH_PASSWORD_WEAK', details: { min_score: 3, fields: [{ path: 'password' }] } });
  const made = await call(app, 'POST', '/v1/admin/accounts', { token: admin.access_token, body: { email: 'dev@example.test', password: 'password1' } });
  t.equal(made.status, 400);
  t.equal(made.body.error.code, 'AUTH_PASSWORD_WEAK');
  const generated = await call(app, 'POST', '/v1/admin/accounts', { token: admin.access_token, body: { email: 'dev@example.test' } });
  t.equal(generated.status, 201, 'a generated password needs no check');
  const [n] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM users`;
  t.equal(n!.n, 2, 'the refused ones created nothing');
});
