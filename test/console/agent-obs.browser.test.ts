import { mkdirSync } from 'node:fs';
import t from 'tap';
import { startRealAgent } from '../../control-plane/src/probes/real-agents.js';
import { makeToken, waitFor } from '../../control-plane/src/hub/test-harness.js';
import { call, registerUser, testApp } from '../../control-plane/src/test-support/app.js';
import { startEndpoints } from '../agent-obs/endpoints.js';
import { check, DIST, ensureBuilt, LOOPBACK, loginInBrowser, openBrowser, SHOTS, skip } from './browser-kit.js';

// The agent observability pages in Chromium against a real control plane on real Postgres, a real
// agent (the node-agent code) and a real OpenAI-compatible server on loopback: the empty list, an
// llm monitor made through the form (read back through the API), a tool monitor whose body is not
// JSON refused in the browser (nothing made) and then made, its checks on its page, the live
// stream showing an event recorded after the page opened, the cost against the budget on the
// list, pause and resume, an edit that keeps the sealed header. axe-core on every page.

t.setTimeout(400_000);

t.test('console in Chromium: agent observability', { skip }, async (t) => {
  ensureBuilt();
  mkdirSync(SHOTS, { recursive: true });
  const endpoints = await startEndpoints({ slow_ms: 3000 });
  t.teardown(() => endpoints.close());
  const { app, sql, url } = await testApp(t, { config: { console_dir: DIST, probe_allow_cidrs: LOOPBACK, plan: 'business' } });
  const user = await registerUser(app);
  const api = async (method: string, path: string, body?: unknown) => (await call(app, method, path, { token: user.access_token, body })).body.data;
  const monitors = async () => await api('GET', '/v1/agent-obs/monitors') as Array<Record<string, any>>;
  await startRealAgent(t, { url, token: await makeToken(sql, { country_code: 'DE', user_id: user.user_id }), allow_cidrs: LOOPBACK, capabilities: ['http'] });
  await waitFor(async () => (await sql`SELECT count(*)::int AS n FROM nodes WHERE status = 'online'`)[0]!.n === 1, 60_000);

  const { page, problems } = await openBrowser(t);
  await loginInBrowser(page, url, user.email, user.password);
  await page.getByRole('link', { name: 'Agent observability', exact: true }).click();
  await page.getByText('No agent-obs monitors yet.', { exact: false }).waitFor({ timeout: 30_000 });
  await check(t, page, 'agent-obs-empty');

  // An llm monitor through the form.
  await page.getByRole('link', { name: 'New agent-obs monitor' }).click();
  await page.getByLabel('Agent name').fill('support bot');
  await page.getByLabel('Endpoint URL').fill(`${endpoints.origin}/v1/chat/completions`);
  await page.getByLabel('Check every (s)').fill('10');
  await page.getByLabel('Slowest answer (ms)').fill('2000');
  await page.getByLabel('Cost of one check (USD)').fill('0.5');
  await page.getByLabel('Monthly budget (USD)').fill('5');
  await page.getByLabel('Model').fill('gpt-4o-mini');
  await page.getByLabel('Prompt').fill('Say pong');
  await page.getByLabel('Request headers').fill('Authorization: Bearer sk-test-secret-abcd');
  await check(t, page, 'agent-obs-new');
  await page.getByRole('button', { name: 'Create monitor' }).click();
  await page.waitForURL(/\/agent-obs\/aom_/, { timeout: 30_000 });
  const [llm] = await monitors();
  t.match(llm, {
    agent_name: 'support bot', type: 'llm', endpoint_url: `${endpoints.origin}/v1/chat/completions`, frequency_seconds: 10, status: 'active',
    failure_threshold: { latency: 2000 }, budget_per_check_usd: 0.5, budget_monthly_usd: 5,
    endpoint_config: { api_style: 'openai', model: 'gpt-4o-mini', prompt: 'Say pong', headers: { Authorization: /^•+abcd$/ } },
  }, 'the API has the monitor as the form made it, its credential header sealed');

  // A tool monitor: a body that is not JSON is refused in the browser, nothing is sent.
  await page.goto(`${url}/agent-obs/new`);
  await page.getByLabel('Agent name').fill('weather tool');
  await page.getByLabel('Kind').selectOption('tool');
  await page.getByLabel('Endpoint URL').fill(`${endpoints.origin}/tool`);
  await page.getByLabel('Check every (s)').fill('60');
  await page.getByLabel('Body (JSON)').fill('{city: Oslo');
  await page.getByRole('button', { name: 'Create monitor' }).click();
  await page.getByText('Body (JSON) is not JSON', { exact: false }).waitFor({ timeout: 30_000 });
  t.equal((await monitors()).length, 1, 'the refused monitor was not made');
  await page.getByLabel('Body (JSON)').fill('{"city": "Oslo"}');
  await page.getByLabel('Expected answer members (JSON object)').fill('{"ok": true}');
  await page.getByRole('button', { name: 'Create monitor' }).click();
  await page.waitForURL(/\/agent-obs\/aom_/, { timeout: 30_000 });
  t.match((await monitors()).find((m) => m.type === 'tool'), { endpoint_config: { body: { city: 'Oslo' }, expected_json: { ok: true } } }, 'the tool settings as typed');

  // The llm monitor's page fills with its checks as the agent runs them.
  await page.goto(`${url}/agent-obs/${llm!.id}`);
  await page.getByRole('heading', { name: 'support bot' }).waitFor({ timeout: 30_000 });
  await waitFor(async () => (await api('GET', `/v1/agent-obs/monitors/${llm!.id}/checks`)).items.length > 0, 180_000);
  await page.reload();
  await page.locator('table tbody tr').first().getByText('Up').waitFor({ timeout: 30_000 });
  await check(t, page, 'agent-obs-monitor');

  // The live stream: an event recorded after the page opened appears without a reload.
  await page.getByRole('link', { name: 'Live events' }).last().click();
  await page.getByText('Live: new events appear as they are recorded.').waitFor({ timeout: 30_000 });
  await page.locator('tr[data-event-id]').first().waitFor({ timeout: 30_000 });
  const before = new Set(((await api('GET', `/v1/agent-obs/events?monitor_id=${llm!.id}&limit=200`)).items as Array<{ id: string }>).map((e) => e.id));
  const row = page.locator('tr[data-event-id]').first();
  await waitFor(async () => !before.has((await row.getAttribute('data-event-id')) ?? ''), 180_000);
  const live = await row.getAttribute('data-event-id');
  const stored = (await api('GET', `/v1/agent-obs/events?monitor_id=${llm!.id}&limit=200`)).items.find((e: { id: string }) => e.id === live);
  t.match(stored, { monitor_id: llm!.id, success: true, cost_usd: (20 * 0.15 + 5 * 0.6) / 1e6 }, 'the new row is an event the API recorded after the page opened');
  t.match(await row.innerText(), /support bot[\s\S]*Success[\s\S]*\$0\.000006[\s\S]*DE/, 'shown with its monitor, outcome, cost and region');
  await page.getByLabel('Theme').selectOption('dark');
  await check(t, page, 'agent-obs-stream-dark');
  await page.getByLabel('Theme').selectOption('system');

  // The list: the month's cost against the budget, pause and resume.
  await page.getByRole('link', { name: 'Monitors', exact: true }).last().click();
  const bar = page.getByRole('meter', { name: 'Cost this month of support bot against its budget' });
  await bar.waitFor({ timeout: 30_000 });
  t.equal(await bar.getAttribute('max'), '5', 'the bar runs to the monthly budget');
  t.match(await page.locator('tr', { has: bar }).innerText(), /of \$5\.00/, 'the figures beside the bar');
  await page.getByRole('button', { name: 'Pause support bot' }).click();
  await page.getByRole('button', { name: 'Resume support bot' }).waitFor({ timeout: 30_000 });
  t.equal((await monitors()).find((m) => m.id === llm!.id)!.status, 'paused', 'paused through the API');
  await check(t, page, 'agent-obs-list');
  await page.getByRole('button', { name: 'Resume support bot' }).click();
  await page.getByRole('button', { name: 'Pause support bot' }).waitFor({ timeout: 30_000 });
  t.equal((await monitors()).find((m) => m.id === llm!.id)!.status, 'active', 'resumed through the API');

  // Edit: the form holds the saved values; the masked header goes back unchanged and keeps its secret.
  await page.goto(`${url}/agent-obs/${llm!.id}/edit`);
  await page.getByLabel('Monthly budget (USD)').waitFor({ timeout: 30_000 });
  t.equal(await page.getByLabel('Model').inputValue(), 'gpt-4o-mini', 'the saved model in the form');
  await page.getByLabel('Monthly budget (USD)').fill('10');
  await page.getByRole('button', { name: 'Save monitor' }).click();
  await page.waitForURL(`**/agent-obs/${llm!.id}`, { timeout: 30_000 });
  t.match(await api('GET', `/v1/agent-obs/monitors/${llm!.id}`), { budget_monthly_usd: 10, endpoint_config: { model: 'gpt-4o-mini', headers: { Authorization: /^•+abcd$/ } } }, 'saved');
  const seen = endpoints.seen['/v1/chat/completions']!.length;
  await waitFor(async () => endpoints.seen['/v1/chat/completions']!.length > seen, 120_000);
  t.equal(endpoints.seen['/v1/chat/completions']!.at(-1)!.headers.authorization, 'Bearer sk-test-secret-abcd', 'the sealed header still reaches the endpoint after the edit');
  t.same(problems, [], 'no script error or CSP violation');
});
