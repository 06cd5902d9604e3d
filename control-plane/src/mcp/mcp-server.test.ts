import t, { type Test } from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { call, createApiKey, registerUser, testApp } from '../test-support/app.js';
import { seedMonitor } from '../checks/test-support.js';
import { addNode } from '../probes/test-support.js';
import { startMcpListener } from './listener.js';
import { startPayloadRetention } from './payload-retention.js';

/*
 * The MCP entry point on its own listener on loopback, driven by the official TypeScript SDK client
 * over Streamable HTTP: tools offered by scope, tools answering from the same functions as /v1,
 * sessions and tool calls recorded and read back through /v1/mcp; refused credentials (API key,
 * session token, wrong address, expired, revoked, unused 30 days); auto-renew under a clock the
 * test moves; raw payloads of failed calls kept only when opted in, and cleared 7 days later.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

async function setup(t: Test, config: Record<string, unknown> = {}) {
  const env = await testApp(t, { config });
  let offset_ms = 0;
  const clock = { now: () => Date.now() + offset_ms, move: (ms: number) => { offset_ms += ms; } };
  const mcp = await startMcpListener(env.deps, '127.0.0.1', 0, { now: clock.now });
  t.teardown(() => mcp.close());
  const user = await registerUser(env.app);
  const api = (method: string, path: string, body?: unknown) => call(env.app, method, path, { token: user.access_token, body });
  const token = async (body: Record<string, unknown>) => {
    const r = await api('POST', '/v1/mcp/tokens', body);
    if (r.status !== 201) throw new Error(JSON.stringify(r.body));
    return r.body.data as { token: { id: string; expires_at: string }; secret: string };
  };
  /** An SDK client connected with `secret` (closed at teardown). */
  const connect = async (secret: string, name = 'vantage-tests-typescript') => {
    const client = new Client({ name, version: '9.8.7' });
    const transport = new StreamableHTTPClientTransport(new URL(mcp.url), { requestInit: { headers: { authorization: `Bearer ${secret}` } } });
    await client.connect(transport);
    t.teardown(() => client.close());
    return client;
  };
  /** A plain request to the entry point (only to read refusals' status and envelope). */
  const raw = async (authorization: string | undefined) => {
    const res = await fetch(mcp.url, {
      method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(authorization ? { authorization } : {}) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
    });
    const text = await res.text();
    // A refusal is the JSON error envelope; an accepted initialize answers as an event stream.
    return { status: res.status, body: (res.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : text) as any };
  };
  return { ...env, mcp, clock, user, api, token, connect, raw };
}

t.test('tools, sessions and tool calls', async (t) => {
  const { app, sql, api, token, connect, user } = await setup(t);
  const node_de = await addNode(sql, { country: 'DE', region: 'eu-west', status: 'online' });
  await addNode(sql, { country: 'US', region: 'us-east', status: 'online' });
  const { monitor_id } = await seedMonitor(sql, { user_id: user.user_id, nodes: 0, state: 'up' });
  const other = await seedMonitor(sql, { nodes: 0 });

  const { secret, token: tok } = await token({ type: 'workspace', name: 'agent' });
  const client = await connect(secret);
  const names = (await client.listTools()).tools.map((x) => x.name);
  for (const n of ['probe_http', 'probe_ping', 'probe_dns', 'probe_tcp', 'probe_traceroute', 'get_probe_result', 'list_nodes', 'list_monitors', 'get_monitor']) t.ok(names.includes(n), `tool ${n}`);
  const http = (await client.listTools()).tools.find((x) => x.name === 'probe_http')!;
  t.ok((http.inputSchema.properties as Record<string, unknown>).target, 'input schema from the shared probe request schema');

  let r: any = await client.callTool({ name: 'list_nodes', arguments: { country: 'DE' } });
  t.notOk(r.isError);
  t.same(r.structuredContent.items.map((n: any) => n.id), [node_de]);
  t.match(r.content[0].text, /1 of 1 nodes/);

  r = await client.callTool({ name: 'list_monitors', arguments: {} });
  t.same(r.structuredContent.items.map((m: any) => m.id), [monitor_id], 'only the owner\'s monitors');
  r = await client.callTool({ name: 'get_monitor', arguments: { id: monitor_id } });
  t.match(r.structuredContent, { id: monitor_id, state: 'up' });
  r = await client.callTool({ name: 'get_monitor', arguments: { id: other.monitor_id } });
  t.equal(r.isError, true, 'another account\'s monitor is not found');
  t.equal(r.structuredContent.error.code, 'MONITOR_NOT_FOUND');

  // The session and the four calls, through the management API.
  let s = await api('GET', '/v1/mcp/sessions');
  t.equal(s.body.data.total, 1);
  const session = s.body.data.items[0];
  t.match(session, { id: /^mcps_/, owner_id: user.user_id, token_id: tok.id, client_id: 'sdk-ts', client_ip: '127.0.0.1', client_version: '9.8.7', ended_at: null, total_tool_calls: 4, total_units: 3 });
  t.equal((await api('GET', `/v1/mcp/sessions/${session.id}`)).body.data.id, session.id);
  s = await api('GET', `/v1/mcp/tool-calls?session_id=${session.id}`);
  t.equal(s.body.data.total, 4);
  const failed = s.body.data.items[0];
  t.match(failed, { id: /^mctc_/, tool_name: 'get_monitor', status: 'failure', error_class: 'MONITOR_NOT_FOUND', request_payload_hash: /^[0-9a-f]{64}$/, request_payload_raw: null, payload_retain_until: null });
  t.ok(failed.request_bytes > 0 && failed.response_bytes > 0);
  t.equal((await api('GET', '/v1/mcp/tool-calls?status=failure')).body.data.total, 1);
  t.equal((await api('GET', '/v1/mcp/tool-calls?tool_name=list_nodes&from=-1h')).body.data.total, 1);
  t.equal((await api('GET', '/v1/mcp/tool-calls?to=-1h')).body.data.total, 0);
  t.equal((await api('GET', `/v1/mcp/tool-calls/${failed.id}`)).body.data.id, failed.id);
  t.equal((await api('GET', '/v1/mcp/tokens')).body.data[0].last_used_at !== null, true, 'the token\'s use is recorded');

  // Another account sees none of it.
  const bob = await registerUser(app);
  t.equal((await call(app, 'GET', '/v1/mcp/sessions', { token: bob.access_token })).body.data.total, 0);
  t.equal((await call(app, 'GET', `/v1/mcp/sessions/${session.id}`, { token: bob.access_token })).status, 404);
  t.equal((await call(app, 'GET', `/v1/mcp/tool-calls/${failed.id}`, { token: bob.access_token })).status, 404);
  await (client.transport as StreamableHTTPClientTransport).terminateSession();
  await client.close();
  const closed = await api('GET', `/v1/mcp/sessions/${session.id}`);
  t.ok(closed.body.data.ended_at !== null, 'ending the session (DELETE) records its end');
});

t.test('scope: tools and regions', async (t) => {
  const { sql, token, connect } = await setup(t);
  await addNode(sql, { country: 'DE', region: 'eu-west', status: 'online' });
  await addNode(sql, { country: 'US', region: 'us-east', status: 'online' });
  const { secret } = await token({ type: 'workspace', name: 'narrow', scope: { tools: ['list_nodes', 'probe_ping'], regions: ['eu-west'] } });
  const client = await connect(secret);
  t.same((await client.listTools()).tools.map((x) => x.name).sort(), ['list_nodes', 'probe_ping']);
  const out = await client.callTool({ name: 'list_monitors', arguments: {} }).then((r: any) => r.isError === true, () => true);
  t.ok(out, 'a tool outside scope.tools is refused');
  let r: any = await client.callTool({ name: 'list_nodes', arguments: {} });
  t.same(r.structuredContent.items.map((n: any) => n.region), ['eu-west'], 'nodes limited to scope.regions');
  r = await client.callTool({ name: 'list_nodes', arguments: { region: 'us-east' } });
  t.equal(r.structuredContent.error.code, 'FORBIDDEN');
  r = await client.callTool({ name: 'probe_ping', arguments: { target: '127.0.0.1', nodes: { regions: ['us-east'] } } });
  t.equal(r.structuredContent.error.code, 'FORBIDDEN', 'a probe outside scope.regions is refused');
});

t.test('refused credentials at the entry point', async (t) => {
  const { app, clock, api, token, connect, raw, user } = await setup(t);
  const key = await createApiKey(app, user.access_token);
  for (const [what, auth, status, code] of [
    ['no credential', undefined, 401, 'AUTH_REQUIRED'],
    ['an API key', `Bearer ${key.key}`, 401, 'AUTH_INVALID_TOKEN'],
    ['a session token', `Bearer ${user.access_token}`, 401, 'AUTH_INVALID_TOKEN'],
    ['an unknown MCP token', 'Bearer svc_mcp_00000000000000000000000000000000', 401, 'AUTH_INVALID_TOKEN'],
  ] as const) {
    const r = await raw(auth);
    t.equal(r.status, status, what);
    t.equal(r.body.error.code, code, what);
  }
  const elsewhere = await token({ type: 'service', name: 'far', ip_whitelist: ['203.0.113.0/24'] });
  let r = await raw(`Bearer ${elsewhere.secret}`);
  t.equal(r.status, 403, 'client address outside the whitelist');
  t.equal(r.body.error.details.client_ip, '127.0.0.1');
  await t.rejects(connect(elsewhere.secret), 'the SDK client is refused too');
  const here = await token({ type: 'service', name: 'near', ip_whitelist: ['127.0.0.0/8'] });
  await connect(here.secret);

  const revoked = await token({ type: 'personal', name: 'gone' });
  await api('DELETE', `/v1/mcp/tokens/${revoked.token.id}`, { revoke_reason: 'lost laptop' });
  r = await raw(`Bearer ${revoked.secret}`);
  t.equal(r.body.error.code, 'API_KEY_REVOKED');

  const short = await token({ type: 'personal', name: 'short' });
  clock.move(DAY + HOUR);
  r = await raw(`Bearer ${short.secret}`);
  t.equal(r.status, 401);
  t.equal(r.body.error.code, 'TOKEN_EXPIRED');
});

t.test('auto-renew and the 30-day unused rule, under a moved clock', async (t) => {
  const { clock, api, token, raw } = await setup(t);
  const renewing = await token({ type: 'workspace', name: 'renews', expires_at: new Date(Date.now() + 10 * DAY).toISOString() });
  const fixed = await token({ type: 'workspace', name: 'fixed', auto_renew: false, expires_at: new Date(Date.now() + 10 * DAY).toISOString() });
  clock.move(5 * DAY);
  t.equal((await raw(`Bearer ${renewing.secret}`)).status, 200, 'used on day 5: not yet in the renew window');
  t.equal((await api('GET', `/v1/mcp/tokens/${renewing.token.id}`)).body.data.last_renewed_at, null);
  clock.move(4 * DAY + 12 * HOUR);
  t.equal((await raw(`Bearer ${renewing.secret}`)).status, 200);
  const after = (await api('GET', `/v1/mcp/tokens/${renewing.token.id}`)).body.data;
  t.ok(after.last_renewed_at !== null, 'renewed when used in the last 24 h');
  t.ok(Date.parse(after.expires_at) > Date.parse(renewing.token.expires_at) + 9 * DAY, `expiry moved by its lifetime: ${after.expires_at}`);
  t.equal((await raw(`Bearer ${fixed.secret}`)).status, 200);
  clock.move(DAY);
  t.equal((await raw(`Bearer ${fixed.secret}`)).body.error.code, 'TOKEN_EXPIRED', 'auto_renew false: expires');
  t.equal((await raw(`Bearer ${renewing.secret}`)).status, 200, 'the renewed token still works');

  const idle = await token({ type: 'service', name: 'idle', ip_whitelist: ['127.0.0.1/32'] });
  clock.move(30 * DAY);
  const r = await raw(`Bearer ${idle.secret}`);
  t.equal(r.body.error.code, 'API_KEY_REVOKED', 'unused for 30 days: not renewed, revoked');
  t.match((await api('GET', `/v1/mcp/tokens/${idle.token.id}`)).body.data, { revoked: true, revoke_reason: 'unused for 30 days' });
});

t.test('raw payloads of failed calls: only when opted in, cleared after 7 days; rate limits', async (t) => {
  const { deps, clock, api, token, connect } = await setup(t, { mcp_rate_limit_per_min: 3 });
  const keeps = await token({ type: 'workspace', name: 'keeps', store_failed_payloads: true });
  const client = await connect(keeps.secret);
  await client.callTool({ name: 'get_monitor', arguments: { id: 'm_01jd3k6w9z4q8r2t7v5x1y3b6c' } });
  await client.callTool({ name: 'list_monitors', arguments: {} });
  let calls = (await api('GET', '/v1/mcp/tool-calls')).body.data.items;
  const failed = calls.find((c: any) => c.status === 'failure');
  t.same(failed.request_payload_raw, { id: 'm_01jd3k6w9z4q8r2t7v5x1y3b6c' }, 'raw request kept for a failure');
  t.equal(failed.response_payload_raw.isError, true);
  t.ok(Math.abs(Date.parse(failed.payload_retain_until) - Date.parse(failed.created_at) - 7 * DAY) < 60_000, 'kept 7 days');
  t.equal(calls.find((c: any) => c.status === 'success').request_payload_raw, null, 'never for a success');

  // Over the limit of 3 calls a minute: recorded as rate_limited.
  await client.callTool({ name: 'list_monitors', arguments: {} });
  const limited: any = await client.callTool({ name: 'list_monitors', arguments: {} });
  t.equal(limited.isError, true);
  t.equal(limited.structuredContent.error.code, 'RATE_LIMIT_EXCEEDED');
  t.equal((await api('GET', '/v1/mcp/tool-calls?status=rate_limited')).body.data.total, 1);

  const retention = startPayloadRetention(deps, clock.now);
  t.teardown(() => retention.stop());
  t.equal(await retention.run(), 0, 'nothing is due before 7 days');
  clock.move(7 * DAY + HOUR);
  t.equal(await retention.run(), 1);
  calls = (await api('GET', `/v1/mcp/tool-calls/${failed.id}`)).body.data;
  t.match(calls, { request_payload_raw: null, response_payload_raw: null, payload_retain_until: null, request_payload_hash: failed.request_payload_hash });
});
