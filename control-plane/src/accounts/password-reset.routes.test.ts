import t from 'tap';
import { startSmtpServer } from '../email/test-support.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { requestPasswordReset } from './password-reset.js';
import { currentTotp } from './totp.js';

/*
 * Password reset by e-mail (docs/api/accounts.md "Passwords"): forgot answers the same for any
 * address and mails a single-use link to the console's /reset-password; reset checks the token
 * (unknown, used, expired: 400 VALIDATION_FAILED details.reason), the second factor, strength and
 * reuse; then verifies the address, ends every session and opens a new one.
 */

const FAST = { delivery_poll_interval_ms: 50, delivery_retry_delays_ms: [50, 50, 50] };

/** The prt_ token in a reset e-mail's text body (the link's `token` parameter). */
function tokenOf(text: string): string {
  const m = /https:\/\/console\.vantage\.example\/reset-password\?token=(prt_[0-9a-z]+)/.exec(text);
  if (!m) throw new Error(`no reset link in: ${text}`);
  return m[1]!;
}

async function setup(t: any, config: Record<string, unknown> = {}) {
  const smtp = await startSmtpServer(t);
  const env = await testApp(t, { config: { ...FAST, smtp_url: smtp.smtp_url, public_url: 'https://console.vantage.example/', ...config }, delivery: true });
  return { ...env, smtp };
}

t.test('forgot → e-mailed link → reset: password set, address verified, every session ended, new session opened', async (t) => {
  const { app, sql, smtp, deps } = await setup(t);
  const u = await registerUser(app, 'Reset.Me@example.test');
  await smtp.waitFor(1); // verification e-mail
  const asked = await call(app, 'POST', '/v1/auth/password/forgot', { body: { email: 'reset.me@EXAMPLE.test' } });
  const unknown = await call(app, 'POST', '/v1/auth/password/forgot', { body: { email: 'nobody@example.test' } });
  t.equal(asked.status, 200);
  t.same(unknown.body.data, asked.body.data, 'the same answer whether or not an account has the address');
  t.equal(unknown.status, 200);
  const [, mail] = await smtp.waitFor(2);
  t.same(mail!.to, ['Reset.Me@example.test']);
  t.equal(mail!.parsed.subject, 'Reset your Vantage password');
  t.match(String(mail!.parsed.html), /<a href="https:\/\/console\.vantage\.example\/reset-password\?token=prt_/);
  const token = tokenOf(mail!.parsed.text!);
  const [stored] = await sql<{ token_hash: string; ttl_s: number }[]>`SELECT token_hash, extract(epoch FROM expires_at - created_at)::int AS ttl_s FROM password_reset_tokens`;
  t.not(stored!.token_hash, token, 'only a hash is stored');
  t.equal(stored!.ttl_s, 3600, 'valid 60 minutes');

  const weak = await call(app, 'POST', '/v1/auth/password/reset', { body: { token, new_password: 'reset.me2024' } });
  t.equal(weak.status, 400);
  t.equal(weak.body.error.code, 'AUTH_PASSWORD_WEAK', 'strength rule, with the address as a known word');
  const reused = await call(app, 'POST', '/v1/auth/password/reset', { body: { token, new_password: u.password } });
  t.equal(reused.body.error.code, 'AUTH_PASSWORD_REUSED');

  const reset = await call(app, 'POST', '/v1/auth/password/reset', { body: { token, new_password: 'staple-orbit-lantern-42' } });
  t.equal(reset.status, 200, JSON.stringify(reset.body));
  t.match(reset.body.data, { access_token: String, token_type: 'Bearer', refresh_token: /^rt_/, user_id: u.user_id });
  const profile = await call(app, 'GET', '/v1/account/profile', { token: reset.body.data.access_token });
  t.equal(profile.status, 200, 'the new session works');
  t.equal(profile.body.data.email_verified, true, 'the link proved the mailbox: address verified');
  t.equal((await call(app, 'GET', '/v1/account/profile', { token: u.access_token })).body.error.code, 'AUTH_SESSION_INVALID', 'earlier sessions ended');
  t.equal((await call(app, 'POST', '/v1/auth/login', { body: { email: u.email, password: 'staple-orbit-lantern-42' } })).status, 200);
  t.equal((await call(app, 'POST', '/v1/auth/login', { body: { email: u.email, password: u.password } })).status, 401);

  const again = await call(app, 'POST', '/v1/auth/password/reset', { body: { token, new_password: 'another-orbit-lantern-43' } });
  t.equal(again.status, 400);
  t.match(again.body.error, { code: 'VALIDATION_FAILED', details: { reason: 'token_used', fields: [{ path: 'token' }] } });
  const notice = (await smtp.waitFor(3))[2]!;
  t.equal(notice.parsed.subject, 'Your Vantage password was changed');
  t.match(notice.parsed.text, /reset through an e-mailed link/);
  t.equal(await requestPasswordReset(deps, 'nobody@example.test'), 'no_account', 'an unknown address gets nothing');
  t.equal(smtp.messages.filter((m) => m.to.includes('nobody@example.test')).length, 0);
});

t.test('unknown, expired and garbage tokens: 400 with the reason; nothing changes', async (t) => {
  const { app, sql, smtp } = await setup(t);
  const u = await registerUser(app);
  await call(app, 'POST', '/v1/auth/password/forgot', { body: { email: u.email } });
  const token = tokenOf((await smtp.waitFor(2))[1]!.parsed.text!);
  await sql`UPDATE password_reset_tokens SET expires_at = now() - interval '1 second'`;
  const cases: Array<[string, string, string]> = [
    ['expired', token, 'token_expired'],
    ['unknown', 'prt_00000000000000000000000000000000', 'token_unknown'],
    ['garbage', 'not-a-token', 'token_unknown'],
  ];
  for (const [what, tok, reason] of cases) {
    const r = await call(app, 'POST', '/v1/auth/password/reset', { body: { token: tok, new_password: 'staple-orbit-lantern-42' } });
    t.equal(r.status, 400, what);
    t.match(r.body.error, { code: 'VALIDATION_FAILED', details: { reason } }, what);
  }
  t.equal((await call(app, 'POST', '/v1/auth/password/reset', { body: { new_password: 'staple-orbit-lantern-42' } })).body.error.code, 'VALIDATION_FAILED', 'no token');
  t.equal((await call(app, 'GET', '/v1/account/profile', { token: u.access_token })).status, 200, 'the session still works');
  t.equal((await call(app, 'POST', '/v1/auth/login', { body: { email: u.email, password: u.password } })).status, 200, 'the password is unchanged');
});

t.test('one e-mail a minute per account; disabled accounts get none; two-factor accounts need the code', async (t) => {
  const { app, sql, smtp, deps } = await setup(t);
  const u = await registerUser(app);
  const off = await registerUser(app);
  await smtp.waitFor(2);
  await sql`UPDATE users SET status = 'disabled' WHERE id = ${off.user_id}`;
  t.equal(await requestPasswordReset(deps, u.email), 'sent');
  t.equal(await requestPasswordReset(deps, u.email.toUpperCase()), 'throttled', 'a second request within a minute sends nothing');
  t.equal(await requestPasswordReset(deps, off.email), 'no_account', 'a disabled account gets no link');
  t.equal((await call(app, 'POST', '/v1/auth/password/forgot', { body: { email: off.email } })).status, 200, 'and the same answer');
  const mails = await smtp.waitFor(3);
  const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM deliveries WHERE channel = 'email' AND event_type = 'account.password_reset'`;
  t.equal(row!.n, 1, 'one reset e-mail');
  t.same(mails[2]!.to, [u.email]);
  await sql`UPDATE password_reset_tokens SET created_at = now() - interval '61 seconds'`;
  t.equal(await requestPasswordReset(deps, u.email), 'sent', 'a minute later: a new link');
  const [first, second] = (await smtp.waitFor(4)).slice(2).map((m) => tokenOf(m.parsed.text!));

  const setup2fa = await call(app, 'POST', '/v1/account/2fa/setup', { token: u.access_token });
  const secret = setup2fa.body.data.secret as string;
  t.equal((await call(app, 'POST', '/v1/account/2fa/enable', { token: u.access_token, body: { code: currentTotp(secret) } })).status, 200);
  const without = await call(app, 'POST', '/v1/auth/password/reset', { body: { token: first, new_password: 'staple-orbit-lantern-42' } });
  t.equal(without.status, 401);
  t.equal(without.body.error.code, 'AUTH_2FA_REQUIRED');
  const wrongCode = String((Number(currentTotp(secret)) + 500_000) % 1_000_000).padStart(6, '0');
  const wrong = await call(app, 'POST', '/v1/auth/password/reset', { body: { token: first, new_password: 'staple-orbit-lantern-42', otp: wrongCode } });
  t.equal(wrong.body.error.code, 'AUTH_2FA_INVALID');
  const ok = await call(app, 'POST', '/v1/auth/password/reset', { body: { token: first, new_password: 'staple-orbit-lantern-42', otp: currentTotp(secret) } });
  t.equal(ok.status, 200, JSON.stringify(ok.body));
  const other = await call(app, 'POST', '/v1/auth/password/reset', { body: { token: second, new_password: 'staple-orbit-lantern-43', otp: currentTotp(secret) } });
  t.match(other.body.error, { code: 'VALIDATION_FAILED', details: { reason: 'token_used' } }, 'setting a password voids the account\'s other links');
});
