import t from 'tap';
import { startSmtpServer } from '../email/test-support.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { currentTotp } from './totp.js';

const FAST = { delivery_poll_interval_ms: 50, delivery_retry_delays_ms: [50, 50, 50] };

t.test('recovery codes: 10 at TOTP confirmation, each logs in once, counted in the security summary', async (t) => {
  const { app, sql } = await testApp(t);
  const u = await registerUser(app);
  const setup = await call(app, 'POST', '/v1/account/2fa/setup', { token: u.access_token });
  const secret: string = setup.body.data.secret;
  const enabled = await call(app, 'POST', '/v1/account/2fa/enable', { token: u.access_token, body: { code: currentTotp(secret) } });
  t.equal(enabled.status, 200);
  const codes: string[] = enabled.body.data.recovery_codes;
  t.equal(enabled.body.data.ok, true);
  t.equal(codes.length, 10);
  t.equal(new Set(codes).size, 10, 'all different');
  for (const c of codes) t.match(c, /^[0-9a-hjkmnp-tv-z]{4}(-[0-9a-hjkmnp-tv-z]{4}){3}$/);
  const stored = await sql<{ code_hash: string }[]>`SELECT code_hash FROM recovery_codes WHERE user_id = ${u.user_id}`;
  t.equal(stored.length, 10);
  t.notOk(stored.some((r) => codes.some((c) => r.code_hash.includes(c.replace(/-/g, '')))), 'only hashes are stored');

  let summary = await call(app, 'GET', '/v1/account/security', { token: u.access_token });
  t.equal(summary.status, 200);
  t.same(summary.body.data, { totp_enabled: true, passkeys: 0, recovery_codes_left: 10, require_2fa: false, teams_requiring_2fa: [], two_factor_required: false, setup_required: false });

  const login = (extra: Record<string, string>) => call(app, 'POST', '/v1/auth/login', { body: { email: u.email, password: u.password, ...extra } });
  t.equal((await login({})).body.error.code, 'AUTH_2FA_REQUIRED');
  const viaField = await login({ recovery_code: codes[0]! });
  t.equal(viaField.status, 200, 'recovery_code works instead of the TOTP code');
  const reused = await login({ recovery_code: codes[0]! });
  t.equal(reused.status, 401);
  t.equal(reused.body.error.code, 'AUTH_2FA_INVALID', 'each code works once');
  const viaOtp = await login({ otp: codes[1]!.toUpperCase().replace(/-/g, '') });
  t.equal(viaOtp.status, 200, 'in "otp" too, any case, with or without dashes');
  t.equal((await login({ otp: 'abcd-efgh-jkmn-pqrs' })).body.error.code, 'AUTH_2FA_INVALID', 'a made-up code');
  t.equal((await login({ otp: currentTotp(secret) })).status, 200, 'the TOTP code still works');
  summary = await call(app, 'GET', '/v1/account/security', { token: u.access_token });
  t.equal(summary.body.data.recovery_codes_left, 8);

  // New codes need a proof; the old ones stop working.
  t.equal((await call(app, 'POST', '/v1/account/recovery-codes', { token: u.access_token, body: {} })).status, 400, 'no proof');
  t.equal((await call(app, 'POST', '/v1/account/recovery-codes', { token: u.access_token, body: { code: '000000', email_code: '000000' } })).status, 400, 'two proofs');
  const bad = await call(app, 'POST', '/v1/account/recovery-codes', { token: u.access_token, body: { code: currentTotp(secret) === '000000' ? '000001' : '000000' } });
  t.equal(bad.body.error.code, 'AUTH_2FA_INVALID');
  t.equal((await call(app, 'GET', '/v1/account/security', { token: u.access_token })).body.data.recovery_codes_left, 8, 'a refused regeneration changes nothing');
  const fresh = await call(app, 'POST', '/v1/account/recovery-codes', { token: u.access_token, body: { code: currentTotp(secret) } });
  t.equal(fresh.status, 200);
  t.equal(fresh.body.data.recovery_codes.length, 10);
  t.equal((await login({ recovery_code: codes[5]! })).body.error.code, 'AUTH_2FA_INVALID', 'an old code stopped working');
  t.equal((await login({ recovery_code: fresh.body.data.recovery_codes[0] })).status, 200, 'a new one works');
});

t.test('an e-mail code confirms new recovery codes and turning TOTP off; without TOTP there are none', async (t) => {
  const smtp = await startSmtpServer(t);
  const { app } = await testApp(t, { config: { ...FAST, smtp_url: smtp.smtp_url }, delivery: true });
  const u = await registerUser(app);
  await smtp.waitFor(1);
  const none = await call(app, 'POST', '/v1/account/recovery-codes', { token: u.access_token, body: { code: '123456' } });
  t.equal(none.status, 409, 'no recovery codes without TOTP');
  const setup = await call(app, 'POST', '/v1/account/2fa/setup', { token: u.access_token });
  await call(app, 'POST', '/v1/account/2fa/enable', { token: u.access_token, body: { code: currentTotp(setup.body.data.secret) } });

  const codeFromMail = async (n: number) => {
    const mails = await smtp.waitFor(n);
    return /\b(\d{6})\b/.exec(String(mails[n - 1]!.parsed.text))![1]!;
  };
  await call(app, 'POST', '/v1/account/otp/send', { token: u.access_token });
  const first = await codeFromMail(2);
  const regenerated = await call(app, 'POST', '/v1/account/recovery-codes', { token: u.access_token, body: { email_code: first } });
  t.equal(regenerated.status, 200);
  t.equal(regenerated.body.data.recovery_codes.length, 10);
  const used = await call(app, 'POST', '/v1/account/2fa/disable', { token: u.access_token, body: { email_code: first } });
  t.equal(used.body.error.code, 'AUTH_OTP_INVALID', 'an e-mail code works once');

  await call(app, 'POST', '/v1/account/otp/send', { token: u.access_token });
  const second = await codeFromMail(3);
  const off = await call(app, 'POST', '/v1/account/2fa/disable', { token: u.access_token, body: { email_code: second } });
  t.equal(off.status, 200);
  const summary = await call(app, 'GET', '/v1/account/security', { token: u.access_token });
  t.match(summary.body.data, { totp_enabled: false, recovery_codes_left: 0 }, 'turning TOTP off drops the recovery codes');
  t.equal((await call(app, 'POST', '/v1/auth/login', { body: { email: u.email, password: u.password } })).status, 200, 'login without a second factor');
});
