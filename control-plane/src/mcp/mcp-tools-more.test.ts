import t, { type Test } from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { seedMonitor } from '../checks/test-support.js';
import { seedWorld } from '../alerting/engine-fixtures.js';
import { startMcpListener } from './listener.js';

/*
 * The look-up, monitor and alert-event tools of the MCP entry point, driven by the official
 * TypeScript SDK client: each answers as the matching /v1 route does (compared with the route's
 * answer where it is deterministic), refuses another account's monitor as not found, and is
 * offered only when the token's scope.tools names it.
 */

async function setup(t: Test) {
  const env = await testApp(t);
  const mcp = await startMcpListener(env.deps, '127.0.0.1', 0);
  t.teardown(() => mcp.close());
  const user = await registerUser(env.app);
  const api = (method: string, path: string, body?: unknown) => call(env.app, method, path, { token: user.access_token, body });
  const connect = async (scope?: { tools: string[] }) => {
    const r = await api('POST', '/v1/mcp/tokens', { type: 'personal', name: 'tools', ...(scope ? { scope } : {}) });
    if (r.status !== 201) throw new Error(JSON.stringify(r.body));
    const client = new Client({ name: 'vantage-tests-typescript', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url), { requestInit: { headers: { authorization: `Bearer ${r.body.data.secret}` } } }));
    t.teardown(() => client.close());
    return client;
  };
  return { ...env, user, api, connect };
}

t.test('look-up tools answer as the /v1 routes; bad input is a tool error naming the field', async (t) => {
  const { app, connect } = await setup(t);
  const client = await connect();
  const names = (await client.listTools()).tools.map((x) => x.name);
  for (const n of ['info_ip', 'info_whois', 'info_ssl', 'info_dns', 'info_icp', 'ip_reputation', 'get_monitor_uptime', 'list_monitor_checks', 'create_monitor', 'pause_monitor', 'resume_monitor', 'list_alert_events', 'ack_alert_event']) {
    t.ok(names.includes(n), `tool ${n}`);
  }
  let r: any = await client.callTool({ name: 'info_ip', arguments: { q: '8.8.8.8' } });
  t.notOk(r.isError, JSON.stringify(r.structuredContent));
  t.same(r.structuredContent, (await call(app, 'GET', '/v1/info/ip?q=8.8.8.8')).body.data, 'same data as GET /v1/info/ip');
  t.match(r.content[0].text, /8\.8\.8\.8: .*AS15169/);

  r = await client.callTool({ name: 'info_icp', arguments: { q: 'www.example.cn' } });
  t.same(r.structuredContent, (await call(app, 'GET', '/v1/info/icp?q=www.example.cn')).body.data, 'same data as GET /v1/info/icp');
  t.match(r.content[0].text, /example\.cn: no ICP filing known/);

  r = await client.callTool({ name: 'ip_reputation', arguments: { q: '8.8.8.8' } });
  t.notOk(r.isError);
  t.match(r.structuredContent, { ip: '8.8.8.8', score: Number, risk_level: /^(low|medium|high)$/ });

  r = await client.callTool({ name: 'info_icp', arguments: { q: 'com.cn' } });
  t.equal(r.isError, true, 'a public suffix is refused');
  t.equal(r.structuredContent?.error?.code, 'VALIDATION_FAILED');
  for (const [name, args] of [['info_ip', { q: 'not-an-ip' }], ['info_ssl', { q: 'https://example.com/' }], ['info_dns', { q: 'example.com', type: 'PTR' }], ['info_whois', { q: 'x' }]] as const) {
    r = await client.callTool({ name, arguments: args });
    t.equal(r.isError, true, `${name} ${JSON.stringify(args)} refused`);
  }
});

t.test('monitor tools: create, pause, resume, uptime and checks; another account\'s monitor is not found', async (t) => {
  const { sql, api, connect, user } = await setup(t);
  const client = await connect();
  let r: any = await client.callTool({ name: 'create_monitor', arguments: { name: 'one', type: 'http', target: 'https://1.1.1.1/', interval_s: 60 } });
  t.notOk(r.isError, JSON.stringify(r.structuredContent));
  const id = r.structuredContent.id;
  t.match(r.structuredContent, { id: /^m_/, name: 'one', type: 'http', status: 'active' });
  t.match((await api('GET', `/v1/monitors/${id}`)).body.data, { id, name: 'one' }, 'the monitor is the /v1 API\'s');
  r = await client.callTool({ name: 'create_monitor', arguments: { name: 'one', type: 'http', target: 'https://1.1.1.1/', interval_s: 60 } });
  t.equal(r.structuredContent?.error?.code, 'MONITOR_NAME_TAKEN', 'the same rules as POST /v1/monitors');
  t.equal((await api('GET', '/v1/monitors')).body.data.total, 1, 'a refused create changes nothing');

  r = await client.callTool({ name: 'pause_monitor', arguments: { id } });
  t.match(r.structuredContent, { id, status: 'paused' });
  t.equal((await api('GET', `/v1/monitors/${id}`)).body.data.status, 'paused');
  r = await client.callTool({ name: 'pause_monitor', arguments: { id } });
  t.equal(r.structuredContent?.error?.code, 'MONITOR_PAUSED');
  r = await client.callTool({ name: 'resume_monitor', arguments: { id } });
  t.match(r.structuredContent, { id, status: 'active' });

  const seeded = await seedMonitor(sql, { user_id: user.user_id, nodes: 1, state: 'up' });
  r = await client.callTool({ name: 'get_monitor_uptime', arguments: { id: seeded.monitor_id, period: '24h' } });
  t.notOk(r.isError, JSON.stringify(r.structuredContent));
  const { from: _f, to: _t, ...viaTool } = r.structuredContent;
  const { from: _f2, to: _t2, ...viaRoute } = (await api('GET', `/v1/monitors/${seeded.monitor_id}/uptime?period=24h`)).body.data;
  t.same(viaTool, viaRoute, 'same data as the uptime route (the window ends at each call\'s now)');
  t.match(viaTool, { period: '24h', rounds: { up: Number } });
  r = await client.callTool({ name: 'get_monitor_uptime', arguments: { id: seeded.monitor_id, period: '24h', from: '-1d' } });
  t.equal(r.structuredContent?.error?.code, 'VALIDATION_FAILED', 'period and from together are refused');
  r = await client.callTool({ name: 'list_monitor_checks', arguments: { id: seeded.monitor_id, page_size: 5 } });
  t.notOk(r.isError, JSON.stringify(r.structuredContent));
  t.same(r.structuredContent, (await api('GET', `/v1/monitors/${seeded.monitor_id}/checks?page_size=5`)).body.data, 'same data as the checks route');

  const other = await seedMonitor(sql, { nodes: 0 });
  for (const name of ['get_monitor_uptime', 'list_monitor_checks', 'pause_monitor', 'resume_monitor']) {
    r = await client.callTool({ name, arguments: { id: other.monitor_id } });
    t.equal(r.structuredContent?.error?.code, 'MONITOR_NOT_FOUND', `${name}: another account's monitor`);
  }
  t.equal((await sql`SELECT status FROM monitors WHERE id = ${other.monitor_id}`)[0]!.status, 'active', 'and it is left as it was');

  r = await client.callTool({ name: 'list_alert_events', arguments: {} });
  t.notOk(r.isError);
  t.same(r.structuredContent, (await api('GET', '/v1/alert-events')).body.data);
});

t.test('ack_alert_event acknowledges as the route does; another account\'s event is not found; a resolved one is a conflict', async (t) => {
  const { sql, app, user, connect } = await setup(t);
  const client = await connect();
  const mine = await seedWorld(sql, { levels: [300] }, { user_id: user.user_id });
  await mine.round(0, 'down');
  await mine.pass(0);
  const [event] = await mine.events();
  const stranger = await registerUser(app);
  const theirs = await seedWorld(sql, { levels: [300] }, { user_id: stranger.user_id, monitor_name: 'theirs' });
  await theirs.round(0, 'down');
  await theirs.pass(0);
  const [other] = await theirs.events();

  let r: any = await client.callTool({ name: 'ack_alert_event', arguments: { id: other!.id } });
  t.equal(r.structuredContent?.error?.code, 'NOT_FOUND', 'another account\'s event');
  t.equal((await sql`SELECT status FROM alert_events WHERE id = ${other!.id}`)[0]!.status, 'firing', 'and it is left firing');
  r = await client.callTool({ name: 'ack_alert_event', arguments: { id: 'ae_nope' } });
  t.equal(r.structuredContent?.error?.code, 'NOT_FOUND', 'an unknown id');

  r = await client.callTool({ name: 'ack_alert_event', arguments: { id: event!.id } });
  t.notOk(r.isError, JSON.stringify(r.structuredContent));
  t.match(r.structuredContent, { id: event!.id, status: 'acknowledged', acknowledged_by: user.user_id, next_notification_at: null });
  t.match(r.content[0].text, /acknowledged/);
  const notifications = (await call(app, 'GET', `/v1/alert-events/${event!.id}`, { token: user.access_token })).body.data.notifications;
  t.same(notifications.map((n: { kind: string }) => n.kind), ['firing', 'acknowledged'], 'the paged channel was told, as by the route');
  t.notOk((await client.callTool({ name: 'ack_alert_event', arguments: { id: event!.id } }) as any).isError, 'again: changes nothing');
  await call(app, 'POST', `/v1/alert-events/${event!.id}/resolve`, { token: user.access_token });
  r = await client.callTool({ name: 'ack_alert_event', arguments: { id: event!.id } });
  t.equal(r.structuredContent?.error?.code, 'CONFLICT', 'a resolved event');
});

t.test('scope.tools narrows the tools offered and callable', async (t) => {
  const { connect } = await setup(t);
  const client = await connect({ tools: ['info_ip', 'list_alert_events'] });
  t.same((await client.listTools()).tools.map((x) => x.name).sort(), ['info_ip', 'list_alert_events']);
  const r: any = await client.callTool({ name: 'create_monitor', arguments: { name: 'x', type: 'http', target: 'https://1.1.1.1/' } }).catch((err: Error) => ({ isError: true, message: err.message }));
  t.equal(r.isError, true, 'a tool outside the scope cannot be called');
});
