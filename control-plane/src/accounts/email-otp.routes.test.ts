import t, { type Test } from 'tap';
import { startSmtpServer } from '../email/test-support.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { currentTotp } from './totp.js';

const FAST = { delivery_poll_interval_ms: 50, delivery_retry_delays_ms: [50, 50, 50] };

/** The 6-digit code of a received code e-mail (subject and text body agree). */
function codeOf(mail: { parsed: { subject?: string; text?: string | false } }): string {
  const m = /\b(\d{6})\b/.exec(String(mail.parsed.text));
  if (!m) throw new Error(`no code in: ${mail.parsed.text}`);
  if (!String(mail.parsed.subject).endsWith(m[1]!)) throw new Error('subject and body disagree');
  return m[1]!;
}

async function env(t: Test) {
  const smtp = await startSmtpServer(t);
  const made = await testApp(t, { config: { ...FAST, smtp_url: smtp.smtp_url }, delivery: true });
  return { ...made, smtp };
}

t.test('login code: sent over SMTP, logs in once; unknown addresses get the same answer and no e-mail', async (t) => {
  const { app, smtp, sql } = await env(t);
  const u = await registerUser(app);
  await smtp.waitFor(1); // the verification e-mail of the registration
  const sent = await call(app, 'POST', '/v1/auth/otp/send', { body: { email: u.email.toUpperCase() } });
  t.equal(sent.status, 200);
  const nobody = await call(app, 'POST', '/v1/auth/otp/send', { body: { email: 'nobody@example.test' } });
  t.equal(nobody.status, 200);
  t.same(nobody.body.data, sent.body.data, 'the same answer whether or not an account has the address');
  t.equal(sent.body.data.expires_in_s, 600);
  const mails = await smtp.waitFor(2);
  t.same(mails[1]!.to, [u.email], 'the code goes to the account address');
  t.match(mails[1]!.parsed.subject, /^Your Vantage sign-in code: \d{6}$/);
  const code = codeOf(mails[1]!);
  const [stored] = await sql<{ code_hash: string }[]>`SELECT code_hash FROM email_otps`;
  t.not(stored!.code_hash, code, 'only a hash is stored');
  t.notOk(stored!.code_hash.includes(code));

  const wrong = await call(app, 'POST', '/v1/auth/otp/login', { body: { email: u.email, code: code === '000000' ? '000001' : '000000' } });
  t.equal(wrong.status, 401);
  t.equal(wrong.body.error.code, 'AUTH_OTP_INVALID');
  const unknown = await call(app, 'POST', '/v1/auth/otp/login', { body: { email: 'nobody@example.test', code } });
  t.equal(unknown.body.error.code, 'AUTH_OTP_INVALID', 'an unknown address looks like a wrong code');
  const login = await call(app, 'POST', '/v1/auth/otp/login', { body: { email: u.email, code } });
  t.equal(login.status, 200);
  t.equal(login.body.data.user_id, u.user_id);
  t.equal((await call(app, 'GET', '/v1/account/profile', { token: login.body.data.access_token })).status, 200, 'the session works');
  const again = await call(app, 'POST', '/v1/auth/otp/login', { body: { email: u.email, code } });
  t.equal(again.status, 401, 'single use');
  t.equal(again.body.error.code, 'AUTH_OTP_INVALID');
  t.equal((await smtp.waitFor(2)).length, 2, 'no e-mail for the unknown address');
  t.equal((await call(app, 'POST', '/v1/auth/otp/login', { body: { email: u.email, code: '12345' } })).status, 400, 'five digits are not a code');
});

t.test('wrong codes: 5 tries, then 429 even for the right code; expiry; a new code supersedes the old', async (t) => {
  const { app, smtp, sql } = await env(t);
  const u = await registerUser(app);
  await smtp.waitFor(1);
  await call(app, 'POST', '/v1/auth/otp/send', { body: { email: u.email } });
  const code = codeOf((await smtp.waitFor(2))[1]!);
  const other = code === '999999' ? '999998' : '999999';
  for (let i = 1; i <= 5; i++) {
    const r = await call(app, 'POST', '/v1/auth/otp/login', { body: { email: u.email, code: other } });
    t.equal(r.body.error.code, 'AUTH_OTP_INVALID', `wrong try ${i}`);
  }
  const locked = await call(app, 'POST', '/v1/auth/otp/login', { body: { email: u.email, code } });
  t.equal(locked.status, 429);
  t.equal(locked.body.error.code, 'AUTH_OTP_ATTEMPTS_EXCEEDED', 'the right code no longer works either');

  await call(app, 'POST', '/v1/auth/otp/send', { body: { email: u.email } });
  const second = codeOf((await smtp.waitFor(3))[2]!);
  await call(app, 'POST', '/v1/auth/otp/send', { body: { email: u.email } });
  const third = codeOf((await smtp.waitFor(4))[3]!);
  if (second !== third) {
    const superseded = await call(app, 'POST', '/v1/auth/otp/login', { body: { email: u.email, code: second } });
    t.equal(superseded.body.error.code, 'AUTH_OTP_INVALID', 'an earlier code stops working when a new one is sent');
  }
  await sql`UPDATE email_otps SET expires_at = now() - interval '1 second' WHERE used_at IS NULL`;
  const expired = await call(app, 'POST', '/v1/auth/otp/login', { body: { email: u.email, code: third } });
  t.equal(expired.status, 401);
  t.equal(expired.body.error.code, 'AUTH_OTP_EXPIRED');
});

t.test('sends are limited per address, known or not, with the same answer', async (t) => {
  const { app, smtp } = await env(t);
  const u = await registerUser(app);
  await smtp.waitFor(1);
  for (const email of [u.email, 'ghost@example.test']) {
    for (let i = 0; i < 5; i++) t.equal((await call(app, 'POST', '/v1/auth/otp/send', { body: { email } })).status, 200);
    const sixth = await call(app, 'POST', '/v1/auth/otp/send', { body: { email } });
    t.equal(sixth.status, 429, `sixth send to ${email === u.email ? 'a known' : 'an unknown'} address`);
    t.equal(sixth.body.error.code, 'RATE_LIMIT_EXCEEDED');
    t.ok(Number(sixth.headers.get('retry-after')) >= 1);
  }
  t.equal((await smtp.waitFor(6)).length, 6, 'five codes e-mailed, all to the known address');
});

t.test('with TOTP on, an e-mail code needs the TOTP code too; disabled accounts get nothing', async (t) => {
  const { app, smtp, sql } = await env(t);
  const u = await registerUser(app);
  await smtp.waitFor(1);
  const setup = await call(app, 'POST', '/v1/account/2fa/setup', { token: u.access_token });
  await call(app, 'POST', '/v1/account/2fa/enable', { token: u.access_token, body: { code: currentTotp(setup.body.data.secret) } });
  await call(app, 'POST', '/v1/auth/otp/send', { body: { email: u.email } });
  const first = codeOf((await smtp.waitFor(2))[1]!);
  const missing = await call(app, 'POST', '/v1/auth/otp/login', { body: { email: u.email, code: first } });
  t.equal(missing.body.error.code, 'AUTH_2FA_REQUIRED');
  await call(app, 'POST', '/v1/auth/otp/send', { body: { email: u.email } });
  const second = codeOf((await smtp.waitFor(3))[2]!);
  const both = await call(app, 'POST', '/v1/auth/otp/login', { body: { email: u.email, code: second, otp: currentTotp(setup.body.data.secret) } });
  t.equal(both.status, 200);

  await sql`UPDATE users SET status = 'disabled' WHERE id = ${u.user_id}`;
  t.equal((await call(app, 'POST', '/v1/auth/otp/send', { body: { email: u.email } })).status, 200, 'same answer');
  // A later e-mail would arrive after the next one we cause; an account with a code proves none was sent.
  const v = await registerUser(app);
  await call(app, 'POST', '/v1/auth/otp/send', { body: { email: v.email } });
  const mails = await smtp.waitFor(5);
  t.notOk(mails.slice(3).some((m) => m.to.includes(u.email) && /sign-in code/.test(String(m.parsed.subject))), 'no code for a disabled account');
});

t.test('action codes: sent to the signed-in account, limited per account', async (t) => {
  const { app, smtp } = await env(t);
  const u = await registerUser(app);
  await smtp.waitFor(1);
  const sent = await call(app, 'POST', '/v1/account/otp/send', { token: u.access_token });
  t.equal(sent.status, 200);
  t.match(sent.body.data.message, u.email);
  const [, mail] = await smtp.waitFor(2);
  t.match(mail!.parsed.subject, /^Your Vantage confirmation code: \d{6}$/);
  t.equal((await call(app, 'POST', '/v1/account/otp/send')).status, 401, 'needs a credential');
  const login = await call(app, 'POST', '/v1/auth/otp/login', { body: { email: u.email, code: codeOf(mail!) } });
  t.equal(login.body.error.code, 'AUTH_OTP_INVALID', 'an action code is no login code');
  for (let i = 0; i < 4; i++) await call(app, 'POST', '/v1/account/otp/send', { token: u.access_token });
  const over = await call(app, 'POST', '/v1/account/otp/send', { token: u.access_token });
  t.equal(over.status, 429);
});
