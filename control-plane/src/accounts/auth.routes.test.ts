import t from 'tap';
import { SignJWT, UnsecuredJWT } from 'jose';
import { currentTotp } from './totp.js';
import { jwtKey } from './jwt.js';
import { call, registerUser, testApp } from '../test-support/app.js';

t.test('auth: register, login, 2FA, refresh, logout', async (t) => {
  const { app, deps, sql } = await testApp(t);

  t.test('register then login; duplicate email (any case) is 409', async (t) => {
    const u = await registerUser(app);
    t.equal(u.access_token.split('.').length, 3, 'JWT');
    const again = await call(app, 'POST', '/v1/auth/register', { body: { email: u.email.toUpperCase(), password: 'another-password' } });
    t.equal(again.status, 409);
    t.equal(again.body.error.code, 'ACCOUNT_EMAIL_TAKEN');
    const login = await call(app, 'POST', '/v1/auth/login', { body: { email: u.email, password: u.password } });
    t.equal(login.status, 200);
    t.equal(login.body.data.token_type, 'Bearer');
    t.equal(login.body.data.expires_in, 900);
    t.match(login.body.data.refresh_token, /^rt_/);
    const [row] = await sql`SELECT password_hash FROM users WHERE id = ${u.user_id}`;
    t.match(row!.password_hash, /^\$argon2id\$v=19\$m=65536,t=3,p=1\$/, 'argon2id hash with its parameters');
    t.notMatch(row!.password_hash, u.password);
  });

  t.test('wrong password and unknown email answer alike', async (t) => {
    const u = await registerUser(app);
    const a = await call(app, 'POST', '/v1/auth/login', { body: { email: u.email, password: 'wrong-password' } });
    const b = await call(app, 'POST', '/v1/auth/login', { body: { email: 'nobody@example.test', password: 'wrong-password' } });
    t.equal(a.status, 401);
    t.equal(a.body.error.code, 'AUTH_CREDENTIALS_INVALID');
    t.equal(b.body.error.code, 'AUTH_CREDENTIALS_INVALID');
    t.equal(a.body.error.message, b.body.error.message);
  });

  t.test('2FA: setup, enable with a code, login needs otp, disable', async (t) => {
    const u = await registerUser(app);
    const early = await call(app, 'POST', '/v1/account/2fa/enable', { token: u.access_token, body: { code: '000000' } });
    t.equal(early.body.error.code, 'AUTH_2FA_SETUP_REQUIRED');
    const setup = await call(app, 'POST', '/v1/account/2fa/setup', { token: u.access_token });
    t.equal(setup.status, 200);
    t.match(setup.body.data.otpauth_uri, /^otpauth:\/\/totp\//);
    const secret: string = setup.body.data.secret;
    const wrong = await call(app, 'POST', '/v1/account/2fa/enable', { token: u.access_token, body: { code: currentTotp(secret) === '123456' ? '654321' : '123456' } });
    t.equal(wrong.body.error.code, 'AUTH_2FA_INVALID');
    const enable = await call(app, 'POST', '/v1/account/2fa/enable', { token: u.access_token, body: { code: currentTotp(secret) } });
    t.equal(enable.status, 200);
    t.equal(enable.body.data.ok, true);
    t.equal(enable.body.data.recovery_codes.length, 10, 'with 10 recovery codes (recovery-codes.routes.test.ts)');

    const noOtp = await call(app, 'POST', '/v1/auth/login', { body: { email: u.email, password: u.password } });
    t.equal(noOtp.status, 401);
    t.equal(noOtp.body.error.code, 'AUTH_2FA_REQUIRED');
    const badOtp = await call(app, 'POST', '/v1/auth/login', { body: { email: u.email, password: u.password, otp: 'abcdef' } });
    t.equal(badOtp.body.error.code, 'AUTH_2FA_INVALID');
    const withOtp = await call(app, 'POST', '/v1/auth/login', { body: { email: u.email, password: u.password, otp: currentTotp(secret) } });
    t.equal(withOtp.status, 200);
    const profile = await call(app, 'GET', '/v1/account/profile', { token: u.access_token });
    t.equal(profile.body.data.two_factor_enabled, true);

    const disable = await call(app, 'POST', '/v1/account/2fa/disable', { token: u.access_token, body: { code: currentTotp(secret) } });
    t.equal(disable.status, 200);
    const plain = await call(app, 'POST', '/v1/auth/login', { body: { email: u.email, password: u.password } });
    t.equal(plain.status, 200);
  });

  t.test('refresh rotates; reuse of an old refresh token revokes the session', async (t) => {
    const u = await registerUser(app);
    const r1 = await call(app, 'POST', '/v1/auth/refresh', { body: { refresh_token: u.refresh_token } });
    t.equal(r1.status, 200);
    t.not(r1.body.data.refresh_token, u.refresh_token);
    t.equal((await call(app, 'GET', '/v1/account/profile', { token: r1.body.data.access_token })).status, 200);
    const reuse = await call(app, 'POST', '/v1/auth/refresh', { body: { refresh_token: u.refresh_token } });
    t.equal(reuse.status, 401);
    t.equal(reuse.body.error.code, 'AUTH_SESSION_INVALID');
    const after = await call(app, 'GET', '/v1/account/profile', { token: r1.body.data.access_token });
    t.equal(after.body.error.code, 'AUTH_SESSION_INVALID', 'the whole session is revoked');
    const r2 = await call(app, 'POST', '/v1/auth/refresh', { body: { refresh_token: r1.body.data.refresh_token } });
    t.equal(r2.body.error.code, 'AUTH_SESSION_INVALID');
    const [stored] = await sql`
      SELECT (SELECT count(*) FROM sessions WHERE refresh_hash = ${u.refresh_token})
           + (SELECT count(*) FROM session_refresh_history WHERE token_hash = ${u.refresh_token}) AS n`;
    t.equal(Number(stored!.n), 0, 'refresh tokens are stored only as hashes');
  });

  t.test('reuse of ANY earlier refresh token (not only the last one) revokes the session', async (t) => {
    for (const [name, pick] of [['the first', 0], ['the second of four', 1], ['the one before last', 2]] as const) {
      const u = await registerUser(app);
      const tokens = [u.refresh_token];
      let access = u.access_token;
      for (let i = 0; i < 3; i++) {
        const r = await call(app, 'POST', '/v1/auth/refresh', { body: { refresh_token: tokens.at(-1) } });
        t.equal(r.status, 200, `${name}: rotation ${i + 1}`);
        tokens.push(r.body.data.refresh_token);
        access = r.body.data.access_token;
      }
      const reuse = await call(app, 'POST', '/v1/auth/refresh', { body: { refresh_token: tokens[pick] } });
      t.equal(reuse.status, 401, name);
      t.equal(reuse.body.error.code, 'AUTH_SESSION_INVALID', name);
      const current = await call(app, 'POST', '/v1/auth/refresh', { body: { refresh_token: tokens.at(-1) } });
      t.equal(current.body.error.code, 'AUTH_SESSION_INVALID', `${name}: the current refresh token died with the session`);
      const profile = await call(app, 'GET', '/v1/account/profile', { token: access });
      t.equal(profile.body.error.code, 'AUTH_SESSION_INVALID', `${name}: so did the access token`);
      const [row] = await sql`SELECT revoked_at FROM sessions WHERE user_id = ${u.user_id}`;
      t.ok(row!.revoked_at, `${name}: the session row is revoked`);
    }
  });

  t.test('concurrent refreshes with one token: one wins, the session is then revoked as reuse', async (t) => {
    const u = await registerUser(app);
    const both = await Promise.all([1, 2].map(() => call(app, 'POST', '/v1/auth/refresh', { body: { refresh_token: u.refresh_token } })));
    t.same(both.map((r) => r.status).sort(), [200, 401]);
    const winner = both.find((r) => r.status === 200)!;
    const next = await call(app, 'POST', '/v1/auth/refresh', { body: { refresh_token: winner.body.data.refresh_token } });
    t.equal(next.body.error.code, 'AUTH_SESSION_INVALID');
  });

  t.test('logout revokes the session at once', async (t) => {
    const u = await registerUser(app);
    const out = await call(app, 'POST', '/v1/auth/logout', { token: u.access_token });
    t.equal(out.status, 200);
    t.equal(out.body.data, null);
    const after = await call(app, 'GET', '/v1/account/profile', { token: u.access_token });
    t.equal(after.status, 401);
    t.equal(after.body.error.code, 'AUTH_SESSION_INVALID');
    const refresh = await call(app, 'POST', '/v1/auth/refresh', { body: { refresh_token: u.refresh_token } });
    t.equal(refresh.body.error.code, 'AUTH_SESSION_INVALID');
  });

  t.test('forged and expired tokens', async (t) => {
    const u = await registerUser(app);
    const [session] = await sql`SELECT id FROM sessions WHERE user_id = ${u.user_id}`;
    const claims = { sid: session!.id };
    const otherKey = new TextEncoder().encode('another-key-another-key-another-key!!');
    const realKey = await jwtKey(deps);
    const forged = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setSubject(u.user_id).setIssuer('vantage').setExpirationTime('10m').sign(otherKey);
    const none = new UnsecuredJWT(claims).setSubject(u.user_id).setIssuer('vantage').setExpirationTime('10m').encode();
    const expired = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setSubject(u.user_id).setIssuer('vantage').setIssuedAt(Math.floor(Date.now() / 1000) - 2000).setExpirationTime(Math.floor(Date.now() / 1000) - 1000).sign(realKey);
    const otherUser = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setSubject('u_01m80vjzm7dwga17rkkd8hy5c4').setIssuer('vantage').setIssuedAt().setExpirationTime('10m').sign(realKey);
    const now_s = Math.floor(Date.now() / 1000);
    const sign = (build: (j: SignJWT) => SignJWT) => build(new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setSubject(u.user_id).setIssuer('vantage')).sign(realKey);
    const noExp = await sign((j) => j.setIssuedAt());
    const noIat = await sign((j) => j.setExpirationTime('10m'));
    const farExp = await sign((j) => j.setIssuedAt().setExpirationTime('10y'));
    const oldIat = await sign((j) => j.setIssuedAt(now_s - 3600).setExpirationTime(now_s + 600));
    const futureIat = await sign((j) => j.setIssuedAt(now_s + 3600).setExpirationTime(now_s + 4000));
    const noSid = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(u.user_id).setIssuer('vantage').setIssuedAt().setExpirationTime('10m').sign(realKey);
    const badSid = await new SignJWT({ sid: 'ses_\u0000' }).setProtectedHeader({ alg: 'HS256' }).setSubject(u.user_id).setIssuer('vantage').setIssuedAt().setExpirationTime('10m').sign(realKey);
    const stringExp = await new SignJWT({ ...claims, exp: 'never' as unknown as number }).setProtectedHeader({ alg: 'HS256' }).setSubject(u.user_id).setIssuer('vantage').setIssuedAt().sign(realKey);
    const [payload] = u.access_token.split('.').slice(1, 2);
    const tampered = u.access_token.replace(payload!, Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), sub: 'u_x' })).toString('base64url'));
    const cases: Array<[string, string, string]> = [
      ['signed with another key', forged, 'AUTH_INVALID_TOKEN'],
      ['alg none', none, 'AUTH_INVALID_TOKEN'],
      ['tampered payload', tampered, 'AUTH_INVALID_TOKEN'],
      ['expired', expired, 'AUTH_EXPIRED'],
      ['session of another user', otherUser, 'AUTH_SESSION_INVALID'],
      ['no exp (would never expire)', noExp, 'AUTH_INVALID_TOKEN'],
      ['no iat', noIat, 'AUTH_INVALID_TOKEN'],
      ['exp ten years out, iat now: valid only because it is young', farExp, ''],
      ['iat an hour ago, exp still ahead: older than 900 s', oldIat, 'AUTH_EXPIRED'],
      ['iat in the future', futureIat, 'AUTH_INVALID_TOKEN'],
      ['no sid', noSid, 'AUTH_INVALID_TOKEN'],
      ['exp not a number', stringExp, 'AUTH_INVALID_TOKEN'],
      ['sid not a session id (NUL inside)', badSid, 'AUTH_INVALID_TOKEN'],
      ['garbage', 'not.a.jwt', 'AUTH_INVALID_TOKEN'],
      ['MCP token', 'svc_mcp_abcdefabcdefabcdefabcdefabcdefab', 'AUTH_INVALID_TOKEN'],
    ];
    for (const [name, token, code] of cases) {
      const r = await call(app, 'GET', '/v1/account/profile', { token });
      if (code === '') {
        t.equal(r.status, 200, name);
        continue;
      }
      t.equal(r.status, 401, name);
      t.equal(r.body.error.code, code, name);
    }
    const basic = await call(app, 'GET', '/v1/account/profile', { headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    t.equal(basic.body.error.code, 'AUTH_INVALID_TOKEN', 'non-Bearer scheme');
    const anon = await call(app, 'GET', '/v1/account/profile');
    t.equal(anon.body.error.code, 'AUTH_REQUIRED');
  });
});
