import t, { type Test } from 'tap';
import type { Config } from '../config/index.js';
import { startReceiver, type Received } from '../delivery/test-support.js';
import { call, registerUser, testApp } from '../test-support/app.js';

/*
 * Phone binding (docs/api/accounts.md "Phone"): a code goes by SMS through the deployment's
 * gateway (a real HTTP receiver on loopback here), `verify` binds the number, the profile shows
 * it masked; expiry, attempts, resend spacing, gateway failures and no gateway at all.
 */

async function setup(t: Test, config: Partial<Config> = {}) {
  const rx = await startReceiver(t, () => ({ status: 200, body: '{"ok":true}' }));
  const ctx = await testApp(t, {
    config: {
      delivery_allow_cidrs: ['127.0.0.0/8'], sms_gateway_url: rx.url, sms_gateway_headers: ['X-Api-Key: secret-1'],
      sms_gateway_body_template: '{"to":"{{.Phone}}","text":"{{.Message}}"}', phone_code_resend_s: 0, ...config,
    },
  });
  const user = await registerUser(ctx.app);
  return { ...ctx, rx, user, auth: { token: user.access_token } };
}

const codeOf = (r: Received) => /code is (\d{6})/.exec(JSON.parse(r.body).text)![1]!;

t.test('bind: SMS through the gateway, verify, masked in the profile, unbind', async (t) => {
  const { app, rx, auth } = await setup(t);
  const sent = await call(app, 'POST', '/v1/account/phone', { ...auth, body: { phone: '+44 7700 900789' } });
  t.equal(sent.status, 200, JSON.stringify(sent.body));
  t.match(sent.body.data, { phone: '+44*******789', expires_at: String, resend_after_s: 0 });
  const [req] = await rx.waitFor(1);
  t.equal(req!.method, 'POST');
  t.equal(req!.headers['x-api-key'], 'secret-1', 'configured headers sent');
  t.match(req!.headers['content-type'], /^application\/json/);
  t.equal(JSON.parse(req!.body).to, '+447700900789', 'to the normalised E.164 number');
  const code = codeOf(req!);
  t.equal((await call(app, 'GET', '/v1/account/profile', auth)).body.data.phone_verified, false, 'not bound before verify');

  const ok = await call(app, 'POST', '/v1/account/phone/verify', { ...auth, body: { code } });
  t.equal(ok.status, 200, JSON.stringify(ok.body));
  t.match(ok.body.data, { phone: '+44*******789', phone_verified: true });
  const profile = (await call(app, 'GET', '/v1/account/profile', auth)).body.data;
  t.equal(profile.phone, '+44*******789', 'masked in the profile');
  t.notMatch(JSON.stringify(profile), /7700900789/, 'never in full');
  t.equal((await call(app, 'POST', '/v1/account/phone/verify', { ...auth, body: { code } })).body.error.code, 'AUTH_OTP_INVALID', 'a code works once');

  const off = await call(app, 'DELETE', '/v1/account/phone', auth);
  t.match(off.body.data, { phone: '', phone_verified: false });
});

t.test('wrong codes count; the last one ends the binding; expiry; resend spacing', async (t) => {
  const { app, rx, sql, user, auth } = await setup(t, { phone_code_max_attempts: 3, phone_code_resend_s: 60 });
  t.equal((await call(app, 'POST', '/v1/account/phone/verify', { ...auth, body: { code: '123456' } })).body.error.code, 'AUTH_OTP_INVALID', 'nothing asked for yet');
  t.equal((await call(app, 'POST', '/v1/account/phone', { ...auth, body: { phone: '12345' } })).body.error.code, 'VALIDATION_FAILED', 'not E.164');
  t.equal((await call(app, 'POST', '/v1/account/phone/verify', { ...auth, body: { code: '12a456' } })).body.error.code, 'VALIDATION_FAILED');
  t.equal(rx.received.length, 0, 'bad input sent nothing');

  t.equal((await call(app, 'POST', '/v1/account/phone', { ...auth, body: { phone: '+8613800000000' } })).status, 200);
  const code = codeOf((await rx.waitFor(1))[0]!);
  const again = await call(app, 'POST', '/v1/account/phone', { ...auth, body: { phone: '+8613800000000' } });
  t.equal(again.status, 429, 'resend too soon');
  t.equal(again.body.error.code, 'RATE_LIMIT_EXCEEDED');
  t.ok(Number(again.headers.get('retry-after')) > 0, 'with Retry-After');
  const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
  const w1 = await call(app, 'POST', '/v1/account/phone/verify', { ...auth, body: { code: wrong } });
  t.equal(w1.status, 401);
  t.match(w1.body.error, { code: 'AUTH_OTP_INVALID', details: { attempts_left: 2 } });
  t.equal((await call(app, 'POST', '/v1/account/phone/verify', { ...auth, body: { code: wrong } })).body.error.details.attempts_left, 1);
  const w3 = await call(app, 'POST', '/v1/account/phone/verify', { ...auth, body: { code: wrong } });
  t.equal(w3.status, 429);
  t.equal(w3.body.error.code, 'AUTH_OTP_ATTEMPTS_EXCEEDED', 'the last attempt ends it');
  t.equal((await call(app, 'POST', '/v1/account/phone/verify', { ...auth, body: { code } })).body.error.code, 'AUTH_OTP_INVALID', 'even the right code is then refused');
  t.equal((await call(app, 'GET', '/v1/account/profile', auth)).body.data.phone_verified, false, 'nothing bound');

  await sql`UPDATE phone_verifications SET created_at = now() - interval '2 minutes' WHERE user_id = ${user.user_id}`;
  t.equal((await call(app, 'POST', '/v1/account/phone', { ...auth, body: { phone: '+8613800000000' } })).status, 200, 'a new code after the spacing');
  const code2 = codeOf((await rx.waitFor(2))[1]!);
  await sql`UPDATE phone_verifications SET expires_at = now() - interval '1 second' WHERE user_id = ${user.user_id}`;
  const late = await call(app, 'POST', '/v1/account/phone/verify', { ...auth, body: { code: code2 } });
  t.equal(late.status, 401);
  t.equal(late.body.error.code, 'AUTH_OTP_EXPIRED');
});

t.test('no gateway configured, or the gateway fails: 503, nothing pending', async (t) => {
  const none = await testApp(t);
  const u = await registerUser(none.app);
  const r = await call(none.app, 'POST', '/v1/account/phone', { token: u.access_token, body: { phone: '+447700900789' } });
  t.equal(r.status, 503);
  t.match(r.body.error, { code: 'UNAVAILABLE', details: { setting: 'VANTAGE_SMS_GATEWAY_URL' } });
  t.equal((await none.sql`SELECT 1 FROM phone_verifications`).length, 0);

  const { app, rx, sql, auth } = await setup(t, { phone_code_resend_s: 60 });
  rx.setAnswer(() => ({ status: 500, body: 'down' }));
  const failed = await call(app, 'POST', '/v1/account/phone', { ...auth, body: { phone: '+447700900789' } });
  t.equal(failed.status, 503);
  t.match(failed.body.error, { code: 'UNAVAILABLE', details: { reason: 'HTTP 500' } });
  t.equal((await sql`SELECT 1 FROM phone_verifications`).length, 0, 'the failed code is dropped');
  rx.setAnswer(() => ({ status: 200 }));
  t.equal((await call(app, 'POST', '/v1/account/phone', { ...auth, body: { phone: '+447700900789' } })).status, 200, 'so asking again works at once');
});

t.test('at most phone_code_sends_per_hour SMS per account, whatever the numbers', async (t) => {
  const { app, rx, auth } = await setup(t, { phone_code_sends_per_hour: 2 });
  for (const phone of ['+447700900001', '+447700900002']) t.equal((await call(app, 'POST', '/v1/account/phone', { ...auth, body: { phone } })).status, 200);
  const third = await call(app, 'POST', '/v1/account/phone', { ...auth, body: { phone: '+447700900003' } });
  t.equal(third.status, 429);
  t.match(third.body.error, { code: 'RATE_LIMIT_EXCEEDED', details: { limit: 2, window_s: 3600 } });
  await rx.waitFor(2);
  t.equal(rx.received.length, 2, 'the third SMS was not sent');
});

t.test('one account per number: taken before the code or between code and verify → 409; unbinding frees it', async (t) => {
  const { app, rx, auth } = await setup(t);
  const other = await registerUser(app);
  const otherAuth = { token: other.access_token };
  const phone = '+44 7700 900123';
  // Both accounts ask for a code before either binds.
  t.equal((await call(app, 'POST', '/v1/account/phone', { ...auth, body: { phone } })).status, 200);
  t.equal((await call(app, 'POST', '/v1/account/phone', { ...otherAuth, body: { phone } })).status, 200);
  const [first, second] = await rx.waitFor(2);
  t.equal((await call(app, 'POST', '/v1/account/phone/verify', { ...auth, body: { code: codeOf(first!) } })).status, 200, 'the first binds');
  const late = await call(app, 'POST', '/v1/account/phone/verify', { ...otherAuth, body: { code: codeOf(second!) } });
  t.equal(late.status, 409, JSON.stringify(late.body));
  t.match(late.body.error, { code: 'CONFLICT', details: { field: 'phone' } });
  t.equal((await call(app, 'GET', '/v1/account/profile', otherAuth)).body.data.phone_verified, false, 'the second is not bound');

  const again = await call(app, 'POST', '/v1/account/phone', { ...otherAuth, body: { phone } });
  t.equal(again.status, 409, 'asking for a code to a taken number is refused');
  t.equal(rx.received.length, 2, 'and no SMS is sent');

  t.equal((await call(app, 'DELETE', '/v1/account/phone', auth)).status, 200);
  t.equal((await call(app, 'POST', '/v1/account/phone', { ...otherAuth, body: { phone } })).status, 200, 'free again once unbound');
});
