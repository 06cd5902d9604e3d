import t from 'tap';
import { newId, type MonitorResultEnvelope } from '@vantage/shared-protocol';
import { loadConfig } from '../config/index.js';
import { createLogger } from '../log.js';
import { createResultSink } from '../probes/sink.js';
import { testDatabase } from '../test-support/db.js';
import { decidePass } from './decide.js';
import { CHECK_REJECT, MISSING_ERROR, agreeingOutcome, createCheckStore, writeBatches } from './ingest.js';
import { createSeries, encodeGroups, type NodeCheckInsert } from './ingest.db.js';
import { httpResult, pingResult, roundAt, seedMonitor, storedChecks } from './test-support.js';
import { roundDeadlineMs } from './traits.js';

interface Teardown { teardown(fn: () => unknown): void }

async function setup(t: Teardown) {
  const { sql } = await testDatabase(t);
  // A long grace: rounds started up to a minute ago are not late yet.
  const config = loadConfig({}, { database_url: 'postgres://unused', log_level: 'silent', checks_round_grace_ms: 120_000 });
  const sink = createResultSink({ sql, log: createLogger('silent'), config, checks: createCheckStore({ config }) });
  const count = async (monitor_id: string) => (await storedChecks(sql, sql`s.monitor_id = ${monitor_id}`)).length;
  const round = async (monitor_id: string, at: string) => (await sql`
    SELECT expected, reported, failed, dirty, late, verdict FROM check_rounds WHERE monitor_id = ${monitor_id} AND scheduled_at = ${at}`)[0];
  return { sql, sink, count, round };
}

t.test('the same result twice, or the same round again, is stored once and acked every time', async (t) => {
  const { sql, sink, count, round } = await setup(t);
  const m = await seedMonitor(sql, { nodes: 3 });
  const [a, b] = m.node_ids as [string, string];
  // Rounds are placed from one instant: a round boundary passing while the test runs moves nothing.
  const now = Date.now();
  const at = roundAt(m, 0, now);
  const r1 = httpResult(m.monitor_id, at, { response_ms: 42 });
  t.same(await sink.ingest(a, [r1]), { stored: [r1.result_id], rejected: [] });
  t.same(await sink.ingest(a, [r1]), { stored: [r1.result_id], rejected: [] }, 'redelivered after a lost ack: acked again');
  const again = httpResult(m.monitor_id, at, { success: false });
  t.same(await sink.ingest(a, [again, again]), { stored: [again.result_id], rejected: [] }, 'another result id for the same node and round: acked, not stored');
  t.equal(await count(m.monitor_id), 1, 'one row for (monitor, node, round)');
  t.match(await round(m.monitor_id, at), { expected: 3, reported: 1, failed: 0, dirty: true, late: false, verdict: null }, 'counted once in its round');

  const rb = httpResult(m.monitor_id, at, { success: false, error: 'timeout' });
  const rb2 = httpResult(m.monitor_id, roundAt(m, -1, now));
  t.same(await sink.ingest(b, [rb, rb2, rb]), { stored: [rb.result_id, rb2.result_id], rejected: [] });
  t.equal(await count(m.monitor_id), 3);
  t.match(await round(m.monitor_id, at), { dirty: true, verdict: null }, 'one round, waiting for node c');
  await decidePass({ sql });
  await sql`UPDATE check_rounds SET deadline_at = now() WHERE monitor_id = ${m.monitor_id}`;
  await decidePass({ sql });
  t.match(await round(m.monitor_id, at), { expected: 3, reported: 2, failed: 1, dirty: false, verdict: 'degraded' }, 'judged from its checks: each counted once');
  const stored = (await storedChecks(sql)).filter((c) => c.scheduled_at.toISOString() === at).sort((x, y) => Number(y.success) - Number(x.success));
  t.same(stored.map((r) => [r.node_id, r.success, r.error]), [[a, true, null], [b, false, 'timeout']], 'success and error stored as sent');
  const row = stored.find((r) => r.node_id === a);
  t.match(row, { response_ms: 42, start_offset_ms: 2, duration_ms: 42 }, 'response time taken from the output; times kept as offsets');
  t.same(row!.output, r1.output, 'the output read back whole');
  const [batch] = await sql<{ n: number; data: number }[]>`SELECT cardinality(b.series) AS n, length(b.data) AS data FROM check_batches b
    JOIN check_series s ON s.id = ANY(b.series) WHERE s.node_id = ${a} AND s.monitor_id = ${m.monitor_id} ORDER BY b.first_at LIMIT 1`;
  t.ok(batch!.n === 1 && batch!.data < JSON.stringify(r1.output).length / 2, `stored in a batch row, compressed (${batch!.data} bytes of data)`);
});

t.test('the series a node\'s first result made is remembered: its next batch goes straight to the write', async (t) => {
  const { sql, sink, count } = await setup(t);
  const m = await seedMonitor(sql, { nodes: 1 });
  const node = m.node_ids[0]!;
  const seen: string[] = [];
  (sql.options as unknown as { debug: unknown }).debug = (_c: number, query: string) => { seen.push(query); };
  t.teardown(() => { (sql.options as unknown as { debug: unknown }).debug = false; });
  const kinds = () => seen.splice(0).map((q) => (/AS k\(id, revision/.test(q) ? 'read' : /INSERT INTO check_series/.test(q) ? 'series'
    : /WITH input AS MATERIALIZED/.test(q) ? 'write' : 'other')).filter((k) => k !== 'other');
  t.same((await sink.ingest(node, [httpResult(m.monitor_id, roundAt(m, -2))])).rejected, []);
  t.same(kinds(), ['read', 'series', 'write'], 'the first batch: read, its series made, written');
  t.same((await sink.ingest(node, [httpResult(m.monitor_id, roundAt(m, -1))])).rejected, []);
  t.same(kinds(), ['write'], 'the next: no read');
  t.equal(await count(m.monitor_id), 2);
});

t.test('a result for another node\'s monitor is refused and nothing is stored', async (t) => {
  const { sql, sink, count } = await setup(t);
  const mine = await seedMonitor(sql, { nodes: 1 });
  const theirs = await seedMonitor(sql, { nodes: 1 });
  const at = roundAt(mine);
  const forged = httpResult(theirs.monitor_id, roundAt(theirs));
  const ok = httpResult(mine.monitor_id, at);
  const out = await sink.ingest(mine.node_ids[0]!, [forged, ok]);
  t.same(out.stored, [ok.result_id]);
  t.same(out.rejected, [{ result_id: forged.result_id, reason: CHECK_REJECT.not_assigned }]);
  t.equal(await count(theirs.monitor_id), 0, 'nothing of the forged result');
  t.equal((await sql`SELECT count(*)::int AS n FROM check_rounds WHERE monitor_id = ${theirs.monitor_id}`)[0]!.n, 0, 'no round either');

  const wrong = pingResult(mine.monitor_id, roundAt(mine, -2));
  t.match(await sink.ingest(mine.node_ids[0]!, [wrong]), { stored: [], rejected: [{ reason: /does not match the monitor type/ }] });
  const ancient = httpResult(mine.monitor_id, new Date(Date.now() - 40 * 86_400_000).toISOString());
  t.match(await sink.ingest(mine.node_ids[0]!, [ancient]), { rejected: [{ reason: CHECK_REJECT.too_old }] }, 'older than the 30-day retention');

  // A node the monitor moved away from still delivers what it buffered while it ran it.
  await sql`UPDATE monitor_placements SET ended_at = now() WHERE monitor_id = ${mine.monitor_id}`;
  const buffered = httpResult(mine.monitor_id, roundAt(mine, -3));
  t.same((await sink.ingest(mine.node_ids[0]!, [buffered])).stored, [buffered.result_id], 'placement ended lately: accepted');
  await sql`UPDATE monitor_placements SET ended_at = now() - interval '8 days' WHERE monitor_id = ${mine.monitor_id}`;
  const stale = httpResult(mine.monitor_id, roundAt(mine, -4));
  t.match(await sink.ingest(mine.node_ids[0]!, [stale]), { rejected: [{ reason: CHECK_REJECT.not_assigned }] }, 'ended past the placement history: refused');
});

t.test('a result after its round\'s deadline marks the round late', async (t) => {
  const { sql, sink, round } = await setup(t);
  const m = await seedMonitor(sql, { nodes: 2 });
  const old = roundAt(m, -10);
  await sink.ingest(m.node_ids[0]!, [httpResult(m.monitor_id, old)]);
  t.match(await round(m.monitor_id, old), { late: true, reported: 1 }, 'buffered for 10 rounds: late');
});

t.test('instants are stored to the millisecond; a round in an hour that has ended marks that hour for the rollup job', async (t) => {
  const { sql, sink } = await setup(t);
  const m = await seedMonitor(sql, { nodes: 2 });
  const HOUR = 3_600_000;
  const ats = [roundAt(m, -180), roundAt(m, -120), roundAt(m, 0)];
  const sent = ats.map((at) => httpResult(m.monitor_id, at));
  t.same((await sink.ingest(m.node_ids[0]!, sent)).stored.length, 3);
  const this_hour = Math.floor(Date.now() / HOUR) * HOUR;
  const rounds = await sql<{ scheduled_at: Date; deadline_at: Date }[]>`
    SELECT scheduled_at, deadline_at FROM check_rounds WHERE monitor_id = ${m.monitor_id} ORDER BY scheduled_at`;
  const deadline_ms = roundDeadlineMs('http', { timeout_ms: 1000 }, m.interval_s, 120_000);
  t.same(rounds.map((r) => [r.scheduled_at.toISOString(), r.deadline_at.getTime() - r.scheduled_at.getTime()]), ats.map((at) => [at, deadline_ms]),
    'each round at the instant sent, its deadline the type\'s offset after it');
  const checks = await storedChecks(sql, sql`s.monitor_id = ${m.monitor_id}`);
  t.same(checks.map((c) => [c.scheduled_at.toISOString(), c.start_offset_ms]), ats.map((at) => [at, 2]));
  const marked = (await sql<{ hour: Date }[]>`SELECT hour FROM check_rollup_dirty ORDER BY hour`).map((r) => r.hour.getTime());
  const hours = ats.map((at) => Math.floor(Date.parse(at) / HOUR) * HOUR);
  t.same(marked, [...new Set(hours.filter((h) => h < this_hour))], 'the ended hours (UTC) of the rounds, once each; not the running one');
});

t.test('success and error always agree as stored: a successful tcp check has no error, a failure always has one', async (t) => {
  const { sql, sink, round } = await setup(t);
  const m = await seedMonitor(sql, { nodes: 3, type: 'tcp', config: { port: 443, expect: 'open', timeout_ms: 1000 } });
  const at = roundAt(m);
  const tcp = (over: Partial<MonitorResultEnvelope>): MonitorResultEnvelope => ({
    result_id: newId('result'), task_id: null, monitor_id: m.monitor_id, type: 'tcp', scheduled_at: at,
    started_at: new Date(Date.parse(at) + 1).toISOString(), finished_at: new Date(Date.parse(at) + 2).toISOString(),
    success: true, error: null, error_class: null, assertions: [],
    output: { resolved_address: '198.18.1.10', port: 443, connect_ms: 0.4, state: 'open', expected: 'open', banner: null, banner_matched: null },
    ...over,
  }) as MonitorResultEnvelope;
  const [a, b, c] = m.node_ids as [string, string, string];
  const sent: Array<[string, MonitorResultEnvelope]> = [
    [a, tcp({})],
    // Disagreeing results, as a node of another version (or a bug) could send them: the schema lets them through.
    [b, tcp({ error: 'connection reset after connect', error_class: 'target' })],
    [c, tcp({ success: false, output: { resolved_address: '198.18.1.10', port: 443, connect_ms: null, state: 'refused', expected: 'open', banner: null, banner_matched: null } })],
  ];
  for (const [node, r] of sent) t.same(await sink.ingest(node, [r]), { stored: [r.result_id], rejected: [] });
  const order = [a, b, c];
  const rows = (await storedChecks(sql, sql`s.monitor_id = ${m.monitor_id}`))
    .sort((x, y) => order.indexOf(x.node_id!) - order.indexOf(y.node_id!))
    .map(({ node_id, success, error, error_class }) => ({ node_id, success, error, error_class }));
  t.same(rows, [
    { node_id: a, success: true, error: null, error_class: null },
    { node_id: b, success: true, error: null, error_class: null },
    { node_id: c, success: false, error: MISSING_ERROR, error_class: 'internal' },
  ], 'the node\'s success kept; its error made to agree');
  for (const r of rows) t.equal(r.success, r.error === null, `${r.node_id}: success ⇔ no error`);
  await decidePass({ sql });
  t.match(await round(m.monitor_id, at), { reported: 3, failed: 1, verdict: 'degraded' }, 'the verdict counts the node\'s success');

  for (const r of [
    { success: true, error: 'x', error_class: 'target' }, { success: true, error: null, error_class: null },
    { success: false, error: null, error_class: null }, { success: false, error: '  ', error_class: 'timeout' },
    { success: false, error: 'refused at 198.18.1.10:443', error_class: 'refused' },
  ]) {
    const o = agreeingOutcome(r);
    t.equal(r.success, o.error === null, `agreeingOutcome(${JSON.stringify(r)}) = ${JSON.stringify(o)}`);
    t.equal(r.success, o.error_class === null);
  }
});

t.test('series ids are remembered only as committed: one made in a transaction that rolls back is read again', async (t) => {
  const { sql, count } = await setup(t);
  const config = loadConfig({}, { database_url: 'postgres://unused', log_level: 'silent', checks_round_grace_ms: 120_000 });
  const store = createCheckStore({ config });
  const m = await seedMonitor(sql, { nodes: 1 });
  const node = m.node_ids[0]!;
  // The second batch reads the series the first made (same transaction, not committed); then all of it rolls back.
  await t.rejects(sql.begin(async (tx) => {
    t.equal((await store.store(tx, node, [httpResult(m.monitor_id, roundAt(m, -3))])).stored.length, 1);
    t.equal((await store.store(tx, node, [httpResult(m.monitor_id, roundAt(m, -2))])).stored.length, 1);
    throw new Error('roll back');
  }), /roll back/);
  t.equal(await count(m.monitor_id), 0, 'nothing kept');
  // Outside a transaction: the series is made again, then remembered, and later batches use it.
  for (const k of [-2, -1, 0]) t.equal((await store.store(sql, node, [httpResult(m.monitor_id, roundAt(m, k))])).stored.length, 1, `round ${k} stored`);
  t.equal(await count(m.monitor_id), 3);
  t.equal((await sql`SELECT count(*)::int AS n FROM check_series WHERE monitor_id = ${m.monitor_id}`)[0]!.n, 1, 'one series');
});

t.test('batches that arrive together are stored together: every round counted once per node', async (t) => {
  const { sql, count, round } = await setup(t);
  const config = loadConfig({}, { database_url: 'postgres://unused', log_level: 'silent', checks_round_grace_ms: 120_000 });
  const store = createCheckStore({ config });
  // The pool as the store sees it, counting the write statements that reach the server.
  let writes = 0;
  const counted = new Proxy(sql, {
    apply(target, self, args: unknown[]) {
      if ((args[0] as TemplateStringsArray | undefined)?.raw?.join('').includes('INSERT INTO check_batches')) writes++;
      return Reflect.apply(target as unknown as (...a: unknown[]) => unknown, self, args);
    },
  });
  const m1 = await seedMonitor(sql, { nodes: 3 });
  const m2 = await seedMonitor(sql, { nodes: m1.node_ids });
  const at = roundAt(m1);
  const at2 = roundAt(m2);
  const batches = m1.node_ids.map((node_id, i) => ({
    node_id,
    results: [httpResult(m1.monitor_id, at, { response_ms: 10 + i }), httpResult(m2.monitor_id, at2, { response_ms: 20 + i })],
  }));
  // Node 0's batch sent again (its ack lost) while the first is still in flight, with new result ids.
  const resent = { node_id: m1.node_ids[0]!, results: [httpResult(m1.monitor_id, at, { response_ms: 99 })] };
  const outs = await Promise.all([...batches, resent].map((b) => store.store(counted as typeof sql, b.node_id, b.results)));
  t.comment(`four batches, ${writes} write statement(s)`);
  t.same(outs.map((o) => o.stored.length), [2, 2, 2, 1], 'every result acked as stored');
  t.equal(await count(m1.monitor_id), 3, 'one check per node of the round, the resent one not twice');
  t.equal(await count(m2.monitor_id), 3);
  t.match(await round(m1.monitor_id, at), { expected: 3, dirty: true, late: false }, 'the round made once, expecting its three nodes');
  t.match(await round(m2.monitor_id, at2), { expected: 3, dirty: true });
  await decidePass({ sql });
  t.match(await round(m1.monitor_id, at), { reported: 3, failed: 0, dirty: false, verdict: 'up' }, 'judged complete from its three checks');
  t.match(await round(m2.monitor_id, at2), { reported: 3, failed: 0, dirty: false, verdict: 'up' });
});

t.test('one write for several batches: a round sent twice is written once, from the first batch; several nodes share its round row', async (t) => {
  const { sql, count, round } = await setup(t);
  const m = await seedMonitor(sql, { nodes: 2 });
  const [a, b] = m.node_ids as [string, string];
  const at = roundAt(m);
  const series = await createSeries(sql, a, [m.monitor_id]);
  const series_b = await createSeries(sql, b, [m.monitor_id]);
  const row = (series_id: number, response_ms: number, expected: number): NodeCheckInsert => ({
    series_id, scheduled_ms: Date.parse(at), start_offset_ms: 1, duration_ms: response_ms, response_ms, success: true, error: null,
    error_class: null, assertions: null, output: null, monitor_id: m.monitor_id, node_id: series_id === series.get(m.monitor_id) ? a : b,
    deadline_offset_ms: 60_000, interval_s: 60, expected,
  });
  const hour_ms = Math.floor(Date.now() / 3_600_000) * 3_600_000;
  const out = await writeBatches(sql, [
    { rows: [row(series.get(m.monitor_id)!, 10, 2)], hour_ms },
    { rows: [row(series.get(m.monitor_id)!, 99, 2)], hour_ms },
    { rows: [row(series_b.get(m.monitor_id)!, 20, 1)], hour_ms },
  ]);
  t.same(out.map((o) => o.judgeable), [true, true, true], 'the round, new and complete with these checks (2 of the largest expected 2), is judgeable for every batch of the statement');
  t.same(out[0]!.stale, [], 'nothing stale: no row carried a remembered view');
  t.equal(await count(m.monitor_id), 2, 'one check per series');
  const stored = await storedChecks(sql, sql`s.id = ${series.get(m.monitor_id)!}`);
  t.same(stored.map((r) => r.response_ms), [10], 'the first batch\'s check kept');
  t.match(await round(m.monitor_id, at), { expected: 2, reported: 2, dirty: true }, 'one round row: the largest expected count, both reports');
});

t.test('one write for several batches: full batch rows encoded ahead stay whole, the rest of every batch is cut together', async (t) => {
  const { sql, count } = await setup(t);
  const m = await seedMonitor(sql, { nodes: 2 });
  const [a, b] = m.node_ids as [string, string];
  const sa = (await createSeries(sql, a, [m.monitor_id])).get(m.monitor_id)!;
  const sb = (await createSeries(sql, b, [m.monitor_id])).get(m.monitor_id)!;
  // A second apart from the start of this UTC day, oldest first, as a node's outbox releases
  // them: one day, so the rows are cut by count alone.
  const day_ms = Math.floor(Date.now() / 86_400_000) * 86_400_000;
  const rows = (series_id: number, n: number, ms: number): NodeCheckInsert[] => Array.from({ length: n }, (_, i) => ({
    series_id, scheduled_ms: day_ms + i * 1000, start_offset_ms: 1, duration_ms: ms + i, response_ms: ms + i, success: true,
    error: null, error_class: null, assertions: null, output: { i }, monitor_id: m.monitor_id, node_id: series_id === sa ? a : b,
    deadline_offset_ms: 60_000, interval_s: 60, expected: 2,
  }));
  const hour_ms = Math.floor(Date.now() / 3_600_000) * 3_600_000;
  const first = rows(sa, 150, 1000);
  const encoded = encodeGroups(first, true);
  t.same([encoded.groups.map((g) => g.rows.length), encoded.rest.length], [[100], 50], 'one full batch row encoded ahead, 50 checks left');
  await writeBatches(sql, [{ rows: first, hour_ms, encoded }, { rows: rows(sb, 30, 2000), hour_ms }]);
  const batches = await sql<{ n: number; series: number[] }[]>`
    SELECT cardinality(b.series) AS n, ARRAY(SELECT DISTINCT x FROM unnest(b.series) x ORDER BY 1) AS series FROM check_batches b ORDER BY 1 DESC`;
  t.same(batches, [{ n: 100, series: [sa] }, { n: 80, series: [sa, sb].sort((x, y) => x - y) }], 'the encoded row as it was; the two batches\' rest in one row');
  t.equal(await count(m.monitor_id), 180, 'every check stored');
  const stored = await storedChecks(sql, sql`s.id = ${sa}`);
  t.same(stored.map((c) => [c.response_ms, c.output]).sort((x, y) => Number(x[0]) - Number(y[0])),
    first.map((c, i) => [c.response_ms, { i }]), 'each check read back with its own fields, from either row');
});

t.test('a check judged by a remembered view the monitor no longer has is not stored: the monitor is returned as stale', async (t) => {
  const { sql, count } = await setup(t);
  const m = await seedMonitor(sql, { nodes: 1 });
  const series = await createSeries(sql, m.node_ids[0]!, [m.monitor_id]);
  const [v] = await sql<{ revision: string; placement_version: string }[]>`SELECT revision, placement_version FROM monitors WHERE id = ${m.monitor_id}`;
  const row = (k: number, revision: number): NodeCheckInsert => ({
    series_id: series.get(m.monitor_id)!, scheduled_ms: Date.parse(roundAt(m, k)), start_offset_ms: 1, duration_ms: 5, response_ms: 5, success: true,
    error: null, error_class: null, assertions: null, output: null, monitor_id: m.monitor_id, node_id: m.node_ids[0]!, deadline_offset_ms: 60_000,
    interval_s: 60, expected: 1, judged_at: { revision, placement_version: Number(v!.placement_version) },
  });
  const hour_ms = Math.floor(Date.now() / 3_600_000) * 3_600_000;
  const [ok] = await writeBatches(sql, [{ rows: [row(-2, Number(v!.revision))], hour_ms }]);
  t.same(ok!.stale, [], 'judged at the current revision and placement version: stored');
  const [old] = await writeBatches(sql, [{ rows: [row(-1, Number(v!.revision) - 1)], hour_ms }]);
  t.same(old!.stale, [m.monitor_id], 'judged at an older revision: stale');
  t.equal(await count(m.monitor_id), 1, 'and not stored');
  await sql`DELETE FROM monitors WHERE id = ${m.monitor_id}`;
  const [gone] = await writeBatches(sql, [{ rows: [row(-1, Number(v!.revision))], hour_ms }]);
  t.same(gone!.stale, [m.monitor_id], 'a monitor deleted meanwhile: stale');
});
