import t from 'tap';
import { call, registerUser, testApp } from '../test-support/app.js';

const HTTPS = { name: 'Checkout', type: 'https', target: 'https://1.1.1.1/health' };

t.test('fine-grained scopes, allowed origins, expires_at and workspace tokens', async (t) => {
  const { app, sql } = await testApp(t);
  const u = await registerUser(app);
  const session = { token: u.access_token };
  const keyOf = async (body: Record<string, unknown>, token = u.access_token) => {
    const r = await call(app, 'POST', '/v1/account/api-keys', { token, body: { name: 'k', ...body } });
    t.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.data as { key: string; id: string; scopes: string[]; allowed_origins: string[]; team_id: string | null; expires_at: string; created_at: string };
  };
  const keysSnapshot = async () => JSON.stringify(await sql`SELECT id, revoked_at FROM access_keys ORDER BY id`);

  t.test('each family scope admits its family and refuses others with details.required_scope', async (t) => {
    const monitor = await call(app, 'POST', '/v1/monitors', { ...session, body: HTTPS });
    t.equal(monitor.status, 201);
    const mr = (await keyOf({ scopes: ['monitor:read'] })).key;
    const mw = (await keyOf({ scopes: ['monitor:write'] })).key;
    const ar = (await keyOf({ scopes: ['alert:read'] })).key;
    const legacyRead = (await keyOf({ scopes: ['read'] })).key;

    t.equal((await call(app, 'GET', '/v1/monitors', { token: mr })).status, 200, 'monitor:read lists monitors');
    t.equal((await call(app, 'GET', `/v1/monitors/${monitor.body.data.id}/checks`, { token: mr })).status, 200, 'and reads their checks');
    t.equal((await call(app, 'GET', '/v1/monitors', { token: legacyRead })).status, 200, 'legacy read still reads monitors');
    t.equal((await call(app, 'GET', '/v1/alert-channels', { token: ar })).status, 200, 'alert:read lists channels');

    const cases: Array<[string, string, string, string, unknown?]> = [
      ['monitor:read creates a monitor', mr, 'POST', '/v1/monitors', { ...HTTPS, name: 'no' }],
      ['monitor:write reads monitors', mw, 'GET', '/v1/monitors'],
      ['alert:read reads monitors', ar, 'GET', '/v1/monitors'],
      ['monitor:read reads alert channels', mr, 'GET', '/v1/alert-channels'],
      ['monitor:read reads the profile', mr, 'GET', '/v1/account/profile'],
      ['monitor:write creates an API key', mw, 'POST', '/v1/account/api-keys', { name: 'x' }],
      ['monitor:read runs a probe', mr, 'POST', '/v1/probe/http', { target: 'https://1.1.1.1' }],
      ['legacy read pauses a monitor', legacyRead, 'POST', `/v1/monitors/${monitor.body.data.id}/pause`],
    ];
    const required = ['monitor:write', 'monitor:read', 'monitor:read', 'alert:read', 'read', 'write', 'probe', 'monitor:write'];
    for (const [i, [name, token, method, path, body]] of cases.entries()) {
      const before = await keysSnapshot();
      const monitors = JSON.stringify(await sql`SELECT id, status FROM monitors ORDER BY id`);
      const r = await call(app, method, path, { token, ...(body ? { body } : {}) });
      t.equal(r.status, 403, name);
      t.equal(r.body.error.code, 'FORBIDDEN', name);
      t.equal(r.body.error.details.required_scope, required[i], `${name}: names ${required[i]}`);
      t.equal(await keysSnapshot(), before, `${name}: no key changed`);
      t.equal(JSON.stringify(await sql`SELECT id, status FROM monitors ORDER BY id`), monitors, `${name}: no monitor changed`);
    }
    const made = await call(app, 'POST', '/v1/monitors', { token: mw, body: { ...HTTPS, name: 'by key' } });
    t.equal(made.status, 201, 'monitor:write creates a monitor');
    const probe = (await keyOf({ scopes: ['probe'] })).key;
    const probed = await call(app, 'POST', '/v1/probe/http', { token: probe, body: {} });
    t.not(probed.body.error?.details?.required_scope, 'probe', 'probe passes the scope check (then the body is checked)');
    t.equal(probed.status, 400);
  });

  t.test('keys grant only what their scopes cover', async (t) => {
    const w = (await keyOf({ scopes: ['write'] })).key;
    const child = await call(app, 'POST', '/v1/account/api-keys', { token: w, body: { name: 'c', scopes: ['monitor:write', 'probe'] } });
    t.equal(child.status, 201, 'write covers monitor:write and probe');
    t.same(child.body.data.scopes, ['monitor:write', 'probe']);
    const r = await call(app, 'POST', '/v1/account/api-keys', { token: w, body: { name: 'c', scopes: ['monitor:read'] } });
    t.equal(r.status, 403);
    t.same(r.body.error.details.missing_scopes, ['monitor:read']);
    const bad = await call(app, 'POST', '/v1/account/api-keys', { ...session, body: { name: 'x', scopes: ['monitor:admin'] } });
    t.equal(bad.body.error.code, 'VALIDATION_FAILED');
  });

  t.test('allowed_origins: another Origin is refused; none or a listed one passes', async (t) => {
    const k = await keyOf({ scopes: ['read'], allowed_origins: ['https://App.example.com', 'http://localhost:5173'] });
    t.same(k.allowed_origins, ['https://app.example.com', 'http://localhost:5173'], 'kept in lower case');
    const get = (origin?: string) => call(app, 'GET', '/v1/account/profile', { token: k.key, headers: origin ? { origin } : {} });
    t.equal((await get()).status, 200, 'no Origin: server to server');
    t.equal((await get('https://app.example.com')).status, 200);
    t.equal((await get('http://localhost:5173')).status, 200);
    for (const origin of ['https://evil.example.com', 'http://app.example.com', 'https://app.example.com:8443', 'http://localhost:5174', 'null']) {
      const r = await get(origin);
      t.equal(r.status, 403, origin);
      t.equal(r.body.error.code, 'FORBIDDEN', origin);
      t.equal(r.body.error.details.origin, origin, origin);
    }
    const open = await keyOf({ scopes: ['read'] });
    t.same(open.allowed_origins, []);
    t.equal((await call(app, 'GET', '/v1/account/profile', { token: open.key, headers: { origin: 'https://evil.example.com' } })).status, 200, 'no list: any origin');
    for (const origin of ['https://app.example.com/', 'https://app.example.com/path', 'ftp://x.example', 'app.example.com', 'https://u:p@app.example.com', 'https://app.example.com:443']) {
      const before = await keysSnapshot();
      const r = await call(app, 'POST', '/v1/account/api-keys', { ...session, body: { name: 'x', allowed_origins: [origin] } });
      t.equal(r.status, 400, origin);
      t.equal(r.body.error.code, 'VALIDATION_FAILED', origin);
      t.equal(await keysSnapshot(), before, `${origin}: nothing created`);
    }
    const pat = await call(app, 'POST', '/v1/account/tokens', { ...session, body: { name: 'p', allowed_origins: ['https://app.example.com'] } });
    t.same(pat.body.data.allowed_origins, ['https://app.example.com'], 'PATs carry them too');
    t.equal((await call(app, 'GET', '/v1/account/profile', { token: pat.body.data.token, headers: { origin: 'https://evil.example.com' } })).status, 403);
  });

  t.test('expires_at: an instant instead of expires_days', async (t) => {
    const at = new Date(Date.now() + 2 * 86_400_000);
    at.setMilliseconds(0);
    const k = await keyOf({ expires_at: at.toISOString() });
    t.equal(k.expires_at, at.toISOString());
    for (const [name, body] of [
      ['past', { expires_at: new Date(Date.now() - 60_000).toISOString() }],
      ['over 90 days', { expires_at: new Date(Date.now() + 91 * 86_400_000).toISOString() }],
      ['both', { expires_at: at.toISOString(), expires_days: 3 }],
      ['not a date', { expires_at: 'tomorrow' }],
    ] as const) {
      const before = await keysSnapshot();
      const r = await call(app, 'POST', '/v1/account/api-keys', { ...session, body: { name: 'x', ...body } });
      t.equal(r.status, 400, name);
      t.equal(r.body.error.code, 'VALIDATION_FAILED', name);
      t.equal(await keysSnapshot(), before, `${name}: nothing created`);
    }
    const d = await keyOf({ expires_at: null });
    t.equal(Math.round((Date.parse(d.expires_at) - Date.parse(d.created_at)) / 86_400_000), 90, 'null = the 90-day default');
  });

  t.test('workspace tokens act only for their team', async (t) => {
    const team = await call(app, 'POST', '/v1/teams', { ...session, body: { name: 'Ops' } });
    t.equal(team.status, 201, JSON.stringify(team.body));
    const team_id = team.body.data.id as string;
    const member = await registerUser(app);
    const stranger = await registerUser(app);
    await sql`INSERT INTO team_members (team_id, user_id, role) VALUES (${team_id}, ${member.user_id}, 'member')`;

    const personal = await call(app, 'POST', '/v1/monitors', { ...session, body: { ...HTTPS, name: 'mine alone' } });
    const shared = await call(app, 'POST', '/v1/monitors', { ...session, body: { ...HTTPS, name: 'the team\'s', team_id } });
    t.equal(shared.status, 201, JSON.stringify(shared.body));

    const ws = await keyOf({ team_id, scopes: ['monitor:read', 'monitor:write'] });
    t.equal(ws.team_id, team_id);
    const list = await call(app, 'GET', '/v1/monitors', { token: ws.key });
    t.equal(list.status, 200);
    t.same(list.body.data.items.map((m: { id: string }) => m.id), [shared.body.data.id], 'lists only the team\'s monitors');
    const other = await call(app, 'GET', `/v1/monitors/${personal.body.data.id}`, { token: ws.key });
    t.equal(other.status, 404, 'a personal monitor is not found');
    t.equal(other.body.error.code, 'MONITOR_NOT_FOUND');
    const made = await call(app, 'POST', '/v1/monitors', { token: ws.key, body: { ...HTTPS, name: 'made by the token' } });
    t.equal(made.status, 201);
    t.equal(made.body.data.team_id, team_id, 'what it creates belongs to its team');
    const own = await call(app, 'GET', '/v1/account/api-keys?limit=100', { token: (await keyOf({ team_id, scopes: ['read'] })).key });
    t.ok(own.body.data.api_keys.every((k: { team_id: string | null }) => k.team_id === team_id), 'a workspace token lists only its team\'s keys');
    const pat = await call(app, 'POST', '/v1/account/tokens', { token: (await keyOf({ team_id })).key, body: { name: 'p' } });
    t.equal(pat.status, 403, 'a workspace token makes no personal access token');
    const personalKey = await call(app, 'POST', '/v1/account/api-keys', { token: (await keyOf({ team_id })).key, body: { name: 'p', team_id: null } });
    t.equal(personalKey.status, 403, 'nor a personal key');

    const before = await keysSnapshot();
    const byMember = await call(app, 'POST', '/v1/account/api-keys', { token: member.access_token, body: { name: 'x', team_id } });
    t.equal(byMember.status, 403, 'a member (below admin) cannot make one');
    t.equal(byMember.body.error.details.required_role, 'admin');
    const byStranger = await call(app, 'POST', '/v1/account/api-keys', { token: stranger.access_token, body: { name: 'x', team_id } });
    t.equal(byStranger.status, 404);
    t.equal(byStranger.body.error.code, 'TEAM_NOT_FOUND');
    const unknown = await call(app, 'POST', '/v1/account/api-keys', { ...session, body: { name: 'x', team_id: 'team_nope' } });
    t.equal(unknown.body.error.code, 'TEAM_NOT_FOUND');
    t.equal(await keysSnapshot(), before, 'nothing created');

    // A team admin revokes a workspace token another admin made; a member cannot.
    await sql`UPDATE team_members SET role = 'admin' WHERE team_id = ${team_id} AND user_id = ${member.user_id}`;
    const theirs = await keyOf({ team_id, scopes: ['read'] }, member.access_token);
    const strangerRevoke = await call(app, 'DELETE', `/v1/account/api-keys/${theirs.id}`, { token: stranger.access_token });
    t.equal(strangerRevoke.body.error.code, 'API_KEY_NOT_FOUND');
    const revoked = await call(app, 'DELETE', `/v1/account/api-keys/${theirs.id}`, session);
    t.equal(revoked.status, 200, 'the owner revokes the admin\'s workspace token');
    t.equal((await call(app, 'GET', '/v1/account/profile', { token: theirs.key })).body.error.code, 'API_KEY_REVOKED');
    const mine = await keyOf({ scopes: ['read'] });
    const personalRevoke = await call(app, 'DELETE', `/v1/account/api-keys/${mine.id}`, { token: member.access_token });
    t.equal(personalRevoke.body.error.code, 'API_KEY_NOT_FOUND', 'personal keys stay their creator\'s');

    // Removed from the team: its workspace tokens see nothing of it at once.
    const kept = await keyOf({ team_id, scopes: ['monitor:read'] }, member.access_token);
    t.equal((await call(app, 'GET', `/v1/monitors/${shared.body.data.id}`, { token: kept.key })).status, 200);
    await sql`DELETE FROM team_members WHERE team_id = ${team_id} AND user_id = ${member.user_id}`;
    t.equal((await call(app, 'GET', `/v1/monitors/${shared.body.data.id}`, { token: kept.key })).status, 404);
  });
});
