import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { CheckItem } from '@vantage/shared-protocol';
import { createAgent, openStateDb } from '@vantage/node-agent';
import { runCheck } from '../../node-agent/src/probes/runner.js';
import { quietLog, testConfig } from '../../node-agent/src/connection/test-support/helpers.js';
import { startPageServer } from '../../node-agent/src/browser/test-support/pages.js';
import { makeToken, waitFor } from '../../control-plane/src/hub/test-harness.js';
import { startPlacementJob } from '../../control-plane/src/monitors/placement-job.js';
import { call, registerUser, testApp } from '../../control-plane/src/test-support/app.js';
import { check, CHROMIUM_PATH, DIST, ensureBuilt, LOOPBACK, loginInBrowser, openBrowser, SHOTS, skip } from './browser-kit.js';

// A browser monitor's artifacts on its console page: a real agent runs the monitor in Debian's
// Chromium against a page server on loopback, uploads the HAR and the screenshot to a real
// control plane on real Postgres; the monitor page shows the screenshot, the request waterfall
// read from the HAR, and offers the HAR as a download (the same bytes the API serves).

t.test('console in Chromium: a browser check\'s screenshot, waterfall and HAR download', { skip }, async (t) => {
  ensureBuilt();
  mkdirSync(SHOTS, { recursive: true });
  const data_dir = mkdtempSync(join(tmpdir(), 'console-cp-data-'));
  t.teardown(() => rmSync(data_dir, { recursive: true, force: true }));
  const { app, sql, url, deps } = await testApp(t, { config: { console_dir: DIST, probe_allow_cidrs: LOOPBACK, plan: 'business', data_dir } });
  const user = await registerUser(app);
  const pages = await startPageServer();
  t.teardown(() => pages.close());

  const state_dir = mkdtempSync(join(tmpdir(), 'console-agent-'));
  const db = openStateDb(state_dir);
  const agent = createAgent({
    db, log: quietLog, runCheck, agent_version: '0.0.0-test', backoff: { min_ms: 50, max_ms: 200 },
    config: testConfig({ control_plane_url: url, token: await makeToken(sql, { country_code: 'DE', user_id: user.user_id }), allow_cidrs: LOOPBACK, browser_executable: CHROMIUM_PATH }),
  });
  const exit = agent.start();
  t.teardown(async () => { await agent.stop(0); await exit; db.close(); rmSync(state_dir, { recursive: true, force: true }); });
  await waitFor(async () => (await sql`SELECT 1 FROM nodes WHERE status = 'online' AND 'browser' = ANY(capabilities)`).length === 1, 120_000);

  const created = await call(app, 'POST', '/v1/monitors', { token: user.access_token, body: { name: 'Shop page', type: 'browser', target: pages.url('/ok'), interval_s: 300, node_count: 1, config: { screenshot: true, viewport: { width: 800, height: 600 } } } });
  t.equal(created.status, 201, 'browser monitor created');
  const monitor_id: string = created.body.data.id;
  // Rounds every 10 s instead of 300, so the test need not wait minutes.
  await sql`UPDATE monitors SET interval_s = 10, revision = revision + 1 WHERE id = ${monitor_id}`;
  const job = startPlacementJob({ sql, log: deps.log, config: { ...deps.config, placement_interval_ms: 60_000 } });
  t.teardown(() => job.stop());
  await sql`UPDATE placement_queue SET due_at = now()`;
  await job.runOnce();
  let har_url = '';
  await waitFor(async () => {
    const items: CheckItem[] = (await call(app, 'GET', `/v1/monitors/${monitor_id}/checks?from=-1h&page_size=50`, { token: user.access_token })).body.data.items;
    har_url = (items.find((c) => (c.output as { har_url?: string; screenshot_url?: string } | null)?.screenshot_url)?.output as { har_url?: string } | undefined)?.har_url ?? '';
    return har_url !== '';
  }, 180_000);

  const { page, problems } = await openBrowser(t);
  await loginInBrowser(page, url, user.email, user.password);
  await page.goto(`${url}/monitors/${monitor_id}`);
  const shot = page.getByTestId('screenshot');
  await shot.waitFor({ timeout: 60_000 });
  await waitFor(async () => (await shot.evaluate((img: { naturalWidth: number }) => img.naturalWidth)) > 0, 60_000);
  t.equal(await shot.evaluate((img: { naturalWidth: number }) => img.naturalWidth), 800, 'the screenshot loads (as wide as the viewport)');
  const waterfall = page.getByTestId('waterfall');
  await waterfall.waitFor({ timeout: 60_000 });
  t.match(await waterfall.textContent(), /\/ok/, 'the waterfall lists the page request');
  t.match(await waterfall.textContent(), /img\.png/, 'and the page\'s image');
  const [download] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), page.getByRole('link', { name: 'Download HAR' }).click()]);
  const archive = JSON.parse(readFileSync((await download.path())!, 'utf8'));
  t.equal(archive.log.version, '1.2', 'the download is the HAR 1.2 archive');
  await check(t, page, 'monitor-browser-artifacts');
  t.same(problems, [], 'no script error or CSP violation');
});
