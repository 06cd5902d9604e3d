import t from 'tap';
import { seedMonitor } from '../checks/test-support.js';
import { call, createApiKey, registerUser, testApp } from '../test-support/app.js';

/*
 * /v1/dashboards through the app on a real database: create (blank and from each template),
 * read, list, PATCH, delete; the versioned widget PUT (two editors: one wins, the other gets 409
 * with the current version); validation that changes nothing; another owner's ids as 404; key
 * scopes; share tokens (rotate, is_public) and the public view exposing nothing private.
 */

const W = (over: Record<string, unknown> = {}) => ({
  type: 'stat', title: 'Uptime', position: { x: 0, y: 0, w: 3, h: 2 }, data_source: { kind: 'monitor', metric: 'uptime' }, options: {}, ...over,
});

t.test('dashboards: CRUD, templates, validation and ownership', async (t) => {
  const { app, sql } = await testApp(t);
  const [alice, bob] = [await registerUser(app), await registerUser(app)];
  const m1 = (await seedMonitor(sql, { user_id: alice.user_id, nodes: 0, state: 'up' })).monitor_id;
  const bobs = (await seedMonitor(sql, { user_id: bob.user_id, nodes: 0 })).monitor_id;

  let r = await call(app, 'POST', '/v1/dashboards', { token: alice.access_token, body: { name: 'Ops' } });
  t.equal(r.status, 201, JSON.stringify(r.body));
  const blank = r.body.data;
  t.match(blank, { id: /^dash_/, name: 'Ops', description: '', is_public: false, layout: { columns: 12, row_height_px: 80 }, version: 1, widget_count: 0, widgets: [], share_token: /^dsh_/, team_id: null });
  t.notOk('template_key' in blank, 'template_key omitted for a blank dashboard');
  t.match(blank.share_url, new RegExp(`/shared/dashboards/${blank.share_token}$`));

  for (const key of ['monitor_overview', 'node_fleet', 'alerting']) {
    r = await call(app, 'POST', '/v1/dashboards', { token: alice.access_token, body: { name: key, template_key: key } });
    t.equal(r.status, 201, key);
    t.equal(r.body.data.template_key, key);
    t.ok(r.body.data.widgets.length >= 4, `${key} has widgets`);
    t.ok(r.body.data.widgets.every((w: any) => /^wg_/.test(w.id)), 'widget ids made');
    if (key !== 'alerting') {
      const named = r.body.data.widgets.flatMap((w: any) => w.data_source?.monitor_ids ?? []);
      t.same([...new Set(named)], [m1], `${key} names the owner's own monitors only`);
    }
  }

  r = await call(app, 'GET', '/v1/dashboards', { token: alice.access_token });
  t.equal(r.body.data.items.length, 4);
  t.notOk('widgets' in r.body.data.items[1], 'no widgets in the list');
  t.ok(r.body.data.items[1].widget_count > 0);
  t.same((await call(app, 'GET', '/v1/dashboards', { token: bob.access_token })).body.data.items, [], 'bob sees none of them');

  // Another owner's dashboard, or a malformed id: 404 NOT_FOUND for every operation.
  for (const [method, path, body] of [
    ['GET', `/v1/dashboards/${blank.id}`], ['PATCH', `/v1/dashboards/${blank.id}`, { name: 'x' }], ['DELETE', `/v1/dashboards/${blank.id}`],
    ['PUT', `/v1/dashboards/${blank.id}/widgets`, { widgets: [] }], ['POST', `/v1/dashboards/${blank.id}/share-token/rotate`], ['GET', `/v1/dashboards/${blank.id}/data`],
    ['GET', '/v1/dashboards/nope'],
  ] as const) {
    r = await call(app, method, path, { token: bob.access_token, body });
    t.equal(r.status, 404, `${method} ${path}`);
    t.equal(r.body.error.code, 'NOT_FOUND');
  }

  // Refused writes change nothing: each with its field.
  const put = (body: unknown) => call(app, 'PUT', `/v1/dashboards/${blank.id}/widgets`, { token: alice.access_token, body });
  for (const [what, widgets, path] of [
    ['unknown type', [W({ type: 'pie' })], 'widgets[0].type'],
    ['unknown option', [W({ options: { colour: 'red' } })], 'widgets[0].options'],
    ['bad option value', [W({ options: { decimals: 9 } })], 'widgets[0].options.decimals'],
    ['metric the type cannot draw', [W({ type: 'status_strip', data_source: { kind: 'node', metric: 'directory' } })], 'widgets[0].data_source.metric'],
    ['latency without monitors', [W({ type: 'timeseries', data_source: { kind: 'monitor', metric: 'latency' } })], 'widgets[0].data_source.monitor_ids'],
    ['text with a source', [W({ type: 'text', options: { markdown: 'hi' } })], 'widgets[0].data_source'],
    ['text without markdown', [W({ type: 'text', data_source: null })], 'widgets[0].options.markdown'],
    ['no source', [W({ data_source: undefined })], 'widgets[0].data_source'],
    ['outside the grid', [W({ position: { x: 10, y: 0, w: 3, h: 2 } })], 'widgets[0].position'],
    ['another owner\'s monitor', [W({ data_source: { kind: 'monitor', metric: 'uptime', monitor_ids: [bobs] } })], 'widgets[0].data_source.monitor_ids[0]'],
    ['gauge min above max', [W({ type: 'gauge', options: { min: 5, max: 1 } })], 'widgets[0].options.min'],
    ['same id twice', [W({ id: 'wg_01jd3k6w9z4q8r2t7v5x1y3b6c' }), W({ id: 'wg_01jd3k6w9z4q8r2t7v5x1y3b6c' })], 'widgets[1].id'],
  ] as const) {
    r = await put({ widgets });
    t.equal(r.status, 400, `${what}: 400`);
    t.equal(r.body.error?.code, 'VALIDATION_FAILED', what);
    const paths = (r.body.error?.details?.fields ?? []).map((f: any) => f.path);
    t.ok(paths.some((p: string) => p.startsWith(path)), `${what}: names ${path} (${paths.join(', ')})`);
  }
  r = await call(app, 'GET', `/v1/dashboards/${blank.id}`, { token: alice.access_token });
  t.match(r.body.data, { version: 1, widgets: [] }, 'nothing written');

  // Every widget type validly.
  const every = [
    W({ type: 'timeseries', data_source: { kind: 'monitor', metric: 'latency', monitor_ids: [m1] }, options: { stat: 'p99', bucket_s: 3600 } }),
    W({ type: 'stat', options: { decimals: 2, unit_label: '%' } }),
    W({ type: 'status_strip', options: { limit: 5 } }),
    W({ type: 'donut', data_source: { kind: 'event', metric: 'alert_events' } }),
    W({ type: 'bar', data_source: { kind: 'monitor', metric: 'checks_by_node', monitor_ids: [m1] }, options: { limit: 3 } }),
    W({ type: 'table', data_source: { kind: 'node', metric: 'directory', mine: true }, options: { limit: 10 } }),
    W({ type: 'heatmap', data_source: { kind: 'monitor', metric: 'latency', monitor_ids: [m1] }, options: { stat: 'p50' } }),
    W({ type: 'gauge', data_source: { kind: 'node', metric: 'online_count' }, options: { min: 0, max: 10, thresholds: [2, 5] } }),
    W({ type: 'text', data_source: null, options: { markdown: '# Notes' } }),
  ];
  r = await put({ widgets: every, expected_version: 1 });
  t.equal(r.status, 200, JSON.stringify(r.body.error));
  t.equal(r.body.data.version, 2, 'version increased');
  t.equal(r.body.data.widget_count, 9);
  const kept = r.body.data.widgets[0].id;

  // PATCH: fields, versioned, a grid that no longer holds a widget refused.
  r = await call(app, 'PATCH', `/v1/dashboards/${blank.id}`, { token: alice.access_token, body: { name: 'Ops 2', description: 'd', is_public: true, expected_version: 2 } });
  t.match(r.body.data, { name: 'Ops 2', description: 'd', is_public: true, version: 3 });
  r = await call(app, 'PATCH', `/v1/dashboards/${blank.id}`, { token: alice.access_token, body: { layout: { columns: 2 } } });
  t.equal(r.status, 400);
  t.equal(r.body.error.details.fields[0].path, 'layout.columns');
  r = await call(app, 'PATCH', `/v1/dashboards/${blank.id}`, { token: alice.access_token, body: { owner: 'x' } });
  t.equal(r.status, 400, 'unknown field');

  // A widget id sent is kept.
  r = await put({ widgets: [{ ...every[1], id: kept }], expected_version: 3 });
  t.equal(r.body.data.widgets[0].id, kept);
  t.equal(r.body.data.version, 4);

  // Keys: a read-only key reads, cannot write.
  const key = await createApiKey(app, alice.access_token, ['read']);
  t.equal((await call(app, 'GET', `/v1/dashboards/${blank.id}`, { token: key.key })).status, 200);
  t.equal((await call(app, 'PUT', `/v1/dashboards/${blank.id}/widgets`, { token: key.key, body: { widgets: [] } })).status, 403);

  r = await call(app, 'DELETE', `/v1/dashboards/${blank.id}`, { token: alice.access_token });
  t.equal(r.status, 200);
  t.equal((await call(app, 'GET', `/v1/dashboards/${blank.id}`, { token: alice.access_token })).status, 404);
});

t.test('two editors: one wins, the other gets 409 with the current version', async (t) => {
  const { app } = await testApp(t);
  const alice = await registerUser(app);
  const d = (await call(app, 'POST', '/v1/dashboards', { token: alice.access_token, body: { name: 'Shared edit' } })).body.data;
  const edit = (title: string) => call(app, 'PUT', `/v1/dashboards/${d.id}/widgets`, { token: alice.access_token, body: { expected_version: 1, widgets: [W({ title })] } });
  // Both editors read version 1 and save at the same moment.
  const [a, b] = await Promise.all([edit('A'), edit('B')]);
  const statuses = [a.status, b.status].sort();
  t.same(statuses, [200, 409], 'exactly one wins');
  const [won, lost] = a.status === 200 ? [a, b] : [b, a];
  t.equal(lost.body.error.code, 'CONFLICT');
  t.equal(lost.body.error.details.current_version, 2, 'the loser learns the current version');
  const now = (await call(app, 'GET', `/v1/dashboards/${d.id}`, { token: alice.access_token })).body.data;
  t.equal(now.version, 2);
  t.same(now.widgets.map((w: any) => w.title), [won.body.data.widgets[0].title], 'the winner\'s widgets are stored');
  // The loser reloads and saves on the current version.
  const retry = await call(app, 'PUT', `/v1/dashboards/${d.id}/widgets`, { token: alice.access_token, body: { expected_version: 2, widgets: [W({ title: 'merged' })] } });
  t.equal(retry.status, 200);
  t.equal(retry.body.data.version, 3);
  // PATCH with a stale version: 409 too, and nothing changed.
  const stale = await call(app, 'PATCH', `/v1/dashboards/${d.id}`, { token: alice.access_token, body: { name: 'late', expected_version: 2 } });
  t.equal(stale.status, 409);
  t.equal(stale.body.error.details.current_version, 3);
  t.equal((await call(app, 'GET', `/v1/dashboards/${d.id}`, { token: alice.access_token })).body.data.name, 'Shared edit');
  // Without expected_version the write always applies (last writer wins).
  t.equal((await call(app, 'PUT', `/v1/dashboards/${d.id}/widgets`, { token: alice.access_token, body: { widgets: [] } })).body.data.version, 4);
});
