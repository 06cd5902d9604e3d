import { mkdirSync } from 'node:fs';
import t from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startMcpListener } from '../../control-plane/src/mcp/listener.js';
import { call, registerUser, testApp } from '../../control-plane/src/test-support/app.js';
import { check, DIST, ensureBuilt, loginInBrowser, openBrowser, SHOTS, skip } from './browser-kit.js';

// The MCP pages in Chromium against a real control plane on real Postgres and its MCP entry point
// on loopback: a token made through the form (its secret shown once) is used by the official
// TypeScript SDK client for two tool calls, one refused; the sessions page shows the session, the
// tool calls page both calls and, filtered by status, the refused one only; the token edited and
// revoked with a reason (each read back through the API). axe-core on every page.

t.setTimeout(300_000);

t.test('console in Chromium: MCP tokens, sessions and tool calls', { skip }, async (t) => {
  ensureBuilt();
  mkdirSync(SHOTS, { recursive: true });
  const { app, deps, url } = await testApp(t, { config: { console_dir: DIST } });
  const mcp = await startMcpListener(deps, '127.0.0.1', 0);
  t.teardown(() => mcp.close());
  const user = await registerUser(app);
  const api = async (method: string, path: string, body?: unknown) => (await call(app, method, path, { token: user.access_token, body })).body.data;
  const { page, problems } = await openBrowser(t);
  await loginInBrowser(page, url, user.email, user.password);

  await page.getByRole('link', { name: 'MCP', exact: true }).click();
  await page.getByText('No MCP tokens yet.', { exact: false }).waitFor({ timeout: 30_000 });
  await check(t, page, 'mcp-tokens-empty');

  // A workspace token limited to two tools; its secret is shown once.
  await page.getByLabel('Name', { exact: true }).fill('ci agent');
  await page.getByLabel('Type').selectOption('workspace');
  await page.getByLabel('Tools it may call').fill('list_monitors, get_monitor');
  await page.getByLabel('Allowed client addresses (CIDR)').fill('127.0.0.0/8');
  await page.getByRole('button', { name: 'Create token' }).click();
  const secret = (await page.getByTestId('mcp-secret').innerText()).trim();
  t.match(secret, /^svc_mcp_/, 'the secret is shown');
  const [made] = await api('GET', '/v1/mcp/tokens') as Array<Record<string, any>>;
  t.match(made, { name: 'ci agent', type: 'workspace', scope: { tools: ['list_monitors', 'get_monitor'], regions: [] }, ip_whitelist: ['127.0.0.0/8'], auto_renew: true, revoked: false });
  await page.getByRole('link', { name: 'ci agent', exact: true }).waitFor({ timeout: 30_000 });
  await check(t, page, 'mcp-tokens');

  // The SDK client uses it: one call answered, one refused (an unknown monitor).
  const client = new Client({ name: 'console-typescript-client', version: '1.2.3' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url), { requestInit: { headers: { authorization: `Bearer ${secret}` } } }));
  t.teardown(() => client.close());
  t.notOk((await client.callTool({ name: 'list_monitors', arguments: {} })).isError, 'list_monitors answered');
  t.ok((await client.callTool({ name: 'get_monitor', arguments: { id: 'm_01jd3k6w9z4q8r2t7v5x1y3b6c' } })).isError, 'get_monitor of an unknown id refused');

  await page.getByRole('link', { name: 'Sessions', exact: true }).first().click();
  const session = page.locator('tbody tr').first();
  await session.getByText('TypeScript SDK').waitFor({ timeout: 30_000 });
  // The token's name replaces its id once the token list has loaded beside the sessions.
  await session.getByText('ci agent').waitFor({ timeout: 30_000 });
  t.match(await session.innerText(), /ci agent[\s\S]*1\.2\.3[\s\S]*127\.0\.0\.1[\s\S]*2 calls/, 'the session: token, client, address, calls');
  await check(t, page, 'mcp-sessions');

  await session.getByRole('link', { name: '2 calls' }).click();
  await page.waitForURL(/\/mcp-tool-calls\?session_id=mcps_/, { timeout: 30_000 });
  await page.locator('tbody tr').nth(1).waitFor({ timeout: 30_000 });
  const calls = await page.locator('tbody tr').allInnerTexts();
  t.equal(calls.length, 2, 'both calls of the session');
  t.match(calls.join('\n'), /get_monitor[\s\S]*Failure[\s\S]*MONITOR_NOT_FOUND/, 'the refused call with its error class');
  await check(t, page, 'mcp-tool-calls');
  await page.getByLabel('Status').selectOption('success');
  await page.waitForURL(/status=success/, { timeout: 30_000 });
  await page.locator('tbody tr', { hasText: 'get_monitor' }).waitFor({ state: 'detached', timeout: 30_000 });
  t.equal(await page.locator('tbody tr').count(), 1, 'filtered: the answered call only');
  t.match(await page.locator('tbody tr').innerText(), /list_monitors[\s\S]*Success/);

  // Edit, then revoke with a reason: the token's page opened by its address.
  await page.goto(`${url}/mcp-tokens/${made!.id}`);
  await page.getByLabel('Name', { exact: true }).fill('ci agent v2');
  await page.getByLabel('Tools it may call').fill('list_monitors');
  await page.getByRole('button', { name: 'Save token' }).click();
  await page.getByText('Token saved.').waitFor({ timeout: 30_000 });
  t.match(await api('GET', `/v1/mcp/tokens/${made!.id}`), { name: 'ci agent v2', scope: { tools: ['list_monitors'] }, ip_whitelist: ['127.0.0.0/8'], revoked: false }, 'saved through PATCH');
  await check(t, page, 'mcp-token');
  await page.getByLabel('Reason').fill('rotated after the demo');
  await page.getByRole('button', { name: 'Revoke token' }).click();
  await page.getByText('Revoked', { exact: true }).waitFor({ timeout: 30_000 });
  t.match(await api('GET', `/v1/mcp/tokens/${made!.id}`), { revoked: true, revoke_reason: 'rotated after the demo' }, 'revoked with the reason');
  t.same(problems, [], 'no script error or CSP violation');
});
