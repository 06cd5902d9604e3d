import { mkdirSync } from 'node:fs';
import t from 'tap';
import { addRollupDeltas, type RollupDelta } from '../../control-plane/src/checks/decide.db.js';
import { seedNodes } from '../../control-plane/src/checks/test-support.js';
import { call, registerUser, testApp } from '../../control-plane/src/test-support/app.js';
import { check, DIST, ensureBuilt, loginInBrowser, openBrowser, SHOTS, skip } from './browser-kit.js';

// The dashboard pages in Chromium against a real control plane on real Postgres, with checks and
// round rollups of a real monitor: the empty list, a dashboard made from the monitor overview
// template whose widgets are drawn from the widget-data call (the uptime figure the rollups
// give, uPlot's canvas), its settings saved with expected_version and a change made elsewhere
// shown as a conflict; the widget set edited (options that are not JSON refused in the browser,
// a value the API refuses shown in its widget, a text widget added, read back through the API)
// and a conflicting save; the share link opened by a visitor without a session, then rotated;
// delete. axe-core on every page (one in the dark theme), screenshots to .tap/console/.

const H = 3_600_000;

t.test('console in Chromium: dashboards', { skip }, async (t) => {
  ensureBuilt();
  mkdirSync(SHOTS, { recursive: true });
  const { app, url, sql } = await testApp(t, { config: { console_dir: DIST } });
  const user = await registerUser(app);
  const api = async (method: string, path: string, body?: unknown) => (await call(app, method, path, { token: user.access_token, ...(body ? { body } : {}) })).body;
  const monitor = (await api('POST', '/v1/monitors', { name: 'Checkout API', type: 'http', target: 'https://1.1.1.1/' })).data;
  // Checks on two nodes in the last hours (response times for the series) and round rollups: 3 hours up, 1 down → 75 % uptime.
  const nodes = await seedNodes(sql, 2, ['DE', 'US']);
  const now = Date.now();
  for (const [n, node] of nodes.entries()) {
    const id = (await sql`INSERT INTO check_series (monitor_id, node_id) VALUES (${monitor.id}, ${node}) RETURNING id`)[0]!.id as number;
    for (let i = 1; i <= 4; i++) {
      await sql`INSERT INTO checks (scheduled_at, series_id, start_offset_ms, duration_ms, response_ms, success)
        VALUES (${new Date(now - i * 20 * 60_000)}, ${id}, 0, ${100 * (n + 1) + i}, ${100 * (n + 1) + i}, true)`;
    }
  }
  const hour = Math.floor(now / H) * H;
  const delta = (h: number, k: Partial<RollupDelta>): RollupDelta => ({
    monitor_id: monitor.id, hour: new Date(h), up_s: 0, degraded_s: 0, down_s: 0, maintenance_s: 0, no_data_s: 0, rounds_up: 0, rounds_degraded: 0, rounds_down: 0, rounds_no_data: 0, ...k,
  });
  await sql.begin((tx) => addRollupDeltas(tx, [
    ...[2, 3, 4].map((k) => delta(hour - k * H, { up_s: 3600, rounds_up: 60 })), delta(hour - 5 * H, { down_s: 3600, rounds_down: 60 }),
  ]));

  const { context, page, problems } = await openBrowser(t);
  await loginInBrowser(page, url, user.email, user.password);
  await page.getByRole('link', { name: 'Dashboards', exact: true }).click();
  await page.getByText('No dashboards yet.').waitFor({ timeout: 30_000 });
  await check(t, page, 'dashboards-empty');

  await page.getByLabel('Name').fill('Ops overview');
  await page.getByLabel('Start from').selectOption('monitor_overview');
  await page.getByRole('button', { name: 'Create dashboard' }).click();
  await page.waitForURL(/\/dashboards\/dash_/, { timeout: 30_000 });
  const id = page.url().split('/').pop()!;
  const uptime = page.getByRole('region', { name: 'Uptime' }).first();
  await uptime.getByText('75.000 %').waitFor({ timeout: 30_000 });
  const series = page.getByRole('region', { name: 'Response time (p95)' });
  await series.locator('canvas').first().waitFor({ timeout: 30_000 });
  await series.getByText('Checkout API').first().waitFor({ timeout: 30_000 });
  await page.getByRole('region', { name: 'Monitors, worst first' }).getByRole('cell', { name: 'Checkout API' }).waitFor({ timeout: 30_000 });
  await page.getByRole('img', { name: /^Checkout API: from 0.000 % to 100.000 %/ }).waitFor({ timeout: 30_000 });
  await page.getByRole('region', { name: 'Time by state' }).getByText(/^Down: 25.0 %/).waitFor({ timeout: 30_000 });
  await check(t, page, 'dashboard');
  await page.getByLabel('Theme').selectOption('dark');
  await check(t, page, 'dashboard-dark');
  await page.getByLabel('Theme').selectOption('light');

  // Settings with expected_version; then a change made elsewhere is a conflict.
  await page.getByLabel('Description').fill('What on-call looks at first');
  await page.getByLabel('Anyone with the share link can see it').check();
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByText('What on-call looks at first').first().waitFor({ timeout: 30_000 });
  await page.getByText('The link works').waitFor({ timeout: 30_000 });
  const saved = (await api('GET', `/v1/dashboards/${id}`)).data;
  t.match(saved, { is_public: true, description: 'What on-call looks at first', version: 2 }, 'the API has the settings, version raised');
  t.equal((await api('PATCH', `/v1/dashboards/${id}`, { name: 'Renamed elsewhere' })).data.version, 3, 'changed through the API meanwhile');
  await page.getByLabel('Name').fill('Mine');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByText(/changed elsewhere \(it is now at version 3\)/).waitFor({ timeout: 30_000 });
  t.equal((await api('GET', `/v1/dashboards/${id}`)).data.name, 'Renamed elsewhere', 'the stale save changed nothing');
  await check(t, page, 'dashboard-conflict');
  await page.getByRole('button', { name: 'Reload' }).click();
  await page.getByRole('heading', { name: 'Renamed elsewhere' }).waitFor({ timeout: 30_000 });

  // The widget editor: options that are not JSON are refused in the browser; a text widget added.
  await page.getByRole('link', { name: 'Edit widgets' }).first().click();
  await page.getByRole('group', { name: /^Widget 7:/ }).waitFor({ timeout: 30_000 });
  await check(t, page, 'dashboard-widgets');
  const before = (await api('GET', `/v1/dashboards/${id}`)).data;
  await page.getByRole('group', { name: /^Widget 1:/ }).getByLabel('Options (JSON)').fill('{decimals: 1');
  await page.getByLabel('New widget type').selectOption('text');
  await page.getByRole('button', { name: 'Add widget' }).click();
  const added = page.getByRole('group', { name: /^Widget 8:/ });
  await added.getByLabel('Title').fill('Runbook');
  await added.getByLabel('Text (Markdown)').fill('Page the payments team first.');
  await page.getByRole('button', { name: 'Save widgets' }).click();
  await page.getByText('Fix the marked widgets first').waitFor({ timeout: 30_000 });
  t.equal((await api('GET', `/v1/dashboards/${id}`)).data.version, before.version, 'nothing sent');
  // Options the API refuses: its message shows in that widget, nothing is written.
  await page.getByRole('group', { name: /^Widget 1:/ }).getByLabel('Options (JSON)').fill('{"decimals": 9}');
  await page.getByRole('button', { name: 'Save widgets' }).click();
  await page.getByRole('group', { name: /^Widget 1:/ }).getByRole('alert').getByText(/^options\.decimals: /).waitFor({ timeout: 30_000 });
  t.equal((await api('GET', `/v1/dashboards/${id}`)).data.version, before.version, 'the refused set was not written');
  await page.getByRole('group', { name: /^Widget 1:/ }).getByLabel('Options (JSON)').fill('{"decimals": 1}');
  await page.getByRole('button', { name: 'Remove widget 4' }).click();
  await page.getByRole('button', { name: 'Save widgets' }).click();
  await page.waitForURL(`**/dashboards/${id}`, { timeout: 30_000 });
  await page.getByRole('region', { name: 'Runbook' }).getByText('Page the payments team first.').waitFor({ timeout: 30_000 });
  await page.getByRole('region', { name: 'Uptime' }).first().getByText('75.0 %').waitFor({ timeout: 30_000 });
  const edited = (await api('GET', `/v1/dashboards/${id}`)).data;
  t.equal(edited.version, before.version + 1, 'one write');
  t.same(edited.widgets.map((w: { type: string }) => w.type), ['stat', 'gauge', 'donut', 'status_strip', 'table', 'timeseries', 'text'], 'the alert stat removed, the text widget added');
  t.same(edited.widgets[0].options, { decimals: 1 }, 'the options as typed');
  t.equal(edited.widgets[0].id, before.widgets[0].id, 'kept widgets keep their ids');
  t.match(edited.widgets[6], { title: 'Runbook', options: { markdown: 'Page the payments team first.' }, data_source: null }, 'the text widget through the API');

  // A widget save against a version changed elsewhere is refused and says so.
  await page.getByRole('link', { name: 'Edit widgets' }).first().click();
  await page.getByRole('group', { name: /^Widget 7:/ }).waitFor({ timeout: 30_000 });
  await api('PUT', `/v1/dashboards/${id}/widgets`, { widgets: edited.widgets.slice(0, 2) });
  await page.getByRole('button', { name: 'Remove widget 7' }).click();
  await page.getByRole('button', { name: 'Save widgets' }).click();
  await page.getByText(/changed elsewhere/).waitFor({ timeout: 30_000 });
  t.equal((await api('GET', `/v1/dashboards/${id}`)).data.widgets.length, 2, 'the stale widget set was not written');
  await page.getByRole('button', { name: 'Reload' }).click();
  await page.getByRole('group', { name: /^Widget 3:/ }).waitFor({ state: 'detached', timeout: 30_000 });
  t.equal(await page.getByRole('group', { name: /^Widget \d+:/ }).count(), 2, 'the editor shows the set as it is now');
  await page.getByRole('link', { name: /^Back to / }).click();

  // Share: the link opens the read-only view; a rotation ends the old link.
  const shareUrl = (await page.getByTestId('share-url').textContent({ timeout: 30_000 }))!;
  t.equal(shareUrl, (await api('GET', `/v1/dashboards/${id}`)).data.share_url, 'the share link shown is the API\'s');
  // A visitor without a session (the cookie cleared; this tab keeps its token in memory).
  await context.clearCookies();
  const visitor = await context.newPage();
  await visitor.goto(shareUrl);
  await visitor.getByText('A shared dashboard, read only.').waitFor({ timeout: 30_000 });
  await visitor.getByRole('region', { name: 'Uptime' }).first().getByText('75.0 %').waitFor({ timeout: 30_000 });
  t.equal(await visitor.getByRole('button', { name: 'Log out' }).count(), 0, 'the visitor is not signed in');
  await check(t, visitor, 'dashboard-shared');
  await page.getByRole('button', { name: 'Make a new link' }).click();
  await page.waitForFunction((old) => document.querySelector('[data-testid="share-url"]')?.textContent !== old, shareUrl, { timeout: 30_000 });
  await visitor.reload();
  await visitor.getByRole('alert').getByText(/NOT_FOUND/).waitFor({ timeout: 30_000 });
  await visitor.close();
  t.not((await api('GET', `/v1/dashboards/${id}`)).data.share_url, shareUrl, 'the API has a new link');

  await page.getByRole('button', { name: 'Delete dashboard' }).click();
  await page.waitForURL('**/dashboards', { timeout: 30_000 });
  await page.getByText('No dashboards yet.').waitFor({ timeout: 30_000 });
  t.same((await api('GET', '/v1/dashboards')).data.items, [], 'deleted through the API');
  t.same(problems.filter((p) => !/status of (400|404|409)/.test(p)), [], 'no script error or CSP violation (but the refusals the test provoked)');
});
declare const document: { querySelector(s: string): { textContent: string | null } | null };
