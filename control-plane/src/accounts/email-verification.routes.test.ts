import { SignJWT } from 'jose';
import t from 'tap';
import { eventually } from '../delivery/test-support.js';
import { startSmtpServer } from '../email/test-support.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { jwtKey } from './jwt.js';

const FAST = { delivery_poll_interval_ms: 50, delivery_retry_delays_ms: [50, 50, 50] };

/** The token in the verification link of a received e-mail's text body. */
function tokenOf(text: string): string {
  const m = /\/v1\/auth\/verify-email\?token=([^\s]+)/.exec(text);
  if (!m) throw new Error(`no verification link in: ${text}`);
  return decodeURIComponent(m[1]!);
}

t.test('registration e-mails a verification link over SMTP; following it verifies the address', async (t) => {
  const smtp = await startSmtpServer(t);
  const { app, sql } = await testApp(t, { config: { ...FAST, smtp_url: smtp.smtp_url, smtp_from: 'Vantage <noreply@vantage.test>', public_url: 'https://vantage.example' }, delivery: true });
  const reg = await call(app, 'POST', '/v1/auth/register', { body: { email: 'Ada@Example.test', password: 'correct-horse-1' } });
  t.equal(reg.status, 201);
  t.equal(reg.body.meta.verification_email, 'queued', 'the API says the e-mail is on its way');
  const [mail] = await smtp.waitFor(1);
  t.same(mail!.to.map((a) => a.toLowerCase()), ['ada@example.test']);
  t.equal(mail!.from, 'noreply@vantage.test');
  t.equal(mail!.parsed.subject, 'Verify your e-mail address for Vantage');
  t.match(mail!.parsed.messageId, /^<msg_[0-9a-z]{26}@vantage\.test>$/, 'Message-ID is the stable message id');
  t.match(mail!.parsed.text, /https:\/\/vantage\.example\/v1\/auth\/verify-email\?token=/, 'text body carries the link');
  t.match(String(mail!.parsed.html), /<a href="https:\/\/vantage\.example\/v1\/auth\/verify-email\?token=/, 'HTML body too');
  const token = tokenOf(mail!.parsed.text!);

  const before = await call(app, 'GET', '/v1/account/profile', { token: reg.body.data.access_token });
  t.equal(before.body.data.email_verified, false);
  const verified = await call(app, 'GET', `/v1/auth/verify-email?token=${encodeURIComponent(token)}`);
  t.equal(verified.status, 200);
  t.match(verified.body.data, { email: 'Ada@Example.test', email_verified: true });
  const after = await call(app, 'GET', '/v1/account/profile', { token: reg.body.data.access_token });
  t.equal(after.body.data.email_verified, true, 'email_verified becomes true');
  t.equal((await call(app, 'POST', '/v1/auth/verify-email', { body: { token } })).status, 200, 'following the link again is harmless');

  const resend = await call(app, 'POST', '/v1/auth/verify-email/resend', { token: reg.body.data.access_token });
  t.equal(resend.status, 409, 'nothing to resend once verified');
  // The SMTP server has the message before the delivery worker reads the server's reply and
  // records the attempt: wait for the record, not for the mail alone.
  const row = await eventually('the e-mail delivery recorded', async () => {
    const [r] = await sql<{ status: string; attempts: number }[]>`SELECT status, attempts FROM deliveries WHERE channel = 'email'`;
    return r && r.status !== 'pending' ? r : null;
  });
  t.match(row, { status: 'succeeded', attempts: 1 }, 'the e-mail went through the delivery engine');
});

t.test('resend: at most once a minute, then a new e-mail', async (t) => {
  const smtp = await startSmtpServer(t);
  const { app, sql } = await testApp(t, { config: { ...FAST, smtp_url: smtp.smtp_url }, delivery: true });
  const u = await registerUser(app);
  await smtp.waitFor(1);
  const soon = await call(app, 'POST', '/v1/auth/verify-email/resend', { token: u.access_token });
  t.equal(soon.status, 429);
  t.equal(soon.body.error.code, 'RATE_LIMIT_EXCEEDED');
  t.ok(Number(soon.headers.get('retry-after')) >= 1 && Number(soon.headers.get('retry-after')) <= 60, 'Retry-After in seconds');
  await sql`UPDATE users SET email_verification_sent_at = now() - interval '61 seconds' WHERE id = ${u.user_id}`;
  const again = await call(app, 'POST', '/v1/auth/verify-email/resend', { token: u.access_token });
  t.equal(again.status, 200);
  t.match(again.body.data, { email_delivery: 'queued', message: new RegExp(u.email) });
  const mails = await smtp.waitFor(2);
  t.equal((await call(app, 'POST', '/v1/auth/verify-email', { body: { token: tokenOf(mails[1]!.parsed.text!) } })).status, 200, 'the new link works');
  t.equal((await call(app, 'POST', '/v1/auth/verify-email', { body: { token: tokenOf(mails[0]!.parsed.text!) } })).status, 200, 'so does the first, until it expires');
  t.equal((await call(app, 'POST', '/v1/auth/verify-email/resend')).status, 401, 'resend needs a credential');
});

t.test('expired, forged and foreign tokens are refused and verify nothing', async (t) => {
  const { app, deps } = await testApp(t);
  const u = await registerUser(app);
  const key = await jwtKey(deps);
  const sign = (claims: Record<string, unknown>, opts: { aud?: string; exp?: number; sub?: string } = {}) => new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' }).setSubject(opts.sub ?? u.user_id).setIssuer('vantage').setAudience(opts.aud ?? 'vantage:verify-email')
    .setIssuedAt().setExpirationTime(opts.exp ?? Math.floor(Date.now() / 1000) + 600).sign(key);
  const cases: Array<[string, string, number, string]> = [
    ['expired', await sign({ email: u.email }, { exp: Math.floor(Date.now() / 1000) - 10 }), 401, 'TOKEN_EXPIRED'],
    ['session access token', u.access_token, 401, 'AUTH_INVALID_TOKEN'],
    ['other audience', await sign({ email: u.email }, { aud: 'vantage' }), 401, 'AUTH_INVALID_TOKEN'],
    ['address the account does not have', await sign({ email: 'someone-else@example.test' }), 401, 'AUTH_INVALID_TOKEN'],
    ['unknown account', await sign({ email: u.email }, { sub: 'u_01jd3k6w9z4q8r2t7v5x1y3b6c' }), 401, 'AUTH_INVALID_TOKEN'],
    ['tampered', (await sign({ email: u.email })).slice(0, -2) + 'xx', 401, 'AUTH_INVALID_TOKEN'],
    ['garbage', 'not-a-token', 401, 'AUTH_INVALID_TOKEN'],
  ];
  for (const [what, token, status, code] of cases) {
    const r = await call(app, 'POST', '/v1/auth/verify-email', { body: { token } });
    t.equal(r.status, status, what);
    t.equal(r.body.error.code, code, what);
  }
  t.equal((await call(app, 'POST', '/v1/auth/verify-email', { body: {} })).status, 400, 'no token');
  t.equal((await call(app, 'GET', '/v1/auth/verify-email')).status, 400, 'no token in the link');
  t.equal((await call(app, 'GET', '/v1/account/profile', { token: u.access_token })).body.data.email_verified, false, 'still unverified');
  t.equal((await call(app, 'POST', '/v1/auth/verify-email', { body: { token: await sign({ email: u.email.toUpperCase() }) } })).status, 200, 'the address compares case-insensitively');
});

t.test('without SMTP the e-mail is logged and the API says so', async (t) => {
  const { app, sql } = await testApp(t);
  const reg = await call(app, 'POST', '/v1/auth/register', { body: { email: 'nosmtp@example.test', password: 'correct-horse-1' } });
  t.equal(reg.body.meta.verification_email, 'logged');
  await sql`UPDATE users SET email_verification_sent_at = NULL`;
  const resend = await call(app, 'POST', '/v1/auth/verify-email/resend', { token: reg.body.data.access_token });
  t.equal(resend.status, 200);
  t.match(resend.body.data, { email_delivery: 'logged', message: /no SMTP server is configured/ });
  t.equal((await sql`SELECT 1 FROM deliveries`).length, 0, 'nothing queued');
});

t.test('SMTP answers: a transient refusal (4xx) is retried, a permanent one (5xx) fails at once', async (t) => {
  const smtp = await startSmtpServer(t);
  smtp.reject(451);
  const { app, sql } = await testApp(t, { config: { ...FAST, smtp_url: smtp.smtp_url }, delivery: true });
  await registerUser(app);
  await eventually('a failed attempt', async () => ((await sql`SELECT 1 FROM delivery_attempts WHERE status_code = 451`).length > 0 ? true : null));
  smtp.reject(null);
  const [mail] = await smtp.waitFor(1);
  t.ok(mail);
  smtp.reject(550);
  await registerUser(app);
  const failed = await eventually('permanent failure', async () => {
    const rows = await sql<{ attempts: number; last_error: string }[]>`SELECT attempts, last_error FROM deliveries WHERE status = 'failed'`;
    return rows[0] ?? null;
  });
  t.equal(failed.attempts, 1, 'not retried');
});
