import t from 'tap';
import { newId } from '@vantage/shared-protocol';
import { addRollupDeltas, type RollupDelta } from '../checks/decide.db.js';
import { seedMonitor, seedNodes } from '../checks/test-support.js';
import { call, registerUser, testApp } from '../test-support/app.js';

/*
 * Every widget type's data against known values: checks written with known response times (two
 * nodes), round rollups with known seconds (hours and whole days), alert events, incidents and
 * nodes; a widget naming a deleted monitor fails alone; the public twin exposes nothing private.
 */

const H = 3_600_000;
const D = 86_400_000;

t.test('every widget\'s data against known values', async (t) => {
  const { app, sql } = await testApp(t);
  const alice = await registerUser(app);
  const bob = await registerUser(app);
  const nodes = await seedNodes(sql, 2, ['DE', 'US']);
  await sql`UPDATE nodes SET owner_user_id = ${alice.user_id} WHERE id = ${nodes[0]!}`;
  await seedNodes(sql, 1, ['JP']).then((ids) => sql`UPDATE nodes SET status = 'offline' WHERE id = ${ids[0]!}`);
  const a = await seedMonitor(sql, { user_id: alice.user_id, nodes, state: 'up' });
  const b = await seedMonitor(sql, { user_id: alice.user_id, nodes: [nodes[0]!], state: 'down' });
  const bobs = await seedMonitor(sql, { user_id: bob.user_id, nodes: [nodes[0]!], state: 'down' });
  await sql`UPDATE monitors SET name = 'alpha' WHERE id = ${a.monitor_id}`;
  await sql`UPDATE monitors SET name = 'beta' WHERE id = ${b.monitor_id}`;
  const now = Date.now();

  // Checks of monitor a in the last hours: node 0 answered 100, 200, 300 ms; node 1 400 ms and a failure at 500 ms.
  const series = async (m: string, n: string) => (await sql`INSERT INTO check_series (monitor_id, node_id) VALUES (${m}, ${n}) RETURNING id`)[0]!.id as number;
  const [s0, s1] = [await series(a.monitor_id, nodes[0]!), await series(a.monitor_id, nodes[1]!)];
  const checks = [[s0, 100, true], [s0, 200, true], [s0, 300, true], [s1, 400, true], [s1, 500, false]] as const;
  for (const [i, [sid, ms, success]] of checks.entries()) {
    await sql`INSERT INTO checks (scheduled_at, series_id, start_offset_ms, duration_ms, response_ms, success)
      VALUES (${new Date(now - (i + 1) * 10 * 60_000)}, ${sid}, 0, ${ms}, ${ms}, ${success})`;
  }
  // Bob's monitor has checks too: none of them may show.
  await sql`INSERT INTO checks (scheduled_at, series_id, start_offset_ms, duration_ms, response_ms, success)
    VALUES (${new Date(now - 5 * 60_000)}, ${await series(bobs.monitor_id, nodes[0]!)}, 0, 9000, 9000, false)`;

  // Round rollups: a had 10 hours up and 1 hour down five days ago (whole days: daily rows);
  // b 3 hours up and 1 hour degraded in the last hours.
  const day5 = Math.floor(now / D) * D - 5 * D;
  const delta = (monitor_id: string, hour: number, k: Partial<RollupDelta>): RollupDelta => ({
    monitor_id, hour: new Date(hour), up_s: 0, degraded_s: 0, down_s: 0, maintenance_s: 0, no_data_s: 0, rounds_up: 0, rounds_degraded: 0, rounds_down: 0, rounds_no_data: 0, ...k,
  });
  const hourNow = Math.floor(now / H) * H;
  await sql.begin((tx) => addRollupDeltas(tx, [
    ...Array.from({ length: 10 }, (_, h) => delta(a.monitor_id, day5 + (h + 1) * H, { up_s: 3600, rounds_up: 60 })),
    delta(a.monitor_id, day5 + 11 * H, { down_s: 3600, rounds_down: 60 }),
    ...[1, 2, 3].map((k) => delta(b.monitor_id, hourNow - k * H, { up_s: 3600, rounds_up: 60 })),
    delta(b.monitor_id, hourNow - 4 * H, { degraded_s: 3600, rounds_degraded: 60 }),
    delta(bobs.monitor_id, hourNow - 2 * H, { down_s: 3600, rounds_down: 60 }),
  ]));

  // Alert events: two of a's (one firing, one resolved) and one of bob's.
  const policy = async (user_id: string, monitor_id: string) => (await sql`
    INSERT INTO alert_policies (id, user_id, monitor_id, name) VALUES (${newId('alert_policy')}, ${user_id}, ${monitor_id}, 'p') RETURNING id`)[0]!.id as string;
  const event = async (user_id: string, policy_id: string, monitor_id: string, status: string, ago_ms: number) => sql`
    INSERT INTO alert_events (id, user_id, policy_id, monitor_id, type, status, started_at, fired_at, resolved_at)
    VALUES (${newId('alert_event')}, ${user_id}, ${policy_id}, ${monitor_id}, 'down', ${status}, ${new Date(now - ago_ms)}, ${new Date(now - ago_ms)},
      ${status === 'resolved' ? new Date(now - ago_ms + 60_000) : null})`;
  const pa = await policy(alice.user_id, a.monitor_id);
  await event(alice.user_id, pa, a.monitor_id, 'resolved', 3 * H);
  await event(alice.user_id, await policy(alice.user_id, b.monitor_id), b.monitor_id, 'firing', H);
  await event(bob.user_id, await policy(bob.user_id, bobs.monitor_id), bobs.monitor_id, 'firing', H);

  // Incidents: one open, one resolved (through the API), and bob's.
  const incident = async (token: string, title: string) => (await call(app, 'POST', '/v1/incidents', { token, body: { title } })).body.data.id as string;
  await incident(alice.access_token, 'Open one');
  const closed = await incident(alice.access_token, 'Closed one');
  t.equal((await call(app, 'POST', `/v1/incidents/${closed}/updates`, { token: alice.access_token, body: { status: 'resolved', message: 'fixed' } })).status, 201);
  await incident(bob.access_token, 'Bob\'s');

  const d = (await call(app, 'POST', '/v1/dashboards', { token: alice.access_token, body: { name: 'All', layout: { columns: 24 } } })).body.data;
  const pos = { x: 0, y: 0, w: 6, h: 2 };
  const lat = { kind: 'monitor', metric: 'latency', monitor_ids: [a.monitor_id] };
  const up = { kind: 'monitor', metric: 'uptime' };
  const widgets = [
    { type: 'stat', position: pos, data_source: lat, options: { stat: 'avg' } },
    { type: 'table', position: pos, data_source: lat },
    { type: 'timeseries', position: pos, data_source: lat, options: { stat: 'avg', bucket_s: 86_400 } },
    { type: 'bar', position: pos, data_source: { kind: 'monitor', metric: 'checks_by_node', monitor_ids: [a.monitor_id] } },
    { type: 'donut', position: pos, data_source: { kind: 'monitor', metric: 'checks_by_node', monitor_ids: [a.monitor_id] } },
    { type: 'stat', position: pos, data_source: up },
    { type: 'gauge', position: pos, data_source: up, options: { min: 0, max: 100 } },
    { type: 'donut', position: pos, data_source: up },
    { type: 'table', position: pos, data_source: up },
    { type: 'status_strip', position: pos, data_source: up },
    { type: 'heatmap', position: pos, data_source: { ...up, monitor_ids: [b.monitor_id] } },
    { type: 'stat', position: pos, data_source: { kind: 'event', metric: 'alert_events' } },
    { type: 'donut', position: pos, data_source: { kind: 'event', metric: 'alert_events' } },
    { type: 'table', position: pos, data_source: { kind: 'event', metric: 'alert_events' } },
    { type: 'stat', position: pos, data_source: { kind: 'event', metric: 'incidents' } },
    { type: 'bar', position: pos, data_source: { kind: 'event', metric: 'incidents' } },
    { type: 'table', position: pos, data_source: { kind: 'event', metric: 'incidents' } },
    { type: 'gauge', position: pos, data_source: { kind: 'node', metric: 'online_count' } },
    { type: 'donut', position: pos, data_source: { kind: 'node', metric: 'online_count', mine: true } },
    { type: 'table', position: pos, data_source: { kind: 'node', metric: 'directory', mine: true } },
    { type: 'text', position: pos, data_source: null, options: { markdown: 'hello' } },
  ];
  let r = await call(app, 'PUT', `/v1/dashboards/${d.id}/widgets`, { token: alice.access_token, body: { widgets } });
  t.equal(r.status, 200, JSON.stringify(r.body.error));

  r = await call(app, 'GET', `/v1/dashboards/${d.id}/data?from=-10d`, { token: alice.access_token });
  t.equal(r.status, 200);
  const got = r.body.data.widgets;
  t.equal(got.length, widgets.length);
  t.same(got.filter((w: any) => w.error), [], 'no widget failed');
  const [latStat, latTable, latSeries, nodeBar, nodeDonut, upStat, upGauge, upDonut, upTable, upStrip, upHeat, evStat, evDonut, evTable, incStat, incBar, incTable, nodeGauge, nodeMine, dirTable, text] = got.map((w: any) => w.data);

  t.match(latStat, { unit: 'ms', stat: 'avg', value: 300, checks: 5 }, 'average of the five checks');
  t.match(latTable.rows, [{ monitor_id: a.monitor_id, name: 'alpha', checks: 5, failures: 1, min_ms: 100, max_ms: 500, avg_ms: 300 }]);
  t.equal(latSeries.buckets.length, 11, 'day buckets over 10 days');
  t.equal(latSeries.series[0].values.filter((v: number | null) => v !== null).length >= 1, true);
  t.same(latSeries.series[0].values.filter((v: any) => v !== null).reduce((s: number, v: number) => s + v, 0) > 0, true);
  const byNode = new Map(nodeBar.rows.map((row: any) => [row.node_id, row]));
  t.match(byNode.get(nodes[0]!), { checks: 3, failures: 0, avg_ms: 200, country: 'DE' });
  t.match(byNode.get(nodes[1]!), { checks: 2, failures: 1, avg_ms: 450, country: 'US' });
  t.equal(nodeBar.rows[0].node_id, nodes[1], 'the failing node first');
  t.same(nodeDonut.slices.map((s: any) => s.value).sort(), [2, 3]);

  // Uptime: a 10 h up + 1 h down, b 3 h up + 1 h degraded (degraded counts as up): 14 of 15 hours.
  t.equal(upStat.value, Math.round((14 / 15) * 1e5) / 1e3);
  t.equal(upStat.monitors, 2, 'bob\'s monitor is not counted');
  t.equal(upGauge.value, upStat.value);
  t.same(upDonut.slices, [{ label: 'up', value: 13 * 3600 }, { label: 'degraded', value: 3600 }, { label: 'down', value: 3600 }, { label: 'maintenance', value: 0 }, { label: 'no_data', value: 0 }]);
  t.match(upTable.rows, [{ name: 'alpha', uptime_percent: Math.round((10 / 11) * 1e5) / 1e3, downtime_s: 3600 }, { name: 'beta', uptime_percent: 100, downtime_s: 0 }], 'worst first');
  t.equal(upStrip.bucket_s, 86_400);
  const alphaDays = upStrip.series.find((s: any) => s.name === 'alpha').values;
  t.equal(alphaDays[upStrip.buckets.indexOf(new Date(day5).toISOString())], Math.round((10 / 11) * 1e5) / 1e3, 'the day of the outage');
  t.equal(alphaDays.filter((v: any) => v !== null).length, 1, 'no data on the other days');
  t.same(upHeat.series.map((s: any) => s.name), ['beta']);

  t.match(evStat, { value: 2, firing: 1 }, 'alice\'s two events');
  t.same(evDonut.slices, [{ label: 'firing', value: 1 }, { label: 'acknowledged', value: 0 }, { label: 'resolved', value: 1 }]);
  t.match(evTable.rows, [{ monitor_name: 'beta', status: 'firing' }, { monitor_name: 'alpha', status: 'resolved' }]);
  t.equal(incStat.value, 1, 'one open incident');
  t.same(incBar.slices, [{ label: 'open', value: 1 }, { label: 'resolved', value: 1 }]);
  t.same(incTable.rows.map((i: any) => i.title).sort(), ['Closed one', 'Open one']);
  t.match(nodeGauge, { value: 2, total: 3 }, 'two of three nodes online');
  t.same(nodeMine.slices, [{ label: 'online', value: 1 }, { label: 'offline', value: 0 }], 'alice owns one node');
  t.same(dirTable.rows.map((n: any) => n.id), [nodes[0]]);
  t.equal(text, null, 'a text widget has no data');

  // A monitor a widget names is deleted: that widget fails alone.
  await sql`DELETE FROM monitors WHERE id = ${b.monitor_id}`;
  r = await call(app, 'GET', `/v1/dashboards/${d.id}/data?from=-10d`, { token: alice.access_token });
  t.equal(r.status, 200);
  t.match(r.body.data.widgets[10], { data: null, error: { code: 'MONITOR_NOT_FOUND' } });
  t.equal(r.body.data.widgets.filter((w: any) => w.error).length, 1, 'the others still answer');
  const ownerAfter = r.body.data.widgets;

  // Bad ranges.
  for (const q of ['from=-500d', 'from=now&to=-1h', 'from=yesterday']) {
    r = await call(app, 'GET', `/v1/dashboards/${d.id}/data?${q}`, { token: alice.access_token });
    t.equal(r.status, 400, q);
    t.equal(r.body.error.code, 'VALIDATION_FAILED');
  }

  // The public twin: 404 until public, then the same figures without anything private.
  t.equal((await call(app, 'GET', `/v1/public/dashboards/${d.share_token}`)).status, 404, 'not public yet');
  await call(app, 'PATCH', `/v1/dashboards/${d.id}`, { token: alice.access_token, body: { is_public: true } });
  const pub = await call(app, 'GET', `/v1/public/dashboards/${d.share_token}`);
  t.equal(pub.status, 200);
  const pubData = await call(app, 'GET', `/v1/public/dashboards/${d.share_token}/data?from=-10d`);
  t.equal(pubData.status, 200);
  t.same(pubData.body.data.widgets.map((w: any) => w.data?.value ?? null), ownerAfter.map((w: any) => w.data?.value ?? null), 'the same figures as the owner sees');
  const text1 = JSON.stringify(pub.body) + JSON.stringify(pubData.body);
  for (const secret of [alice.user_id, alice.email, d.id, d.share_token, a.monitor_id, pa, 'user_id', 'team_id', 'share_token', 'share_url', 'monitor_ids', 'example.com']) {
    t.notOk(text1.includes(secret), `public view does not show ${secret}`);
  }
  t.same(Object.keys(pub.body.data).sort(), ['description', 'layout', 'name', 'updated_at', 'version', 'widget_count', 'widgets']);

  // Rotating the token retires the old address; making it private closes the new one.
  const rotated = (await call(app, 'POST', `/v1/dashboards/${d.id}/share-token/rotate`, { token: alice.access_token })).body.data;
  t.not(rotated.share_token, d.share_token);
  t.equal((await call(app, 'GET', `/v1/public/dashboards/${d.share_token}`)).status, 404, 'old token');
  t.equal((await call(app, 'GET', `/v1/public/dashboards/${rotated.share_token}/data`)).status, 200, 'new token');
  await call(app, 'PATCH', `/v1/dashboards/${d.id}`, { token: alice.access_token, body: { is_public: false } });
  t.equal((await call(app, 'GET', `/v1/public/dashboards/${rotated.share_token}/data`)).status, 404, 'private again');
  t.equal((await call(app, 'GET', '/v1/public/dashboards/not-a-token')).status, 404);
});

t.test('an hourly uptime strip over a range holding a whole UTC day shows that day by the hour', async (t) => {
  // A 24-hour range ending in a day's last hour widens (to whole hours) to 25 hours holding the
  // whole day: its cells must still be hours from the hourly rows, not the day's total at 00:00.
  const { app, sql } = await testApp(t);
  const alice = await registerUser(app);
  const m = await seedMonitor(sql, { user_id: alice.user_id, nodes: await seedNodes(sql, 1, ['DE']), state: 'up' });
  const day = Math.floor(Date.now() / D) * D - 2 * D;
  const delta = (hour: number, k: Partial<RollupDelta>): RollupDelta => ({
    monitor_id: m.monitor_id, hour: new Date(hour), up_s: 0, degraded_s: 0, down_s: 0, maintenance_s: 0, no_data_s: 0, rounds_up: 0, rounds_degraded: 0, rounds_down: 0, rounds_no_data: 0, ...k,
  });
  await sql.begin((tx) => addRollupDeltas(tx, [
    delta(day + 19 * H, { down_s: 3600, rounds_down: 60 }),
    ...[20, 21, 22].map((h) => delta(day + h * H, { up_s: 3600, rounds_up: 60 })),
  ]));
  const d = (await call(app, 'POST', '/v1/dashboards', { token: alice.access_token, body: { name: 'Strip' } })).body.data;
  const widgets = [{ type: 'status_strip', position: { x: 0, y: 0, w: 6, h: 2 }, data_source: { kind: 'monitor', metric: 'uptime', monitor_ids: [m.monitor_id] } }];
  t.equal((await call(app, 'PUT', `/v1/dashboards/${d.id}/widgets`, { token: alice.access_token, body: { widgets } })).status, 200);
  const from = new Date(day - 30 * 60_000).toISOString();
  const to = new Date(day + 23.5 * H).toISOString();
  const r = await call(app, 'GET', `/v1/dashboards/${d.id}/data?from=${from}&to=${to}`, { token: alice.access_token });
  t.equal(r.status, 200, JSON.stringify(r.body.error));
  const strip = r.body.data.widgets[0].data;
  t.equal(strip.bucket_s, 3600, 'hour cells');
  const at = (h: number) => strip.series[0].values[strip.buckets.indexOf(new Date(day + h * H).toISOString())];
  t.same([19, 20, 21, 22].map(at), [0, 100, 100, 100], 'each hour as its rollup row says');
  t.equal(at(0), null, 'the day\'s first hour had no data');
  t.equal(strip.series[0].values.filter((v: number | null) => v !== null).length, 4);
});
