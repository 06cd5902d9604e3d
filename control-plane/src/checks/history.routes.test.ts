import t from 'tap';
import { makeToken, enrollNode, waitFor } from '../hub/test-harness.js';
import { call, registerUser, testApp } from '../test-support/app.js';
import { decidePass } from './decide.js';
import { historyReads } from './history-reads.js';
import { expireRounds, httpResult, roundAt, seedMonitor, seedNodes } from './test-support.js';
import { sseFrames } from '../test-support/sse.js';

// Uptime answers run on the generic-plan client, as main.ts builds it (generic_plans).
const { app, sql, url, deps } = await testApp(t, { generic_plans: true, config: { checks_round_grace_ms: 3_600_000, checks_stream_poll_ms: 50, checks_stream_settle_ms: 200 } });
const owner = await registerUser(app);
const other = await registerUser(app);
const get = (path: string, token = owner.access_token, headers: Record<string, string> = {}) => call(app, 'GET', path, { token, headers });

// A monitor of the owner on three nodes (DE, US, JP) with 20 rounds: node 0 fails rounds 5-9. Rounds
// are counted from T0, not from each call's clock: a slow run crossing a round boundary keeps its rounds.
const T0 = Date.now();
const m = await seedMonitor(sql, { user_id: owner.user_id, nodes: 3 });
const [n0, n1, n2] = m.node_ids as [string, string, string];
for (const [i, node] of m.node_ids.entries()) {
  const results = Array.from({ length: 20 }, (_, j) => httpResult(m.monitor_id, roundAt(m, j - 20, T0), { success: !(i === 0 && j >= 5 && j < 10), response_ms: 40 + i * 20 + j }));
  await deps.results.ingest(node, results);
}
await expireRounds(sql, m.monitor_id);
while ((await decidePass({ sql })).monitors > 0);
const base = `/v1/monitors/${m.monitor_id}`;

t.test('checks: newest first, paged, per node, relative times', async (t) => {
  const all = await get(`${base}/checks?from=-2h&page_size=50`);
  t.equal(all.status, 200);
  t.match(all.body.data, { total: 60, page: 1, page_size: 50, has_more: true });
  const items = all.body.data.items;
  t.equal(items[0].scheduled_at, roundAt(m, -1, T0), 'newest round first');
  t.match(items[0], { monitor_id: m.monitor_id, success: true, error: null, assertions: [], output: { status_code: 200 } });
  t.ok(items[0].response_ms >= 40 && Date.parse(items[0].finished_at) > Date.parse(items[0].started_at));
  const page2 = await get(`${base}/checks?from=-2h&page_size=50&page=2`);
  t.match(page2.body.data, { total: 60, page: 2, has_more: false });
  t.equal(page2.body.data.items.length, 10);
  const mine = await get(`${base}/checks?from=${encodeURIComponent(roundAt(m, -20, T0))}&to=${encodeURIComponent(roundAt(m, 0, T0))}&node_id=${n0}&page_size=200`);
  t.equal(mine.body.data.total, 20);
  t.equal(mine.body.data.items.filter((c: { success: boolean }) => !c.success).length, 5);
  t.match(mine.body.data.items.find((c: { success: boolean }) => !c.success), { node_id: n0, error: 'connection refused', error_class: 'refused', response_ms: null });
  t.equal((await get(`${base}/checks?from=-1m&to=-2m`)).body.error.code, 'VALIDATION_FAILED', 'from after to');
  t.equal((await get(`${base}/checks?from=yesterday`)).status, 400, 'not a time');
  t.equal((await get(`${base}/checks?page_size=201`)).status, 400);
});

t.test('monitor reads carry state, last check and 24 h uptime', async (t) => {
  const one = await get(base);
  t.match(one.body.data, { state: 'up', last_check_at: roundAt(m, -1, T0), uptime_24h: 1 }, 'degraded rounds count as up');
  const list = await get('/v1/monitors');
  t.match(list.body.data.items.find((x: { id: string }) => x.id === m.monitor_id), { state: 'up', uptime_24h: 1 });
});

t.test('uptime: periods and ranges', async (t) => {
  const day = await get(`${base}/uptime`);
  t.equal(day.status, 200);
  t.match(day.body.data, { period: '24h', uptime: 1, uptime_percent: 100, downtime_s: 0, degraded_s: 300, up_s: 900, incidents: 0, mttr_s: null });
  t.equal(Date.parse(day.body.data.to) - Date.parse(day.body.data.from), 86_400_000);
  t.match((await get(`${base}/uptime?period=90d`)).body.data, { period: '90d', monitored_s: 1200 });
  t.match((await get(`${base}/uptime?from=${encodeURIComponent(roundAt(m, -15, T0))}&to=${encodeURIComponent(roundAt(m, -10, T0))}`)).body.data, { period: null, monitored_s: 300, degraded_s: 300 });
  t.equal((await get(`${base}/uptime?period=24h&from=-1h`)).body.error.code, 'VALIDATION_FAILED', 'period and from/to: one or the other');
  t.equal((await get(`${base}/uptime?period=1y`)).status, 400);
});

t.test('uptime is read on the generic-plan client, with the same answer as a planned-per-call read', async (t) => {
  const generic = deps.generic_sql!;
  const seen: string[] = [];
  // `postgres` reads its options' debug hook on every query.
  (generic.options as unknown as { debug: unknown }).debug = (_c: number, query: string) => { seen.push(query); };
  t.teardown(() => { (generic.options as unknown as { debug: unknown }).debug = false; });
  const [mode] = await generic<{ mode: string }[]>`SELECT current_setting('plan_cache_mode') AS mode`;
  t.equal(mode!.mode, 'force_generic_plan');
  seen.length = 0;
  const week = await get(`${base}/uptime?period=7d`);
  t.equal(week.status, 200);
  t.ok(seen.some((q) => q.includes('round_rollups')), 'the uptime statement went to the generic-plan client');
  // Ranges whose edges fall in judged rounds, hours and whole days: the generic plan prunes
  // partitions when it runs, and answers as a plan made for the values does.
  const now = Date.now();
  for (const [from, to] of [[roundAt(m, -15, T0), roundAt(m, -10, T0)], [new Date(now - 90 * 86_400_000).toISOString(), new Date(now).toISOString()], [roundAt(m, -20, T0), roundAt(m, -1, T0)]] as const) {
    const path = `${base}/uptime?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;
    const on_generic = await get(path);
    const { generic_sql: _, ...planned } = deps;
    const direct = await historyReads(planned).uptime(m.monitor_id, { from: new Date(from), to: new Date(to), period: null }, now);
    t.same(on_generic.body.data, JSON.parse(JSON.stringify(direct)), `${from} → ${to}`);
  }
});

t.test('stats: percentiles and failure rate per bucket, overall, per node and per country', async (t) => {
  const s = await get(`${base}/stats?from=${encodeURIComponent(roundAt(m, -20, T0))}&to=${encodeURIComponent(roundAt(m, 0, T0))}&bucket_s=300`);
  t.equal(s.status, 200);
  const d = s.body.data;
  t.match(d, { bucket_s: 300, source: 'raw', groups: null, overall: { checks: 60, failures: 5, failure_rate: Math.round((5 / 60) * 1e6) / 1e6 } });
  t.ok(d.buckets.length >= 4 && d.buckets.length <= 5, 'a 20-minute range in 5-minute buckets');
  t.same(d.buckets.reduce((n: number, b: { checks: number }) => n + b.checks, 0), 60, 'buckets add up');
  t.ok(d.overall.p50_ms <= d.overall.p95_ms && d.overall.p95_ms <= d.overall.p99_ms && d.overall.p99_ms <= d.overall.max_ms);
  t.ok(Math.abs(d.overall.min_ms - 40) < 0.01 && Math.abs(d.overall.max_ms - 99) < 0.01, 'min and max exact');
  const nodes = (await get(`${base}/stats?from=-2h&group_by=node`)).body.data.groups;
  t.same(nodes.map((g: { node_id: string }) => g.node_id).sort(), [n0, n1, n2].sort());
  t.match(nodes.find((g: { node_id: string }) => g.node_id === n0), { country: 'DE', overall: { failures: 5, checks: 20 } });
  const countries = (await get(`${base}/stats?from=-2h&group_by=country`)).body.data.groups;
  t.same(countries.map((g: { country: string }) => g.country).sort(), ['DE', 'JP', 'US']);
  t.equal((await get(`${base}/stats?from=-30d&bucket_s=60`)).body.error.code, 'VALIDATION_FAILED', 'over 1000 buckets');
  const hourly = (await get(`${base}/stats?from=-3h&bucket_s=3600`)).body.data;
  t.equal(hourly.overall.checks, 60, 'hour buckets (rollups where rolled up, raw after)');
});

t.test('state changes: newest first, with reasons', async (t) => {
  const res = await get(`${base}/state-changes`);
  t.equal(res.status, 200);
  t.match(res.body.data, { total: 3, has_more: false });
  t.same(res.body.data.items.map((c: { to_state: string }) => c.to_state), ['up', 'degraded', 'up']);
  t.match(res.body.data.items[1], {
    from_state: 'up', source: 'verdict', late: false, round_at: roundAt(m, -15, T0), changed_at: roundAt(m, -15, T0),
    reason: '1 of 3 reporting nodes failed (quorum 2): connection refused', failing_nodes: [{ node_id: n0, country: 'DE', error: 'connection refused' }],
  });
  t.equal((await get(`${base}/state-changes?to_state=degraded`)).body.data.total, 1);
});

t.test('another account\'s monitor, or a malformed id, is not found', async (t) => {
  for (const path of ['checks', 'uptime', 'stats', 'state-changes', 'stream']) {
    const r = await get(`${base}/${path}`, other.access_token);
    t.equal(r.status, 404, path);
    t.equal(r.body.error.code, 'MONITOR_NOT_FOUND');
  }
  t.equal((await get('/v1/monitors/nope/checks')).status, 404);
  t.equal((await call(app, 'GET', `${base}/checks`)).status, 401, 'a credential is needed');
});

t.test('event stream: checks and state changes as they are stored; resume with Last-Event-ID', async (t) => {
  const open = (headers: Record<string, string> = {}) => {
    const ctl = new AbortController();
    t.teardown(() => ctl.abort());
    return fetch(`${url}${base}/stream`, { headers: { authorization: `Bearer ${owner.access_token}`, ...headers }, signal: ctl.signal });
  };
  // A new stream starts settle_ms (200 ms) before the database's now, so it also sends checks
  // stored just before it opened: wait until the setup's checks are older than that (on a fast
  // machine the file reaches this point within 200 ms of storing them).
  await waitFor(async () => (await sql<{ settled: boolean }[]>`SELECT max(stored_at) < now() - interval '250 milliseconds' AS settled FROM check_batches`)[0]!.settled, 10_000);
  const res = await open();
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /text\/event-stream/);
  const frames = sseFrames(res);
  const r0 = roundAt(m, 0);
  await deps.results.ingest(n0, [httpResult(m.monitor_id, r0, { success: false, error: 'timeout' })]);
  const c1 = (await frames.next()).value!;
  t.match(c1, { event: 'check', data: { node_id: n0, scheduled_at: r0, success: false, error: 'timeout' } });
  await deps.results.ingest(n1, [httpResult(m.monitor_id, r0, { success: false, error: 'timeout' })]);
  await deps.results.ingest(n2, [httpResult(m.monitor_id, r0, { success: false, error: 'timeout' })]);
  const c2 = (await frames.next()).value!;
  const c3 = (await frames.next()).value!;
  t.same([c2.data.node_id, c3.data.node_id].sort(), [n1, n2].sort());
  await decidePass({ sql });
  const change = (await frames.next()).value!;
  t.match(change, { event: 'state_change', data: { from_state: 'up', to_state: 'down', late: false, failing_nodes: [{}, {}, {}] } });

  // Reconnect after the first check: exactly what came after it, in the same order.
  const again = sseFrames(await open({ 'last-event-id': c1.id! }));
  const seen: string[] = [];
  for (let i = 0; i < 3; i++) {
    const f = (await again.next()).value!;
    seen.push(f.event === 'check' ? `check ${f.data.node_id}` : f.event);
  }
  t.same(seen, [`check ${c2.data.node_id}`, `check ${c3.data.node_id}`, 'state_change']);
  // And a new check after the resume.
  // The round is taken once: computed twice, a round boundary between the two would move it.
  const r1 = roundAt(m, 1);
  await deps.results.ingest(n0, [httpResult(m.monitor_id, r1)]);
  t.match((await again.next()).value!, { event: 'check', data: { node_id: n0, scheduled_at: r1 } });
});

t.test('over the node socket: a result for another node\'s monitor is acked as rejected, counted, never stored', async (t) => {
  const { node, node_id } = await enrollNode(url, await makeToken(sql));
  const own = await seedMonitor(sql, { user_id: owner.user_id, nodes: [node_id] });
  const foreign = await seedMonitor(sql, { user_id: owner.user_id, nodes: await seedNodes(sql, 1) });
  const good = httpResult(own.monitor_id, roundAt(own, -1));
  const forged = httpResult(foreign.monitor_id, roundAt(foreign, -1));
  node.send({ type: 'result.batch', batch_id: 1, results: [good, forged] });
  let ack: { result_ids: string[] } | null = null;
  const error = await node.next('error');
  t.match(error, { code: 'FORBIDDEN', message: new RegExp(`${forged.result_id}: monitor not assigned to this node`) });
  ack = await node.next('result.ack');
  t.same(ack.result_ids.sort(), [good.result_id, forged.result_id].sort(), 'both acked: the node drops the refused one too');
  await waitFor(async () => (await sql`SELECT results_rejected_total::int AS n FROM nodes WHERE id = ${node_id}`)[0]!.n === 1);
  t.pass('counted on the node');
  t.equal((await sql`SELECT count(*)::int AS n FROM check_rounds WHERE monitor_id = ${foreign.monitor_id}`)[0]!.n, 0, 'nothing stored for the forged one');
  t.equal((await sql`SELECT count(*)::int AS n FROM check_rounds WHERE monitor_id = ${own.monitor_id}`)[0]!.n, 1);
  node.close();
});

t.test('the history routes are in the OpenAPI document with examples', async (t) => {
  const { body: doc } = await call(app, 'GET', '/v1/openapi.json');
  for (const path of ['checks', 'uptime', 'stats', 'state-changes']) {
    const op = doc.paths[`/v1/monitors/{id}/${path}`]?.get;
    if (!t.ok(op, `${path} documented`)) continue;
    t.same(op.security, [{ bearer: [] }]);
    t.ok(op.responses['200'].content['application/json'].example, `${path}: example`);
  }
  t.ok(doc.paths['/v1/monitors/{id}/stream']?.get.responses['200'].content['text/event-stream'], 'stream documented as text/event-stream');
});
