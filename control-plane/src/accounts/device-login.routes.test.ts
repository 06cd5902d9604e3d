import t from 'tap';
import { call, createApiKey, registerUser, testApp } from '../test-support/app.js';

/** Start a QR-code login over a real socket (so the requester's address is 127.0.0.1). */
async function start(url: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}/v1/auth/device`, { method: 'POST', headers: { 'user-agent': 'KioskBrowser/1.0' } });
  return { status: res.status, body: await res.json() };
}

t.test('QR-code login: start, pending, approve from a signed-in session, tokens once', async (t) => {
  const { app, url, sql } = await testApp(t, { config: { public_url: 'https://vantage.example/' } });
  const u = await registerUser(app);
  const started = await start(url);
  t.equal(started.status, 200);
  const d = started.body.data;
  t.match(d.device_code, /^dc_[0-9a-z]{32}$/);
  t.match(d.user_code, /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
  t.equal(d.verification_uri, 'https://vantage.example/device');
  t.equal(d.verification_uri_complete, `https://vantage.example/device?user_code=${d.user_code}`);
  t.match(d.qr_svg, /^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"[\s\S]*<path[\s\S]*<\/svg>\s*$/);
  t.equal(d.expires_in, 600);
  t.equal(d.interval, 5);
  const [row] = await sql<{ device_code_hash: string; user_code_hash: string }[]>`SELECT device_code_hash, user_code_hash FROM device_authorizations`;
  t.not(row!.device_code_hash, d.device_code, 'only a hash of the device code is stored');
  t.notOk(row!.user_code_hash.includes(d.user_code.replace('-', '')), 'nor the user code');

  const poll = () => call(app, 'POST', '/v1/auth/device/token', { body: { device_code: d.device_code } });
  const pending = await poll();
  t.equal(pending.status, 202);
  t.match(pending.body.data, { status: 'authorization_pending', interval: 5 });
  t.ok(pending.body.data.expires_in > 590 && pending.body.data.expires_in <= 600);
  const fast = await poll();
  t.equal(fast.status, 429, 'polled sooner than the interval');
  t.match(fast.body.error, { code: 'RATE_LIMIT_EXCEEDED', details: { error: 'slow_down', interval: 10 } });
  t.equal(fast.headers.get('retry-after'), '10');
  await sql`UPDATE device_authorizations SET last_polled_at = now() - interval '11 seconds'`;
  const later = await poll();
  t.equal(later.status, 202, 'waiting the interval is fine');
  t.equal(later.body.data.interval, 10, 'the interval stays raised');

  // The signed-in device reads it (the code typed in any case, with or without the dash).
  const typed = d.user_code.toLowerCase().replace('-', '');
  const seen = await call(app, 'GET', `/v1/account/device/${typed}`, { token: u.access_token });
  t.equal(seen.status, 200);
  t.match(seen.body.data, { user_code: d.user_code, status: 'pending', requester_ip: '127.0.0.1', user_agent: 'KioskBrowser/1.0' });
  t.ok(Date.parse(seen.body.data.expires_at) - Date.parse(seen.body.data.created_at) === 600_000);
  t.equal((await call(app, 'GET', '/v1/account/device/BBBB-BBBB', { token: u.access_token })).status, 404, 'a wrong code');
  t.equal((await call(app, 'GET', '/v1/account/device/AAAA-AAAA', { token: u.access_token })).status, 404, 'letters outside the alphabet');
  t.equal((await call(app, 'GET', `/v1/account/device/${typed}`)).status, 401, 'needs a credential');
  const key = await createApiKey(app, u.access_token);
  const byKey = await call(app, 'POST', `/v1/account/device/${typed}/approve`, { token: key.key });
  t.equal(byKey.status, 403, 'an API key cannot sign a browser in');

  const approved = await call(app, 'POST', `/v1/account/device/${d.user_code}/approve`, { token: u.access_token });
  t.equal(approved.status, 200);
  t.same(approved.body.data, { user_code: d.user_code, status: 'approved' });
  const tokens = await poll();
  t.equal(tokens.status, 200, 'the token response right after approval');
  t.equal(tokens.body.data.user_id, u.user_id);
  t.equal(tokens.body.data.token_type, 'Bearer');
  const me = await call(app, 'GET', '/v1/account/profile', { token: tokens.body.data.access_token });
  t.equal(me.body.data.id, u.user_id, 'the waiting browser is signed in to the approving account');
  const twice = await poll();
  t.equal(twice.status, 401, 'tokens are handed out once');
  t.match(twice.body.error, { code: 'AUTH_SESSION_INVALID', details: { error: 'invalid_grant' } });
  t.equal((await call(app, 'POST', `/v1/account/device/${d.user_code}/approve`, { token: u.access_token })).status, 404, 'a used code is gone');
  t.equal((await call(app, 'POST', '/v1/auth/device/token', { body: { device_code: 'dc_nothing' } })).body.error.code, 'AUTH_SESSION_INVALID', 'an unknown device code');
  t.equal((await call(app, 'POST', '/v1/auth/device/token', { body: {} })).status, 400);
});

t.test('denied and expired requests', async (t) => {
  const { app, url, sql } = await testApp(t);
  const u = await registerUser(app);
  const denied = (await start(url)).body.data;
  const d = await call(app, 'POST', `/v1/account/device/${denied.user_code}/deny`, { token: u.access_token });
  t.same(d.body.data, { user_code: denied.user_code, status: 'denied' });
  const refused = await call(app, 'POST', '/v1/auth/device/token', { body: { device_code: denied.device_code } });
  t.equal(refused.status, 403);
  t.match(refused.body.error, { code: 'FORBIDDEN', details: { error: 'access_denied' } });
  t.equal((await call(app, 'POST', `/v1/account/device/${denied.user_code}/approve`, { token: u.access_token })).status, 404, 'a denied request cannot be approved later');

  const old = (await start(url)).body.data;
  await sql`UPDATE device_authorizations SET expires_at = now() - interval '1 second' WHERE status = 'pending'`;
  const expired = await call(app, 'POST', '/v1/auth/device/token', { body: { device_code: old.device_code } });
  t.equal(expired.status, 401);
  t.match(expired.body.error, { code: 'AUTH_OTP_EXPIRED', details: { error: 'expired_token' } });
  t.equal((await call(app, 'GET', `/v1/account/device/${old.user_code}`, { token: u.access_token })).status, 404, 'an expired code is gone');
  t.equal((await call(app, 'POST', `/v1/account/device/${old.user_code}/approve`, { token: u.access_token })).status, 404);
});

t.test('user-code look-ups are limited per account', async (t) => {
  const { app } = await testApp(t);
  const u = await registerUser(app);
  for (let i = 0; i < 30; i++) {
    const r = await call(app, 'GET', '/v1/account/device/BBBB-BBBB', { token: u.access_token });
    if (r.status !== 404) t.fail(`look-up ${i + 1}: ${r.status}`);
  }
  const over = await call(app, 'GET', '/v1/account/device/BBBB-BBBB', { token: u.access_token });
  t.equal(over.status, 429);
  t.ok(Number(over.headers.get('retry-after')) >= 1);
  const other = await registerUser(app);
  t.equal((await call(app, 'GET', '/v1/account/device/BBBB-BBBB', { token: other.access_token })).status, 404, 'another account has its own budget');
});

t.test('two polls racing after approval: exactly one gets the tokens', async (t) => {
  const { app, url } = await testApp(t);
  const u = await registerUser(app);
  for (let round = 0; round < 5; round++) {
    const d = (await start(url)).body.data;
    t.equal((await call(app, 'POST', `/v1/account/device/${d.user_code}/approve`, { token: u.access_token })).status, 200);
    const polls = await Promise.all([1, 2, 3].map(() => call(app, 'POST', '/v1/auth/device/token', { body: { device_code: d.device_code } })));
    t.same(polls.map((p) => p.status).sort(), [200, 401, 401], `round ${round + 1}`);
  }
});
