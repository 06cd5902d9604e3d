import t from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { call, createApiKey, registerUser, testApp } from '../test-support/app.js';
import { seedMonitor } from '../checks/test-support.js';
import { addNode } from '../probes/test-support.js';
import { startMcpListener } from './listener.js';

/*
 * The HTTP+SSE transport (MCP 2024-11-05) beside Streamable HTTP, driven by the official
 * TypeScript SDK's SSE client: the same token checks on the stream and on each message, the
 * tools of the token's scope, the session and its calls recorded (client named by its
 * initialize), the session ended when the stream closes; another token cannot post into a stream.
 */

t.test('a session over SSE: tools, records, refusals', async (t) => {
  const env = await testApp(t);
  const mcp = await startMcpListener(env.deps, '127.0.0.1', 0);
  t.teardown(() => mcp.close());
  const base = new URL(mcp.url);
  const sse = new URL('/sse', base);
  const user = await registerUser(env.app);
  const api = (method: string, path: string, body?: unknown) => call(env.app, method, path, { token: user.access_token, body });
  const token = async (body: Record<string, unknown>) => (await api('POST', '/v1/mcp/tokens', body)).body.data as { token: { id: string }; secret: string };
  const node_de = await addNode(env.sql, { country: 'DE', region: 'eu-west', status: 'online' });
  const { monitor_id } = await seedMonitor(env.sql, { user_id: user.user_id, nodes: 0, state: 'up' });

  const { secret, token: tok } = await token({ type: 'workspace', name: 'sse agent', scope: { tools: ['list_nodes', 'get_monitor'] } });
  const headers = { authorization: `Bearer ${secret}` };
  const client = new Client({ name: 'vantage-tests-typescript', version: '1.2.3' });
  const transport = new SSEClientTransport(sse, { requestInit: { headers }, eventSourceInit: { fetch: (url, init) => fetch(url, { ...init, headers: { ...init?.headers, ...headers } }) } });
  await client.connect(transport);
  t.same((await client.listTools()).tools.map((x) => x.name).sort(), ['get_monitor', 'list_nodes'], 'the tools of the token\'s scope');
  let r: any = await client.callTool({ name: 'list_nodes', arguments: {} });
  t.same(r.structuredContent.items.map((n: any) => n.id), [node_de]);
  r = await client.callTool({ name: 'get_monitor', arguments: { id: monitor_id } });
  t.match(r.structuredContent, { id: monitor_id, state: 'up' });

  const sessions = (await api('GET', '/v1/mcp/sessions')).body.data;
  t.equal(sessions.total, 1);
  const session = sessions.items[0];
  t.match(session, { id: /^mcps_/, token_id: tok.id, client_id: 'sdk-ts', client_version: '1.2.3', client_ip: '127.0.0.1', ended_at: null, total_tool_calls: 2 }, 'recorded, named by its initialize');
  t.equal((await api('GET', `/v1/mcp/tool-calls?session_id=${session.id}`)).body.data.total, 2, 'its calls are recorded under it');

  // The messages URL of this stream, as the transport announced it: another token cannot use it.
  const endpoint = (transport as unknown as { _endpoint: URL })._endpoint;
  t.match(endpoint.pathname, '/messages');
  const other = await token({ type: 'workspace', name: 'other' });
  const post = (authorization: string | undefined) => fetch(endpoint, {
    method: 'POST', headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'tools/list' }),
  });
  let res = await post(`Bearer ${other.secret}`);
  t.equal(res.status, 404, 'another token\'s post into the stream is not found');
  res = await post(undefined);
  t.equal(res.status, 401, 'a post without a credential is refused');
  t.equal(((await res.json()) as { error: { code: string } }).error.code, 'AUTH_REQUIRED');
  res = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{not json' });
  t.equal(res.status, 400, 'a body that is not JSON is refused');

  // The stream itself takes the same credentials as /mcp.
  const key = await createApiKey(env.app, user.access_token);
  res = await fetch(sse, { headers: { accept: 'text/event-stream', authorization: `Bearer ${key.key}` } });
  t.equal(res.status, 401, 'an API key cannot open a stream');
  t.equal(((await res.json()) as { error: { code: string } }).error.code, 'AUTH_INVALID_TOKEN');

  await client.close();
  let ended: string | null = null;
  for (let i = 0; i < 200 && ended === null; i++) {
    ended = (await api('GET', `/v1/mcp/sessions/${session.id}`)).body.data.ended_at;
    if (ended === null) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  t.ok(ended, 'closing the stream ends the session');
});
