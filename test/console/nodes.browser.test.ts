import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createAgent, openStateDb } from '@vantage/node-agent';
import { runCheck } from '../../node-agent/src/probes/runner.js';
import { quietLog, testConfig } from '../../node-agent/src/connection/test-support/helpers.js';
import { makeToken, waitFor } from '../../control-plane/src/hub/test-harness.js';
import { call, registerUser, testApp } from '../../control-plane/src/test-support/app.js';
import { check, DIST, ensureBuilt, LOOPBACK, loginInBrowser, openBrowser, SHOTS, skip } from './browser-kit.js';

// A node's page and its owner's actions in Chromium against a real control plane on real Postgres
// with a real agent (the node-agent code) enrolled as the user's: from the directory to the node,
// rename, tags, allow private targets and share (read back through the API), disable (the node
// goes disabled), enable, remove (it leaves the directory). Another user sees the node without
// the owner's actions. axe-core on the page.

t.test('console in Chromium: a node\'s page and its owner\'s actions', { skip }, async (t) => {
  ensureBuilt();
  mkdirSync(SHOTS, { recursive: true });
  const { app, sql, url } = await testApp(t, { config: { console_dir: DIST } });
  const owner = await registerUser(app);
  const other = await registerUser(app);
  const dir = mkdtempSync(join(tmpdir(), 'console-agent-'));
  const db = openStateDb(dir);
  const agent = createAgent({
    db, log: quietLog, runCheck, agent_version: '0.0.0-test', backoff: { min_ms: 50, max_ms: 200 }, capabilities: ['http'],
    config: testConfig({ control_plane_url: url, token: await makeToken(sql, { country_code: 'NL', user_id: owner.user_id }), allow_cidrs: LOOPBACK }),
  });
  const exit = agent.start();
  t.teardown(async () => { await agent.stop(0); await exit; db.close(); rmSync(dir, { recursive: true, force: true }); });
  await waitFor(async () => (await sql`SELECT 1 FROM nodes WHERE status = 'online'`).length === 1, 60_000);
  const [row] = await sql<Array<{ id: string }>>`SELECT id FROM nodes`;
  const node_id = row!.id;
  const node = async () => (await call(app, 'GET', `/v1/nodes/${node_id}`, { token: owner.access_token })).body.data;

  const { page, problems } = await openBrowser(t);
  await loginInBrowser(page, url, owner.email, owner.password);
  await page.goto(`${url}/nodes?mine=true`);
  const start = await node();
  await page.getByRole('link', { name: start.name, exact: true }).click();
  await page.getByLabel('Node name').waitFor({ timeout: 30_000 });
  await page.getByLabel('Node name').fill('Amsterdam rack 2');
  await page.getByLabel('Tags (comma-separated)').fill('ams, rack2');
  await page.getByLabel('Allow my probes of private addresses').check();
  await page.getByRole('button', { name: 'Save node' }).click();
  await page.getByText('Node saved.').waitFor({ timeout: 30_000 });
  t.match(await node(), { name: 'Amsterdam rack 2', tags: ['ams', 'rack2'], allow_private: true }, 'the API has the owner\'s changes');
  await page.getByRole('heading', { name: 'Amsterdam rack 2' }).waitFor({ timeout: 30_000 });
  await check(t, page, 'node-detail-owner');

  await page.getByRole('button', { name: 'Disable node' }).click();
  await page.getByRole('button', { name: 'Enable node' }).waitFor({ timeout: 30_000 });
  t.equal((await node()).status, 'disabled', 'disabled through the API');
  await page.getByRole('button', { name: 'Enable node' }).click();
  await page.getByRole('button', { name: 'Disable node' }).waitFor({ timeout: 30_000 });
  t.not((await node()).status, 'disabled', 'enabled again');

  // Another user: the node's facts, no owner's actions.
  const { page: page2 } = await openBrowser(t);
  await loginInBrowser(page2, url, other.email, other.password);
  await page2.goto(`${url}/nodes/${node_id}`);
  await page2.getByText('Only the owner of this node can change it.').waitFor({ timeout: 30_000 });
  t.equal(await page2.getByRole('button', { name: 'Remove node' }).count(), 0, 'no owner actions for another user');
  await check(t, page2, 'node-detail-visitor');

  await page.getByRole('button', { name: 'Remove node' }).click();
  await page.waitForURL('**/nodes', { timeout: 30_000 });
  const listed = (await call(app, 'GET', '/v1/nodes?mine=true', { token: owner.access_token })).body.data.items as Array<{ id: string }>;
  t.notOk(listed.some((n) => n.id === node_id), 'removed: the directory no longer lists it');
  t.same(problems, [], 'no script error or CSP violation');
});
