import t from 'tap';
import { call, createApiKey, registerUser, testApp } from '../test-support/app.js';

/*
 * /v1/mcp/tokens through the app on a real database: create (secret once, shapes, defaults per
 * type), the lifetime and whitelist rules (422 validation_error, nothing written), get, PATCH,
 * DELETE with revoke_reason, another account's ids as 404, key scopes, and an MCP token refused on /v1.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();
const count = async (sql: any) => (await sql`SELECT count(*)::int AS n FROM mcp_tokens`)[0].n as number;

t.test('MCP tokens: create, rules, read, change, revoke', async (t) => {
  const { app, sql } = await testApp(t);
  const [alice, bob] = [await registerUser(app), await registerUser(app)];

  // Personal: default 24 h, never auto-renews; the secret is shown once.
  let r = await call(app, 'POST', '/v1/mcp/tokens', { token: alice.access_token, body: { type: 'personal', name: 'laptop', auto_renew: true } });
  t.equal(r.status, 201, JSON.stringify(r.body));
  const personal = r.body.data;
  t.match(personal.secret, /^svc_mcp_[0-9a-z]{32}$/);
  t.match(personal.token, {
    id: /^mcpt_/, owner_id: alice.user_id, type: 'personal', name: 'laptop', auto_renew: false, revoked: false, revoke_reason: null,
    scope: { tools: [], regions: [] }, ip_whitelist: [], last_used_at: null, last_renewed_at: null,
  });
  t.equal(personal.token.token_display, `svc_mcp_${personal.secret.slice(8, 12)}…${personal.secret.slice(-4)}`);
  const lifetime = Date.parse(personal.token.expires_at) - Date.parse(personal.token.created_at);
  t.ok(Math.abs(lifetime - DAY) < 60_000, `personal lifetime ${lifetime} ms is 24 h`);
  t.notOk(JSON.stringify(personal.token).includes(personal.secret.slice(8)), 'the token record never holds the secret');

  // Workspace: 90 days by default, auto-renew on; service needs a whitelist.
  r = await call(app, 'POST', '/v1/mcp/tokens', { token: alice.access_token, body: { type: 'workspace', name: 'ci', scope: { tools: ['list_nodes'], regions: ['eu-west'] } } });
  t.equal(r.status, 201);
  t.match(r.body.data.token, { type: 'workspace', auto_renew: true, scope: { tools: ['list_nodes'], regions: ['eu-west'] } });
  t.ok(Math.abs(Date.parse(r.body.data.token.expires_at) - Date.now() - 90 * DAY) < 60_000, 'workspace default is 90 days');
  const workspace = r.body.data.token;
  r = await call(app, 'POST', '/v1/mcp/tokens', { token: alice.access_token, body: { type: 'service', name: 'bot', ip_whitelist: ['127.0.0.0/8', '2001:db8::/32'], expires_at: iso(Date.now() + 30 * DAY) } });
  t.equal(r.status, 201);
  const service = r.body.data.token;
  t.same(service.ip_whitelist, ['127.0.0.0/8', '2001:db8::/32']);

  // Refusals: each with its code and field; nothing written.
  const before = await count(sql);
  for (const [what, body, status, code] of [
    ['service without whitelist', { type: 'service', name: 'x' }, 422, 'validation_error'],
    ['service with an empty whitelist', { type: 'service', name: 'x', ip_whitelist: [] }, 422, 'validation_error'],
    ['personal past 24 h', { type: 'personal', name: 'x', expires_at: iso(Date.now() + DAY + HOUR) }, 422, 'validation_error'],
    ['workspace past 90 days', { type: 'workspace', name: 'x', expires_at: iso(Date.now() + 91 * DAY) }, 422, 'validation_error'],
    ['service past 90 days', { type: 'service', name: 'x', ip_whitelist: ['10.0.0.0/8'], expires_at: iso(Date.now() + 91 * DAY) }, 422, 'validation_error'],
    ['expiry in the past', { type: 'workspace', name: 'x', expires_at: iso(Date.now() - HOUR) }, 400, 'VALIDATION_FAILED'],
    ['bad CIDR', { type: 'service', name: 'x', ip_whitelist: ['10.0.0.300/8'] }, 400, 'VALIDATION_FAILED'],
    ['unknown type', { type: 'admin', name: 'x' }, 400, 'VALIDATION_FAILED'],
    ['no name', { type: 'personal' }, 400, 'VALIDATION_FAILED'],
    ['unknown field', { type: 'personal', name: 'x', secret: 'svc_mcp_x' }, 400, 'VALIDATION_FAILED'],
  ] as const) {
    r = await call(app, 'POST', '/v1/mcp/tokens', { token: alice.access_token, body });
    t.equal(r.status, status, `${what}: ${JSON.stringify(r.body)}`);
    t.equal(r.body.error.code, code, what);
  }
  r = await call(app, 'POST', '/v1/mcp/tokens', { token: alice.access_token, body: { type: 'service', name: 'x' } });
  t.equal(r.body.error.details.field, 'ip_whitelist');
  t.equal(await count(sql), before, 'refused requests wrote nothing');

  // List (plain array, newest first), get; another account sees none and gets 404.
  r = await call(app, 'GET', '/v1/mcp/tokens', { token: alice.access_token });
  t.same(r.body.data.map((x: any) => x.id), [service.id, workspace.id, personal.token.id]);
  t.equal((await call(app, 'GET', '/v1/mcp/tokens', { token: bob.access_token })).body.data.length, 0);
  t.equal((await call(app, 'GET', `/v1/mcp/tokens/${service.id}`, { token: alice.access_token })).body.data.name, 'bot');
  for (const [method, body] of [['GET', undefined], ['PATCH', { name: 'mine' }], ['DELETE', undefined]] as const) {
    r = await call(app, method, `/v1/mcp/tokens/${service.id}`, { token: bob.access_token, body });
    t.equal(r.status, 404, `${method} of another account's token`);
    t.equal(r.body.error.code, 'NOT_FOUND');
  }
  t.equal((await call(app, 'GET', '/v1/mcp/tokens/mcpt_nonsense', { token: alice.access_token })).status, 404);

  // PATCH: fields change; the same rules apply; a service token keeps a whitelist.
  r = await call(app, 'PATCH', `/v1/mcp/tokens/${service.id}`, { token: alice.access_token, body: { name: 'bot 2', scope: { tools: ['probe_ping'] }, store_failed_payloads: true } });
  t.equal(r.status, 200);
  t.match(r.body.data, { name: 'bot 2', scope: { tools: ['probe_ping'], regions: [] }, store_failed_payloads: true, ip_whitelist: ['127.0.0.0/8', '2001:db8::/32'] });
  r = await call(app, 'PATCH', `/v1/mcp/tokens/${service.id}`, { token: alice.access_token, body: { ip_whitelist: [] } });
  t.equal(r.status, 422);
  r = await call(app, 'PATCH', `/v1/mcp/tokens/${personal.token.id}`, { token: alice.access_token, body: { expires_at: iso(Date.now() + 2 * DAY) } });
  t.equal(r.status, 422);
  t.equal(r.body.error.code, 'validation_error');
  t.equal((await call(app, 'GET', `/v1/mcp/tokens/${service.id}`, { token: alice.access_token })).body.data.ip_whitelist.length, 2, 'refused PATCH changed nothing');

  // DELETE revokes with a reason; a revoked token cannot be changed; a second DELETE keeps the first reason.
  r = await call(app, 'DELETE', `/v1/mcp/tokens/${service.id}`, { token: alice.access_token, body: { revoke_reason: 'rotated' } });
  t.equal(r.status, 200, JSON.stringify(r.body));
  t.match(r.body.data, { revoked: true, revoke_reason: 'rotated' });
  t.equal((await call(app, 'PATCH', `/v1/mcp/tokens/${service.id}`, { token: alice.access_token, body: { name: 'again' } })).status, 409);
  r = await call(app, 'DELETE', `/v1/mcp/tokens/${service.id}`, { token: alice.access_token });
  t.match(r.body.data, { revoked: true, revoke_reason: 'rotated' });
  r = await call(app, 'DELETE', `/v1/mcp/tokens/${workspace.id}`, { token: alice.access_token });
  t.match(r.body.data, { revoked: true, revoke_reason: null }, 'DELETE without a body');
});

t.test('MCP tokens: key scopes, and an MCP token is no credential on /v1', async (t) => {
  const { app } = await testApp(t);
  const alice = await registerUser(app);
  const reader = await createApiKey(app, alice.access_token, ['read']);
  let r = await call(app, 'POST', '/v1/mcp/tokens', { token: reader.key, body: { type: 'personal', name: 'x' } });
  t.equal(r.status, 403);
  t.equal(r.body.error.code, 'FORBIDDEN');
  t.equal((await call(app, 'GET', '/v1/mcp/tokens', { token: reader.key })).status, 200);
  t.equal((await call(app, 'GET', '/v1/mcp/sessions', { token: reader.key })).status, 200);
  t.equal((await call(app, 'GET', '/v1/mcp/tool-calls?status=failure&from=-1h', { token: reader.key })).status, 200);
  t.equal((await call(app, 'GET', '/v1/mcp/tool-calls?status=nope', { token: reader.key })).status, 400);
  t.equal((await call(app, 'GET', '/v1/mcp/tokens')).status, 401);

  r = await call(app, 'POST', '/v1/mcp/tokens', { token: alice.access_token, body: { type: 'personal', name: 'x' } });
  const secret = r.body.data.secret as string;
  r = await call(app, 'GET', '/v1/mcp/tokens', { token: secret });
  t.equal(r.status, 401);
  t.equal(r.body.error.code, 'AUTH_INVALID_TOKEN');
  t.equal((await call(app, 'GET', '/v1/account/profile', { token: secret })).status, 401);
});
