import t from 'tap';
import { call, registerUser, testApp } from '../test-support/app.js';

const withoutTime = (doc: { exported_at: string }) => ({ ...doc, exported_at: 'x' });

t.test('an export imported into an empty account reproduces it; a dry run first changes nothing', async (t) => {
  const { app } = await testApp(t, { config: { public_url: 'https://vantage.example.com' } });
  const a = await registerUser(app);
  const b = await registerUser(app);
  const prod = (await call(app, 'POST', '/v1/monitor-groups', { token: a.access_token, body: { name: 'Production', sort_order: 10 } })).body.data;
  await call(app, 'POST', '/v1/monitor-groups', { token: a.access_token, body: { name: 'Empty', sort_order: 5 } });
  const bodies = [
    { name: 'Checkout', type: 'https', target: 'https://1.1.1.1/health', interval_s: 60, node_count: 4, tags: ['prod', 'Shop'], group_id: prod.id,
      config: { expected_status: '200,204', headers: { accept: 'application/json' }, assertions: [{ type: 'json_path', path: '$.ok', op: 'eq', value: true }] } },
    { name: 'Nightly backup', type: 'heartbeat', config: { cron: '30 2 * * 1-5', timezone: 'Asia/Tokyo', grace_s: 900 } },
    { name: 'Edge ping', type: 'ping', target: '8.8.8.8', node_count: 2, config: { count: 10 } },
    { name: 'Landing page', type: 'browser', target: 'https://1.1.1.1/', interval_s: 1800, group_id: prod.id, config: { screenshot: true, assertions: [{ kind: 'text_present', value: 'Welcome' }] } },
    { name: 'MX', type: 'dns', target: 'example.com', config: { record_type: 'MX', server: '1.1.1.1:53', expected_values: ['10 mx.example.com'] } },
  ];
  for (const body of bodies) t.equal((await call(app, 'POST', '/v1/monitors', { token: a.access_token, body })).status, 201, body.name);

  const exported = await call(app, 'GET', '/v1/monitors/export', { token: a.access_token });
  t.equal(exported.status, 200);
  const doc = exported.body.data;
  t.equal(doc.version, 1);
  t.same(doc.groups, [{ name: 'Empty', sort_order: 5 }, { name: 'Production', sort_order: 10 }]);
  t.equal(doc.monitors.length, 5);
  t.same(doc.monitors[0], {
    name: 'Checkout', type: 'https', target: 'https://1.1.1.1/health', interval_s: 60, node_count: 4, tags: ['prod', 'shop'], group: 'Production',
    config: (await call(app, 'GET', '/v1/monitors?q=checkout', { token: a.access_token })).body.data.items[0].config,
  }, 'the ExportMonitor projection: no runtime fields');
  t.notOk('target' in doc.monitors[1], 'no target for heartbeat');
  t.equal(doc.monitors[2].group, '', 'ungrouped');

  const dry = await call(app, 'POST', '/v1/monitors/import', { token: b.access_token, body: { ...doc, dry_run: true } });
  t.equal(dry.status, 200, JSON.stringify(dry.body));
  t.match(dry.body.data, { dry_run: true, created: 0, failed: 0, groups_created: ['Empty', 'Production'] });
  t.same(dry.body.data.items.map((i: { status: string }) => i.status), ['valid', 'valid', 'valid', 'valid', 'valid']);
  t.equal((await call(app, 'GET', '/v1/monitors', { token: b.access_token })).body.data.total, 0, 'the dry run created no monitor');
  t.same((await call(app, 'GET', '/v1/monitor-groups', { token: b.access_token })).body.data, [], 'nor any group');

  const real = await call(app, 'POST', '/v1/monitors/import', { token: b.access_token, body: doc });
  t.match(real.body.data, { dry_run: false, created: 5, failed: 0, groups_created: ['Empty', 'Production'] });
  const hb = real.body.data.items[1];
  t.match(hb.heartbeat.url, /^https:\/\/vantage\.example\.com\/v1\/heartbeat\/hb_[0-9a-z]{32}$/, 'a new check-in token for the heartbeat');
  t.match(real.body.data.items[0].monitor_id, /^m_/);

  const again = await call(app, 'GET', '/v1/monitors/export', { token: b.access_token });
  t.same(withoutTime(again.body.data), withoutTime(doc), 'the second account exports the same document');
});

t.test('import: each item fails alone with its error; groups[] malformed refuses the whole request', async (t) => {
  const { app } = await testApp(t, { config: { plan_monitors_max: 6 } });
  const u = await registerUser(app);
  await call(app, 'POST', '/v1/monitors', { token: u.access_token, body: { name: 'existing', type: 'ping', target: '1.1.1.1' } });
  const monitors = [
    { name: 'good', type: 'http', target: 'http://1.1.1.1/', group: 'New group' },
    { name: 'no type', target: 'http://1.1.1.1/' },
    { name: 'good', type: 'http', target: 'http://8.8.8.8/' },
    { name: 'existing', type: 'ping', target: '1.1.1.1' },
    { name: 'bad target', type: 'tcp', target: '1.1.1.1' },
    { name: 'bad config', type: 'ping', target: '1.1.1.1', config: { count: 0 } },
    { name: 'bad interval', type: 'http', target: 'http://1.1.1.1/', interval_s: 10 },
    { name: 'bad interval', type: 'http', target: 'http://1.1.1.1/' },
    { name: 'private', type: 'http', target: 'http://10.0.0.1/', group: 'Only failing' },
    'not an object',
    { name: 'good 2', type: 'dns', target: 'example.com', config: { server: '8.8.8.8' } },
    { name: 'good 3', type: 'domain_expiry', target: 'example.com' },
    { name: 'good 4', type: 'ping', target: '1.1.1.1' },
    { name: 'over quota', type: 'ping', target: '1.1.1.1' },
  ];
  const expected = [
    ['created', null], ['failed', 'VALIDATION_FAILED'], ['failed', 'MONITOR_NAME_TAKEN'], ['failed', 'MONITOR_NAME_TAKEN'],
    ['failed', 'MONITOR_INVALID_TARGET'], ['failed', 'VALIDATION_FAILED'], ['failed', 'MONITOR_INVALID_INTERVAL'], ['created', null], ['failed', 'MONITOR_INVALID_TARGET'],
    ['failed', 'VALIDATION_FAILED'], ['created', null], ['created', null], ['created', null], ['failed', 'MONITOR_LIMIT_EXCEEDED'],
  ];
  const dry = await call(app, 'POST', '/v1/monitors/import', { token: u.access_token, body: { monitors, dry_run: true } });
  t.same(dry.body.data.items.map((i: { status: string; error: { code: string } | null }) => [i.status, i.error?.code ?? null]),
    expected.map(([s, c]) => [s === 'created' ? 'valid' : s, c]), 'the dry run reports the same outcome');
  t.same(dry.body.data.groups_created, ['New group'], 'a group only a failing item names is not created');
  t.equal((await call(app, 'GET', '/v1/monitors', { token: u.access_token })).body.data.total, 1, 'dry run: nothing created');

  const res = await call(app, 'POST', '/v1/monitors/import', { token: u.access_token, body: { monitors } });
  t.equal(res.status, 200);
  t.same(res.body.data.items.map((i: { status: string; error: { code: string } | null }) => [i.status, i.error?.code ?? null]), expected);
  t.match(res.body.data, { created: 5, failed: 9, groups_created: ['New group'] });
  t.match(res.body.data.items[1], { index: 1, name: 'no type', monitor_id: null });
  t.match(res.body.data.items[1].error.details.fields, [{ path: 'type' }]);
  t.equal(res.body.data.items[9].name, null);
  t.equal(res.body.data.items[7].name, 'bad interval', 'a name freed by a failing item is taken by the next one');
  const list = await call(app, 'GET', '/v1/monitors?limit=100', { token: u.access_token });
  t.equal(list.body.data.total, 6);
  const groups = (await call(app, 'GET', '/v1/monitor-groups', { token: u.access_token })).body.data;
  t.same(groups.map((g: { name: string; monitor_count: number }) => [g.name, g.monitor_count]), [['New group', 1]]);

  const badGroups = await call(app, 'POST', '/v1/monitors/import', { token: u.access_token, body: { groups: [{ name: '' }], monitors: [{ name: 'x', type: 'ping', target: '1.1.1.1' }] } });
  t.equal(badGroups.status, 400);
  t.match(badGroups.body.error.details.fields, [{ path: 'groups[0].name' }]);
  t.equal((await call(app, 'GET', '/v1/monitors?limit=100', { token: u.access_token })).body.data.total, 6, 'nothing written');
  const notList = await call(app, 'POST', '/v1/monitors/import', { token: u.access_token, body: { monitors: {} } });
  t.equal(notList.body.error.code, 'VALIDATION_FAILED');
  const readOnly = await call(app, 'GET', '/v1/monitors/export');
  t.equal(readOnly.status, 401);
});

t.test('import matches existing groups by name', async (t) => {
  const { app } = await testApp(t);
  const u = await registerUser(app);
  const g = (await call(app, 'POST', '/v1/monitor-groups', { token: u.access_token, body: { name: 'Web' } })).body.data;
  const res = await call(app, 'POST', '/v1/monitors/import', { token: u.access_token, body: { groups: [{ name: 'Web', sort_order: 3 }], monitors: [{ name: 'a', type: 'http', target: 'http://1.1.1.1/', group: 'Web' }] } });
  t.match(res.body.data, { created: 1, groups_created: [] });
  const m = await call(app, 'GET', `/v1/monitors/${res.body.data.items[0].monitor_id}`, { token: u.access_token });
  t.equal(m.body.data.group_id, g.id);
  t.equal((await call(app, 'GET', `/v1/monitor-groups/${g.id}`, { token: u.access_token })).body.data.sort_order, 0, 'an existing group is left as it is');
});
