import t from 'tap';
import { call, registerUser, testApp } from '../test-support/app.js';

/*
 * Disabling an account (docs/api/accounts.md "Account lifecycle") ends every credential at once:
 * the session, API keys, PATs and workspace tokens all answer 403 AUTH_ACCOUNT_DISABLED on the
 * next request; its monitors keep their data; enabling again revives none of them.
 */

t.test('disable: every credential refused at once with 403; data kept; enabling revives none', async (t) => {
  const { app, sql } = await testApp(t);
  const admin = await registerUser(app);
  const victim = await registerUser(app);
  const auth = { token: victim.access_token };
  const key = (await call(app, 'POST', '/v1/account/api-keys', { ...auth, body: { name: 'k' } })).body.data.key as string;
  const pat = (await call(app, 'POST', '/v1/account/tokens', { ...auth, body: { name: 'p' } })).body.data.token as string;
  const team = (await call(app, 'POST', '/v1/teams', { ...auth, body: { name: 'Ops' } })).body.data.id as string;
  const ws = await call(app, 'POST', '/v1/account/api-keys', { ...auth, body: { name: 'ws', team_id: team } });
  t.equal(ws.status, 201, JSON.stringify(ws.body));
  const group = await call(app, 'POST', '/v1/monitor-groups', { ...auth, body: { name: 'kept' } });
  t.equal(group.status, 201, JSON.stringify(group.body));
  const creds = { session: victim.access_token, key, pat, workspace: ws.body.data.key as string };
  for (const [what, token] of Object.entries(creds)) t.equal((await call(app, 'GET', '/v1/account/profile', { token })).status, 200, `${what} works before`);

  const off = await call(app, 'PATCH', `/v1/admin/accounts/${victim.user_id}`, { token: admin.access_token, body: { status: 'disabled' } });
  t.equal(off.status, 200, JSON.stringify(off.body));
  for (const [what, token] of Object.entries(creds)) {
    const r = await call(app, 'GET', '/v1/account/profile', { token });
    t.equal(r.status, 403, `${what}: 403`);
    t.equal(r.body.error.code, 'AUTH_ACCOUNT_DISABLED', `${what}: AUTH_ACCOUNT_DISABLED`);
  }
  t.equal((await call(app, 'POST', '/v1/auth/refresh', { body: { refresh_token: victim.refresh_token } })).status, 401, 'the refresh token is dead');
  const revoked = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM access_keys WHERE user_id = ${victim.user_id} AND revoked_at IS NULL`;
  t.equal(revoked[0]!.n, 0, 'every key revoked in the database');
  t.equal((await sql`SELECT 1 FROM monitor_groups WHERE id = ${group.body.data.id}`).length, 1, 'its data is kept');

  const on = await call(app, 'PATCH', `/v1/admin/accounts/${victim.user_id}`, { token: admin.access_token, body: { status: 'active' } });
  t.equal(on.status, 200);
  t.equal((await call(app, 'GET', '/v1/account/profile', { token: creds.session })).body.error.code, 'AUTH_SESSION_INVALID', 'enabled: the session stays ended');
  for (const what of ['key', 'pat', 'workspace'] as const) {
    t.equal((await call(app, 'GET', '/v1/account/profile', { token: creds[what] })).body.error.code, 'API_KEY_REVOKED', `enabled: the ${what} stays revoked`);
  }
  const login = await call(app, 'POST', '/v1/auth/login', { body: { email: victim.email, password: victim.password } });
  t.equal(login.status, 200, 'a new login works');
  t.equal((await call(app, 'GET', `/v1/monitor-groups/${group.body.data.id}`, { token: login.body.data.access_token })).status, 200, 'and sees its data');
});
