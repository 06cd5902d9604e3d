import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { call, registerUser, testApp } from '../../control-plane/src/test-support/app.js';
import { startMcpListener } from '../../control-plane/src/mcp/listener.js';
import { startRealAgents } from '../../control-plane/src/probes/real-agents.js';

/*
 * Probes through the MCP entry point with real agents (the node-agent code and its probes) on a
 * real control plane, driven by the official TypeScript SDK client: an HTTP probe of a server on
 * loopback and an ICMP ping of 127.0.0.1 (root only: raw sockets), each run and waited for by one
 * tool call, then read again by task id; the calls and their units recorded on the session.
 */

const LOOPBACK = ['127.0.0.0/8'];
const ROOT = process.getuid?.() === 0;

const { app, sql, url, deps } = await testApp(t, { config: { probe_allow_cidrs: LOOPBACK } });
const user = await registerUser(app);
const mcp = await startMcpListener(deps, '127.0.0.1', 0);
t.teardown(() => mcp.close());

const target: Server = createServer((_req, res) => res.end('hello from the target'));
await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
t.teardown(() => new Promise<void>((resolve) => target.close(() => resolve())));
const port = (target.address() as AddressInfo).port;

await startRealAgents(t, sql, url, { countries: ['DE', 'FR'], allow_cidrs: LOOPBACK });

const created = await call(app, 'POST', '/v1/mcp/tokens', { token: user.access_token, body: { type: 'personal', name: 'probes' } });
const client = new Client({ name: 'vantage-e2e-typescript', version: '1.0.0' });
const transport = new StreamableHTTPClientTransport(new URL(mcp.url), { requestInit: { headers: { authorization: `Bearer ${created.body.data.secret}` } } });
await client.connect(transport);
t.teardown(() => client.close());

t.test('an HTTP probe from two real agents, run and read back through MCP', async (t) => {
  const r: any = await client.callTool({ name: 'probe_http', arguments: { target: `http://127.0.0.1:${port}/`, nodes: { count: 2 } } });
  t.notOk(r.isError, JSON.stringify(r.structuredContent));
  t.equal(r.structuredContent.status, 'completed');
  t.equal(r.structuredContent.node_results.length, 2);
  for (const n of r.structuredContent.node_results) t.match(n, { success: true, status_code: 200 });
  t.match(r.content[0].text, /completed, 2\/2 nodes succeeded/);
  const again: any = await client.callTool({ name: 'get_probe_result', arguments: { task_id: r.structuredContent.task_id } });
  t.equal(again.structuredContent.task_id, r.structuredContent.task_id);
  t.equal(again.structuredContent.node_results.length, 2);
});

t.test('an ICMP ping of 127.0.0.1 from the agents', { skip: ROOT ? false : 'ICMP needs root (raw sockets)' }, async (t) => {
  const r: any = await client.callTool({ name: 'probe_ping', arguments: { target: '127.0.0.1', params: { count: 2 }, nodes: { count: 2 } } });
  t.notOk(r.isError, JSON.stringify(r.structuredContent));
  t.equal(r.structuredContent.status, 'completed');
  for (const n of r.structuredContent.node_results) t.match(n, { success: true, packets_received: 2 });
});

let polls = 0;
t.test('start and poll: wait false answers with the task ids at once, get_probe_result reads the end', async (t) => {
  const r: any = await client.callTool({ name: 'probe_tcp', arguments: { target: `127.0.0.1:${port}`, nodes: { count: 2 }, wait: false } });
  t.notOk(r.isError, JSON.stringify(r.structuredContent));
  t.match(r.structuredContent, { status: 'queued', task_id: /^pt_/ });
  t.equal(r.structuredContent.task_ids.length, 2);
  t.match(r.content[0].text, /started on 2 node\(s\): poll get_probe_result/);
  let polled: any;
  const deadline = Date.now() + 60_000;
  do {
    polled = await client.callTool({ name: 'get_probe_result', arguments: { task_id: r.structuredContent.task_id } });
    polls += 1;
    if (polled.structuredContent.status === 'completed') break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  } while (Date.now() < deadline);
  t.equal(polled.structuredContent.status, 'completed', 'the polled probe ends');
  for (const n of polled.structuredContent.node_results) t.match(n, { success: true });
});

t.test('the session counts the calls and the probe tasks as units', async (t) => {
  const s = await call(app, 'GET', '/v1/mcp/sessions', { token: user.access_token });
  // http 1 call 2 units, its read-back 1/1, ping (as root) 1/2, the started tcp 1/2, each poll 1/1.
  t.match(s.body.data.items[0], { client_id: 'sdk-ts', total_tool_calls: (ROOT ? 3 : 2) + 1 + polls, total_units: (ROOT ? 5 : 3) + 2 + polls });
});
