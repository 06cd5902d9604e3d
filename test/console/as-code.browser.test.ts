import { spawn } from 'node:child_process';
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { applyFiles, createApiClient, exportAccount } from '@vantage/node-agent/as-code';
import { call, createApiKey, registerUser, testApp } from '../../control-plane/src/test-support/app.js';
import { asCodeFixtures } from '../../control-plane/src/test-support/as-code.js';
import { check, DIST, ensureBuilt, LOOPBACK, loginInBrowser, openBrowser, SHOTS, skip } from './browser-kit.js';

// Monitoring as code in the console, in Chromium against a real control plane on real Postgres:
// resources of every kind applied from a file with the engine `vantage apply` runs; the console
// export downloaded, written over that file and given to the real `vantage plan` CLI (no changes;
// planned from another path, only marks move, no field differs); then, beside resources made
// through the API, every list and edit page shows the file on the marked ones with their edit
// and delete controls disabled and the unmarked ones editable; an unmark on the as-code page
// makes one editable again. axe-core on the pages, screenshots to .tap/console/.

const VANTAGE = fileURLToPath(new URL('../../node-agent/bin/vantage.mjs', import.meta.url));
/** Signed webhook channel secrets: `whsec_` and the base64 of 24-64 bytes. */
const SECRET = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
const OTHER_SECRET = `whsec_${Buffer.from('fedcba9876543210fedcba9876543210').toString('base64')}`;

const SOURCE = `version: 1
monitor_groups:
  Web: { sort_order: 10 }
alert_channels:
  Ops hook:
    type: webhook
    config:
      url: http://127.0.0.1:9/ops
      secret: { env: OPS_HOOK_SECRET }
monitors:
  Checkout: { type: https, target: "https://1.1.1.1/health", group: Web, tags: [prod] }
alert_policies:
  Checkout down:
    monitor: Checkout
    channels: [Ops hook]
    recovery_n: 2
webhook_endpoints:
  On-call bridge:
    url: http://127.0.0.1:9/hook
    events: [monitor.down, monitor.up]
alert_silences:
  Database migration:
    monitor: Checkout
    starts_at: "2030-01-01T01:00:00Z"
    ends_at: "2030-01-01T03:00:00Z"
maintenance_windows:
  Nightly deploy:
    scope_type: monitor
    scope: [Checkout]
    starts_at: "2030-01-01T02:00:00Z"
    ends_at: "2030-01-01T02:30:00Z"
    recurrence: daily
status_pages:
  shop-ascode:
    title: Shop status
    components:
      - { monitor: Checkout, display_name: Checkout API, section: Core }
dashboards:
  Shop board:
    description: from git
    widgets:
      - { type: stat, title: Uptime, position: { x: 0, y: 0, w: 3, h: 2 }, data_source: { kind: monitor, metric: uptime } }
      - { type: text, position: { x: 3, y: 0, w: 3, h: 2 }, options: { markdown: "On call" } }
`;

/** Run the real `vantage` CLI; resolves with its exit code and output. */
function vantage(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [VANTAGE, ...args], { env: { PATH: process.env.PATH!, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { err += d; });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out, err })));
}

t.test('console in Chromium: monitoring as code', { skip }, async (t) => {
  ensureBuilt();
  await mkdir(SHOTS, { recursive: true });
  const { app, url } = await testApp(t, { config: { console_dir: DIST, delivery_allow_cidrs: LOOPBACK } });
  const { dir, file } = await asCodeFixtures(t, app, url, 'console-as-code-');
  const user = await registerUser(app);
  const { key } = await createApiKey(app, user.access_token);
  const engine = createApiClient({ base_url: url, token: key });
  const rest = async (method: string, path: string, body?: unknown) => (await call(app, method, path, { token: user.access_token, ...(body ? { body } : {}) })).body;

  const source = await file('shop.yaml', SOURCE);
  const applied = await applyFiles(engine, [source], { env: { OPS_HOOK_SECRET: SECRET }, prune: false });
  t.same(applied.issues, [], 'the file has no issue');
  t.same(applied.results.filter((r) => r.status !== 'done'), [], 'every resource applied');

  const { page, problems } = await openBrowser(t);
  await loginInBrowser(page, url, user.email, user.password);

  // The as-code page: the marks, and the export through the same exporter as `vantage export`.
  await page.getByRole('link', { name: 'As code', exact: true }).click();
  await page.getByRole('heading', { name: 'Monitoring as code' }).waitFor({ timeout: 30_000 });
  const checkoutMark = page.getByRole('row', { name: /^Monitor Checkout / });
  await checkoutMark.getByText(source).waitFor({ timeout: 30_000 });
  t.equal(await page.getByRole('row').count(), 1 + 9, 'one row per marked resource, under the header');
  await check(t, page, 'as-code');
  const [download] = await Promise.all([page.waitForEvent('download', { timeout: 60_000 }), page.getByRole('button', { name: 'Download' }).click()]);
  t.match(download.suggestedFilename(), /^vantage-\d{4}-\d{2}-\d{2}\.yaml$/, 'a YAML file');
  await download.saveAs(source);
  const downloaded = await readFile(source, 'utf8');
  t.equal(downloaded, await exportAccount(engine), 'the file is what `vantage export` prints');
  t.match(downloaded, 'secret:\n        env: VANTAGE_SECRET_OPS_HOOK_SECRET', 'the channel secret as an env reference');

  // Round trip through the real CLI: the downloaded file, where it was applied from, plans no change.
  const cli = { VANTAGE_CONFIG_DIR: dir, VANTAGE_SECRET_OPS_HOOK_SECRET: SECRET };
  const plan = await vantage(['plan', source, '--url', url, '--key', key], cli);
  t.equal(plan.code, 0, `vantage plan exits 0 (no changes): ${plan.err}`);
  t.match(plan.out, 'No changes. The account matches the files.');
  const elsewhere = join(dir, 'elsewhere.yaml');
  await copyFile(source, elsewhere);
  const moved = await vantage(['plan', elsewhere, '--url', url, '--key', key, '--json'], cli);
  t.equal(moved.code, 2, 'from another path the marks would move');
  const changes = (JSON.parse(moved.out) as { changes: Array<{ mark_only: boolean; fields: unknown[]; name: string }> }).changes;
  t.equal(changes.length, 9, 'every resource');
  t.same(changes.filter((c) => !c.mark_only || c.fields.length > 0), [], 'no field differs: only the marks would move');

  // Resources made through the API beside them: not marked, editable.
  const mine = (await rest('POST', '/v1/monitors', { name: 'Console made', type: 'https', target: 'https://1.1.1.1/' })).data;
  const checkout = (await rest('GET', '/v1/monitors?q=Checkout')).data.items[0];
  await rest('POST', '/v1/alert-channels', { name: 'Console hook', type: 'webhook', config: { url: 'http://127.0.0.1:9/other', secret: OTHER_SECRET } });
  await rest('POST', '/v1/alert-silences', { monitor_id: mine.id, reason: 'Console pause', starts_at: '2030-03-01T00:00:00Z', ends_at: '2030-03-02T00:00:00Z' });
  await rest('POST', '/v1/maintenance-windows', { title: 'Console window', scope_type: 'all', starts_at: '2030-03-01T00:00:00Z', ends_at: '2030-03-01T01:00:00Z' });
  await rest('POST', '/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/console', description: 'Console sink', events: ['monitor.down'] });
  const hook = (await rest('GET', '/v1/alert-channels')).data.items.find((c: { name: string }) => c.name === 'Console hook');
  await rest('POST', '/v1/alert-policies', { name: 'Console policy', monitor_id: mine.id, channel_ids: [hook.id] });
  const board = (await rest('POST', '/v1/dashboards', { name: 'Console board' })).data;
  const shopBoard = (await rest('GET', '/v1/dashboards')).data.items.find((d: { name: string }) => d.name === 'Shop board');
  const badge = `Managed by file ${source}`;

  await page.getByRole('link', { name: 'Monitors', exact: true }).click();
  await page.getByRole('row', { name: /^Checkout / }).getByText(badge).waitFor({ timeout: 30_000 });
  await page.getByRole('row', { name: /^Console made / }).waitFor({ timeout: 30_000 });
  t.equal(await page.getByRole('row', { name: /^Console made / }).getByText('Managed by file').count(), 0, 'the API-made monitor has no badge');
  await check(t, page, 'as-code-monitors');

  await page.goto(`${url}/monitors/${checkout.id}`);
  await page.getByRole('note').getByText('Its name in the file: Checkout.').waitFor({ timeout: 30_000 });
  t.ok(await page.getByRole('button', { name: 'Delete', exact: true }).isDisabled(), 'a managed monitor cannot be deleted here');
  t.ok(await page.getByRole('button', { name: 'Edit', exact: true }).isDisabled(), 'nor edited');
  t.ok(await page.getByRole('button', { name: 'Pause', exact: true }).isEnabled(), 'pausing is not the file\'s');
  await check(t, page, 'as-code-monitor-managed');
  await page.goto(`${url}/monitors/${checkout.id}/edit`);
  await page.getByRole('note').waitFor({ timeout: 30_000 });
  t.ok(await page.getByLabel('Name', { exact: true }).isDisabled(), 'the edit form is read-only');
  t.ok(await page.getByRole('button', { name: 'Save monitor' }).isDisabled(), 'and cannot be saved');
  await page.goto(`${url}/monitors/${mine.id}`);
  await page.getByRole('link', { name: 'Edit', exact: true }).waitFor({ timeout: 30_000 });
  t.ok(await page.getByRole('button', { name: 'Delete', exact: true }).isEnabled(), 'an unmarked monitor can be deleted');
  t.equal(await page.getByRole('note').count(), 0, 'and has no note');

  // Each list: the managed row shows its file and its controls are disabled; the other row's are not.
  const rows = async (path: string, managed: [RegExp, string], other: [RegExp, string]) => {
    await page.goto(`${url}${path}`);
    const m = page.getByRole('row', { name: managed[0] });
    await m.getByText(badge).waitFor({ timeout: 30_000 });
    await page.getByRole('note').getByText(/read-only here/).waitFor({ timeout: 30_000 });
    t.ok(await m.getByRole('button', { name: managed[1], exact: true }).isDisabled(), `${path}: "${managed[1]}" of the managed row is disabled`);
    t.ok(await page.getByRole('row', { name: other[0] }).getByRole('button', { name: other[1], exact: true }).isEnabled(), `${path}: "${other[1]}" of the other row is not`);
  };
  await rows('/alerts/channels', [/^Ops hook /, 'Delete channel Ops hook'], [/^Console hook /, 'Delete channel Console hook']);
  await rows('/alerts/policies', [/^Checkout down /, 'Edit policy Checkout down'], [/^Console policy /, 'Edit policy Console policy']);
  await rows('/alerts/policies', [/^Checkout down /, 'Delete policy Checkout down'], [/^Console policy /, 'Delete policy Console policy']);
  await rows('/alerts/silences', [/Database migration/, 'Delete'], [/Console pause/, 'Delete']);
  await rows('/alerts/maintenance', [/^Nightly deploy /, 'Delete'], [/^Console window /, 'Delete']);
  await rows('/webhooks', [/On-call bridge/, 'Disable http://127.0.0.1:9/hook'], [/Console sink/, 'Disable http://127.0.0.1:9/console']);
  await check(t, page, 'as-code-webhooks');

  // Status pages and dashboards: the badge in the list, the page's own form read-only.
  await page.goto(`${url}/status-pages`);
  await page.getByRole('row', { name: /^Shop status / }).getByText(badge).waitFor({ timeout: 30_000 });
  await page.getByRole('link', { name: 'Shop status' }).click();
  await page.getByRole('note').getByText('Its name in the file: shop-ascode.').waitFor({ timeout: 30_000 });
  t.ok(await page.getByLabel('Title', { exact: true }).isDisabled(), 'a managed status page is read-only');
  t.ok(await page.getByRole('button', { name: 'Delete status page' }).isDisabled(), 'and cannot be deleted here');
  await check(t, page, 'as-code-status-page');
  await page.goto(`${url}/dashboards`);
  await page.getByRole('row', { name: /^Shop board / }).getByText(badge).waitFor({ timeout: 30_000 });
  t.equal(await page.getByRole('row', { name: /^Console board / }).getByText('Managed by file').count(), 0, 'the API-made dashboard has no badge');
  await page.goto(`${url}/dashboards/${shopBoard.id}`);
  await page.getByRole('note').getByText('Its name in the file: Shop board.').waitFor({ timeout: 30_000 });
  t.ok(await page.getByRole('button', { name: 'Delete dashboard' }).isDisabled(), 'a managed dashboard cannot be deleted here');
  t.ok(await page.getByRole('button', { name: 'Edit widgets' }).isDisabled(), 'nor its widgets edited');
  t.ok(await page.getByLabel('Name', { exact: true }).isDisabled(), 'nor its settings');
  await page.goto(`${url}/dashboards/${shopBoard.id}/widgets`);
  await page.getByRole('note').waitFor({ timeout: 30_000 });
  t.ok(await page.getByRole('button', { name: 'Save widgets' }).isDisabled(), 'the widget editor, opened by its address, saves nothing');
  t.ok(await page.getByRole('button', { name: /^Widget 1: Uptime/ }).isDisabled(), 'and moves nothing');
  await page.goto(`${url}/dashboards/${board.id}`);
  await page.getByRole('link', { name: 'Edit widgets' }).first().waitFor({ timeout: 30_000 });
  t.ok(await page.getByRole('button', { name: 'Delete dashboard' }).isEnabled(), 'the API-made dashboard can be deleted');

  // Unmarked on the as-code page: the monitor is editable again, and the mark is gone from the API.
  await page.goto(`${url}/as-code`);
  await page.getByRole('button', { name: 'Unmark Checkout', exact: true }).click();
  await page.getByRole('row', { name: /^Monitor Checkout / }).waitFor({ state: 'detached', timeout: 30_000 });
  const marks = (await rest('GET', '/v1/as-code/marks?kind=monitor')).data.items;
  t.same(marks, [], 'the monitor is no longer marked');
  await page.goto(`${url}/monitors/${checkout.id}`);
  await page.getByRole('link', { name: 'Edit', exact: true }).waitFor({ timeout: 30_000 });
  t.ok(await page.getByRole('button', { name: 'Delete', exact: true }).isEnabled(), 'and can be deleted here again');
  t.same(problems, [], 'no script errors');
});
