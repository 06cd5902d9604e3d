import t from 'tap';
import { call, registerUser, testApp } from '../test-support/app.js';

// Cookie sessions for the web console (docs/api/accounts.md "Cookie sessions"): the refresh token
// travels only in an HttpOnly, Secure, SameSite=Strict cookie, rotates on refresh, and the cookie
// routes refuse other origins.

const COOKIE = { 'x-vantage-session': 'cookie', host: 'console.example.test' };
const cookieOf = (headers: Headers) => /vantage_refresh=([^;]*)/.exec(headers.get('set-cookie') ?? '')?.[1] ?? null;

t.test('login in cookie mode: cookie set, body without refresh token; refresh rotates; logout clears', async (t) => {
  const { app } = await testApp(t);
  const user = await registerUser(app);
  const login = await call(app, 'POST', '/v1/auth/login', { body: { email: user.email, password: user.password }, headers: COOKIE });
  t.equal(login.status, 200);
  t.equal(login.body.data.refresh_token, '', 'the page never sees the refresh token');
  const setCookie = login.headers.get('set-cookie') ?? '';
  for (const attr of ['HttpOnly', 'Secure', 'SameSite=Strict', 'Path=/v1/auth']) t.match(setCookie, attr);
  const first = cookieOf(login.headers);
  t.match(first, /^rt_/);

  const refreshed = await call(app, 'POST', '/v1/auth/session/refresh', { headers: { ...COOKIE, cookie: `vantage_refresh=${first}` } });
  t.equal(refreshed.status, 200);
  t.equal(refreshed.body.data.refresh_token, '');
  const second = cookieOf(refreshed.headers);
  t.not(second, first, 'rotated');
  const profile = await call(app, 'GET', '/v1/account/profile', { token: refreshed.body.data.access_token });
  t.equal(profile.status, 200, 'the new access token works');

  const reused = await call(app, 'POST', '/v1/auth/session/refresh', { headers: { ...COOKIE, cookie: `vantage_refresh=${first}` } });
  t.equal(reused.status, 401, 'a rotated-out token revokes the session');
  t.equal(reused.body.error.code, 'AUTH_SESSION_INVALID');
  t.match(reused.headers.get('set-cookie') ?? '', /vantage_refresh=; Max-Age=0/, 'and clears the cookie');

  const again = await call(app, 'POST', '/v1/auth/login', { body: { email: user.email, password: user.password }, headers: COOKIE });
  const out = await call(app, 'POST', '/v1/auth/logout', { token: again.body.data.access_token, headers: COOKIE });
  t.equal(out.status, 200);
  t.match(out.headers.get('set-cookie') ?? '', /vantage_refresh=; Max-Age=0/);
  const after = await call(app, 'POST', '/v1/auth/session/refresh', { headers: { ...COOKIE, cookie: `vantage_refresh=${cookieOf(again.headers)}` } });
  t.equal(after.status, 401, 'the logged-out session cannot be refreshed');
});

t.test('cookie routes refuse other origins, a missing header and a missing cookie; JSON mode is unchanged', async (t) => {
  const { app } = await testApp(t);
  const user = await registerUser(app);
  t.match(user.refresh_token, /^rt_/, 'without the header the body carries the refresh token as before');
  const cross = await call(app, 'POST', '/v1/auth/login', { body: { email: user.email, password: user.password }, headers: { ...COOKIE, origin: 'https://evil.example' } });
  t.equal(cross.status, 403);
  t.equal(cross.body.error.code, 'FORBIDDEN');
  t.equal(cross.headers.get('set-cookie'), null, 'no cookie for a cross-origin request');
  const same = await call(app, 'POST', '/v1/auth/login', { body: { email: user.email, password: user.password }, headers: { ...COOKIE, origin: 'http://console.example.test' } });
  t.equal(same.status, 200, 'the same origin is accepted');
  const token = cookieOf(same.headers);
  const noHeader = await call(app, 'POST', '/v1/auth/session/refresh', { headers: { cookie: `vantage_refresh=${token}` } });
  t.equal(noHeader.status, 400, 'the custom header is required (a cross-site form cannot send it)');
  const crossRefresh = await call(app, 'POST', '/v1/auth/session/refresh', { headers: { ...COOKIE, origin: 'null', cookie: `vantage_refresh=${token}` } });
  t.equal(crossRefresh.status, 403);
  const badMode = await call(app, 'POST', '/v1/auth/login', { body: { email: user.email, password: user.password }, headers: { 'x-vantage-session': 'body' } });
  t.equal(badMode.status, 400);
  const none = await call(app, 'POST', '/v1/auth/session/refresh', { headers: COOKIE });
  t.equal(none.status, 401);
  t.equal(none.body.error.code, 'AUTH_SESSION_INVALID');
  const stillValid = await call(app, 'POST', '/v1/auth/session/refresh', { headers: { ...COOKIE, cookie: `vantage_refresh=${token}` } });
  t.equal(stillValid.status, 200, 'refused attempts did not spend the token');
});
