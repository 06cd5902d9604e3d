import { mkdtemp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { applyFiles, createApiClient, exportAccount, planFiles, renderPlan } from '@vantage/node-agent/as-code';
import { provisionOnce } from '../../control-plane/src/as-code/provision.js';
import { call, createApiKey, registerUser, testApp } from '../../control-plane/src/test-support/app.js';
import { asCodeFixtures } from '../../control-plane/src/test-support/as-code.js';

/*
 * Monitoring as code for silences, maintenance windows, webhook endpoints, status pages and
 * dashboards against a real control plane on real Postgres: plan, apply in dependency order,
 * re-apply (no changes), a change and a prune of each kind, refused files changing nothing,
 * the export round trip, and provisioning of the same kinds.
 */

const LOOPBACK = ['127.0.0.0/8'];
const { app, url, deps } = await testApp(t, { config: { delivery_allow_cidrs: LOOPBACK } });
const { dir, account, file } = await asCodeFixtures(t, app, url, 'as-code-kinds-');
const env = { STATUS_PASSWORD: 'correct horse battery' };

/** Every new kind, referring to monitors and a group by name, with anchors shared between them. */
const ALL = (slug: string) => `version: 1
x-night: &night
  starts_at: "2030-01-01T02:00:00Z"
  ends_at: "2030-01-01T02:30:00Z"
  recurrence: daily
monitor_groups:
  Web: {}
monitors:
  Checkout: { type: https, target: "https://1.1.1.1/health", group: Web }
  Landing: { type: https, target: "https://1.1.1.1/" }
webhook_endpoints:
  On-call bridge:
    url: http://127.0.0.1:9/hook
    events: [monitor.down, monitor.up]
  Audit sink:
    url: http://127.0.0.1:9/audit
    events: ["*"]
    enabled: false
alert_silences:
  Database migration:
    monitor: Checkout
    starts_at: "2030-01-01T03:00:00+02:00"
    ends_at: "2030-01-01T03:00:00Z"
  Deploy freeze:
    starts_at: "2030-02-01T00:00:00Z"
    ends_at: "2030-02-02T00:00:00Z"
maintenance_windows:
  Nightly deploy:
    <<: *night
    scope_type: monitor
    scope: [Checkout, Landing]
  Web patching:
    <<: *night
    scope_type: group
    scope: [Web]
    advance_notice_minutes: 30
  Edge:
    <<: *night
    scope_type: tag
    scope: [Edge]
status_pages:
  ${slug}:
    title: Acme status
    components:
      - { monitor: Checkout, display_name: Checkout API, section: Core }
      - { group: Web }
  ${slug}-internal:
    title: Internal
    is_public: false
    password: { env: STATUS_PASSWORD }
    components: [{ monitor: Landing }]
dashboards:
  Overview:
    description: the shop
    layout: { columns: 12, row_height_px: 60 }
    widgets:
      - { type: timeseries, title: p95, position: { x: 0, y: 0, w: 6, h: 4 }, data_source: { kind: monitor, metric: latency, monitors: [Checkout, Landing] }, options: { stat: p95 } }
      - { type: stat, position: { x: 6, y: 0, w: 3, h: 2 }, data_source: { kind: monitor, metric: uptime } }
      - { type: text, position: { x: 9, y: 0, w: 3, h: 2 }, options: { markdown: "# On call" } }
  Spare board: {}
`;

const NEW_KINDS = ['webhook_endpoint', 'alert_silence', 'maintenance_window', 'status_page', 'dashboard'];

t.test('plan and apply every new kind in dependency order; a second apply changes nothing', async (t) => {
  const { api } = await account();
  const f = await file('all.yaml', ALL('acme'));
  const planned = await planFiles(api, [f], { env, prune: false });
  t.same(planned.issues, []);
  const kinds = planned.plan!.changes.map((c) => c.kind);
  t.same(kinds, ['monitor_group', 'webhook_endpoint', 'webhook_endpoint', 'monitor', 'monitor', 'alert_silence', 'alert_silence',
    'maintenance_window', 'maintenance_window', 'maintenance_window', 'status_page', 'status_page', 'dashboard', 'dashboard'], 'dependency order');
  const text = renderPlan(planned.plan!);
  t.match(text, '+ alert_silence "Database migration" will be created');
  t.match(text, '    + starts_at: "2030-01-01T01:00:00.000Z"', 'instants in UTC');
  t.match(text, '+ status_page "acme" will be created');
  t.notMatch(text, env.STATUS_PASSWORD, 'the password never shown');

  const applied = await applyFiles(api, [f], { env, prune: false });
  t.same(applied.results.filter((r) => r.status !== 'done'), [], 'every change done');
  const monitors = (await api.get<{ items: Array<{ id: string; name: string }> }>('/v1/monitors')).items;
  const idOf = (n: string) => monitors.find((m) => m.name === n)!.id;
  const silences = (await api.get<{ items: Array<{ reason: string; monitor_id: string | null; starts_at: string }> }>('/v1/alert-silences')).items;
  t.match(silences.find((s) => s.reason === 'Database migration'), { monitor_id: idOf('Checkout'), starts_at: '2030-01-01T01:00:00.000Z' });
  t.match(silences.find((s) => s.reason === 'Deploy freeze'), { monitor_id: null });
  const windows = (await api.get<{ items: Array<{ title: string; scope_ids: string[] }> }>('/v1/maintenance-windows')).items;
  t.same(windows.find((w) => w.title === 'Nightly deploy')!.scope_ids, [idOf('Checkout'), idOf('Landing')]);
  t.same(windows.find((w) => w.title === 'Edge')!.scope_ids, ['edge'], 'tags lower-cased');
  const endpoints = (await api.get<{ items: Array<{ description: string; enabled: boolean }> }>('/v1/webhook-endpoints')).items;
  t.same(endpoints.map((e) => [e.description, e.enabled]).sort(), [['Audit sink', false], ['On-call bridge', true]]);
  const pages = (await api.get<{ items: Array<{ slug: string; password_protected: boolean; components: Array<{ monitor_id: string | null; display_name: string }> }> }>('/v1/status-pages')).items;
  t.match(pages.find((p) => p.slug === 'acme')!.components, [{ monitor_id: idOf('Checkout'), display_name: 'Checkout API' }, { monitor_id: null, display_name: 'Web' }]);
  t.equal(pages.find((p) => p.slug === 'acme-internal')!.password_protected, true);
  const boards = (await api.get<{ items: Array<{ id: string; name: string }> }>('/v1/dashboards')).items;
  const board = await api.get<{ version: number; widgets: Array<{ data_source: { monitor_ids?: string[] } | null }> }>(`/v1/dashboards/${boards.find((b) => b.name === 'Overview')!.id}`);
  t.same(board.widgets[0]!.data_source!.monitor_ids, [idOf('Checkout'), idOf('Landing')]);
  t.equal(board.widgets.length, 3);
  const marks = (await api.get<{ items: Array<{ kind: string }> }>('/v1/as-code/marks')).items;
  t.equal(marks.filter((m) => NEW_KINDS.includes(m.kind)).length, 11, 'every new resource marked');

  const again = await planFiles(api, [f], { env, prune: true });
  t.same(again.issues, []);
  t.same(again.plan!.changes, [], 'idempotent');
});

t.test('a change of each kind, a prune of each kind; unmarked resources are kept', async (t) => {
  const { api, token } = await account();
  const f = await file('change.yaml', ALL('shop'));
  t.same((await applyFiles(api, [f], { env, prune: false })).results.filter((r) => r.status !== 'done'), []);
  // Made in the console: never pruned.
  const manual = await call(app, 'POST', '/v1/alert-silences', { token, body: { reason: 'By hand', starts_at: '2030-03-01T00:00:00Z', ends_at: '2030-03-02T00:00:00Z' } });
  t.equal(manual.status, 201);

  const changed = ALL('shop')
    .replace('events: [monitor.down, monitor.up]', 'events: [monitor.down]')
    .replace('  Deploy freeze:\n    starts_at: "2030-02-01T00:00:00Z"\n    ends_at: "2030-02-02T00:00:00Z"\n', '')
    .replace('ends_at: "2030-01-01T03:00:00Z"', 'ends_at: "2030-01-01T04:00:00Z"')
    .replace('scope: [Checkout, Landing]', 'scope: [Landing]')
    .replace('  Edge:\n    <<: *night\n    scope_type: tag\n    scope: [Edge]\n', '')
    .replace('  Audit sink:\n    url: http://127.0.0.1:9/audit\n    events: ["*"]\n    enabled: false\n', '')
    .replace('display_name: Checkout API', 'display_name: Payments')
    .replace(/ {2}shop-internal:\n(?: {4}.*\n)+/, '')
    .replace('metric: latency, monitors: [Checkout, Landing]', 'metric: latency, monitors: [Landing]')
    .replace('layout: { columns: 12, row_height_px: 60 }', 'layout: { columns: 12, row_height_px: 40 }')
    .replace('  Spare board: {}\n', '');
  await writeFile(f, changed);
  const planned = await planFiles(api, [f], { env, prune: true });
  t.same(planned.issues, []);
  const text = renderPlan(planned.plan!);
  t.match(text, '~ webhook_endpoint "On-call bridge" will be changed');
  t.match(text, '~ alert_silence "Database migration" will be changed');
  t.match(text, '    ~ ends_at: "2030-01-01T03:00:00.000Z" -> "2030-01-01T04:00:00.000Z"');
  t.match(text, '~ maintenance_window "Nightly deploy" will be changed');
  t.match(text, '~ status_page "shop" will be changed');
  t.match(text, '~ dashboard "Overview" will be changed');
  t.match(text, '    ~ layout.row_height_px: 60 -> 40');
  for (const gone of ['webhook_endpoint "Audit sink"', 'alert_silence "Deploy freeze"', 'maintenance_window "Edge"', 'status_page "shop-internal"', 'dashboard "Spare board"']) {
    t.match(text, `- ${gone} will be deleted`);
  }
  t.notMatch(text, 'By hand', 'an unmarked silence is never pruned');
  t.match(text, 'Plan: 0 to create, 5 to change, 5 to delete.');
  const deletes = planned.plan!.changes.filter((c) => c.action === 'delete').map((c) => c.kind);
  t.same(deletes, ['dashboard', 'status_page', 'maintenance_window', 'alert_silence', 'webhook_endpoint'], 'deletes in reverse order');

  const applied = await applyFiles(api, [f], { env, prune: true });
  t.same(applied.results.filter((r) => r.status !== 'done'), []);
  t.same((await planFiles(api, [f], { env, prune: true })).plan!.changes, [], 'settled');
  const silences = (await api.get<{ items: Array<{ reason: string }> }>('/v1/alert-silences')).items.map((s) => s.reason).sort();
  t.same(silences, ['By hand', 'Database migration']);
  const boards = (await api.get<{ items: Array<{ name: string; version: number }> }>('/v1/dashboards')).items;
  t.same(boards.map((b) => b.name), ['Overview']);
  t.equal(boards[0]!.version, 4, 'created, widgets put, then one PATCH and one widget PUT, each with expected_version');
});

t.test('refused resources: every issue names its resource and nothing changes', async (t) => {
  const { api } = await account();
  const bad = ALL('refused')
    .replace('password: { env: STATUS_PASSWORD }', 'password: hunter2hunter2')
    .replace('    monitor: Checkout\n', '    monitor: Nowhere\n')
    .replace('scope: [Web]', 'scope: [No such group]')
    .replace('metric: latency, monitors: [Checkout, Landing]', 'metric: latency, monitors: [Ghost]')
    .replace('events: ["*"]', 'events: [nope.event]')
    .replace('{ x: 9, y: 0, w: 3, h: 2 }', '{ x: 10, y: 0, w: 3, h: 2 }');
  const out = await applyFiles(api, [await file('bad.yaml', bad)], { env, prune: false });
  t.equal(out.plan, null);
  const paths = out.issues.map((i) => i.path).sort();
  t.same(paths, [
    'alert_silences.Database migration.monitor',
    'dashboards.Overview.widgets[0].data_source.monitors',
    'dashboards.Overview.widgets[2].position',
    'maintenance_windows.Web patching.scope',
    'status_pages.refused-internal.password',
    'webhook_endpoints.Audit sink.events[0]',
  ], 'each issue at its field');
  t.match(out.issues.find((i) => i.kind === 'status_page'), { message: /never inline/ });
  t.same((await api.get<{ items: unknown[] }>('/v1/monitors')).items, [], 'nothing made');
  t.same((await api.get<{ items: unknown[] }>('/v1/alert-silences')).items, []);

  const slug = await planFiles(api, [await file('slug.yaml', 'version: 1\nstatus_pages:\n  Not A Slug: { title: x }\n')], { env, prune: false });
  t.match(slug.issues, [{ kind: 'status_page', path: 'status_pages.Not A Slug', message: /slug/ }]);
  const unset = await planFiles(api, [await file('unset.yaml', ALL('unset'))], { env: {}, prune: false });
  t.match(unset.issues, [{ name: 'unset-internal', message: /STATUS_PASSWORD is not set/ }]);

  // A silence's monitor cannot change: another reason makes another silence.
  const f = await file('moved.yaml', 'version: 1\nmonitors:\n  A: { type: ping, target: 1.1.1.1 }\nalert_silences:\n  Quiet: { monitor: A, starts_at: "2030-01-01T00:00:00Z", ends_at: "2030-01-02T00:00:00Z" }\n');
  t.same((await applyFiles(api, [f], { env, prune: false })).issues, []);
  await writeFile(f, 'version: 1\nalert_silences:\n  Quiet: { starts_at: "2030-01-01T00:00:00Z", ends_at: "2030-01-02T00:00:00Z" }\n');
  t.match((await planFiles(api, [f], { env, prune: false })).issues, [{ path: 'alert_silences.Quiet.monitor', message: /cannot change/ }]);
});

t.test('export, apply to an empty account, export again: identical', async (t) => {
  const first = await account();
  const f = await file('rt.yaml', ALL('round'));
  t.same((await applyFiles(first.api, [f], { env, prune: false })).results.filter((r) => r.status !== 'done'), []);
  const exported = await exportAccount(first.api);
  const doc = JSON.parse(await exportAccount(first.api, 'json')) as Record<string, Record<string, Record<string, unknown>>>;
  t.same(doc.status_pages!['round-internal']!.password, { env: 'VANTAGE_SECRET_ROUND_INTERNAL_PASSWORD' }, 'the password exported as a reference');
  t.same(doc.status_pages!.round!.components, [{ monitor: 'Checkout', display_name: 'Checkout API', section: 'Core' }, { group: 'Web', section: '' }]);
  t.same(doc.alert_silences!['Deploy freeze'], { starts_at: '2030-02-01T00:00:00.000Z', ends_at: '2030-02-02T00:00:00.000Z' });
  t.same(Object.keys(doc.dashboards!), ['Overview', 'Spare board']);
  const second = await account();
  const exportedFile = await file('exported.yaml', exported);
  const secretEnv = { VANTAGE_SECRET_ROUND_INTERNAL_PASSWORD: env.STATUS_PASSWORD };
  const taken = await applyFiles(second.api, [exportedFile], { env: secretEnv, prune: false });
  t.same(taken.issues.map((i) => [i.path, i.message]).sort(), [
    ['status_pages.round', 'the slug "round" is taken by another status page of this deployment (another account\'s or a team\'s)'],
    ['status_pages.round-internal', 'the slug "round-internal" is taken by another status page of this deployment (another account\'s or a team\'s)'],
  ], 'a taken slug (of a public page and of a password page) stops the apply before any change');
  t.same((await second.api.get<{ items: unknown[] }>('/v1/monitors')).items, []);
  // Slugs are unique across the deployment: the first account lets them go (prune of an emptied file).
  await writeFile(f, 'version: 1\n');
  t.same((await applyFiles(first.api, [f], { env, prune: true })).results.filter((r) => r.status !== 'done'), []);

  const applied = await applyFiles(second.api, [exportedFile], { env: secretEnv, prune: false });
  t.same(applied.issues, []);
  t.same(applied.results.filter((r) => r.status !== 'done'), []);
  t.equal(await exportAccount(second.api), exported, 'identical');
});

t.test('provisioning applies the new kinds and prunes them', async (t) => {
  const user = await registerUser(app);
  const { key } = await createApiKey(app, user.access_token);
  const pdir = await mkdtemp(join(dir, 'provision-'));
  await writeFile(join(pdir, 'ops.yaml'), 'version: 1\nwebhook_endpoints:\n  Bridge: { url: "http://127.0.0.1:9/p", events: [monitor.down] }\nalert_silences:\n  Holiday: { starts_at: "2030-12-24T00:00:00Z", ends_at: "2030-12-27T00:00:00Z" }\ndashboards:\n  Ops: {}\n');
  const opts = { pattern: join(pdir, '*.yaml'), api_key: key, prune: true, poll_ms: 1000, base_url: url, fetch: (r: Request) => app.fetch(r), env: {}, log: deps.log };
  const first = await provisionOnce(opts, new Set());
  t.same(first.refused_files, []);
  t.same(first.results.map((r) => [r.kind, r.status]), [['webhook_endpoint', 'done'], ['alert_silence', 'done'], ['dashboard', 'done']]);
  await writeFile(join(pdir, 'ops.yaml'), 'version: 1\ndashboards:\n  Ops: {}\n');
  const second = await provisionOnce(opts, new Set([join(pdir, 'ops.yaml')]));
  t.same(second.results.map((r) => [r.action, r.kind, r.status]), [['delete', 'alert_silence', 'done'], ['delete', 'webhook_endpoint', 'done']]);
  const api = createApiClient({ base_url: url, token: key });
  t.same((await api.get<{ items: unknown[] }>('/v1/webhook-endpoints')).items, []);
});

t.test('marks of the new kinds: only your own personal resources; a deleted resource\'s mark is not listed', async (t) => {
  const a = await account();
  const b = await account();
  const board = await a.api.post<{ id: string }>('/v1/dashboards', { name: 'Mine' });
  const body = { key: 'Mine', source_file: 'x.yaml' };
  t.equal((await call(app, 'PUT', `/v1/as-code/marks/dashboard/${board.id}`, { token: b.token, body })).status, 404, 'another account\'s dashboard');
  t.equal((await call(app, 'PUT', `/v1/as-code/marks/status_page/${board.id}`, { token: a.token, body })).status, 404, 'an id of another kind');
  t.equal((await call(app, 'PUT', `/v1/as-code/marks/dashboard/${board.id}`, { token: a.token, body })).status, 200);
  t.match((await a.api.get<{ items: unknown[] }>('/v1/as-code/marks?kind=dashboard')).items, [{ kind: 'dashboard', resource_id: board.id, key: 'Mine' }]);
  await a.api.delete(`/v1/dashboards/${board.id}`);
  t.same((await a.api.get<{ items: unknown[] }>('/v1/as-code/marks?kind=dashboard')).items, []);
});
