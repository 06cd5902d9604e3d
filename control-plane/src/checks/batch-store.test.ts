import t from 'tap';
import { testDatabase } from '../test-support/db.js';
import { decodeDirectory } from './batch-codec.js';
import { createSeries, storeNodeChecks, type NodeCheckInsert } from './ingest.db.js';
import { roundAt, seedMonitor, seedNodes, storedChecks, type SeededMonitor } from './test-support.js';

/*
 * Node checks stored a row per batch (0101_check_batches.sql, ingest.db.ts storeNodeChecks) on a
 * real Postgres: what SQL reads of a batch is what the codec wrote; every check is stored once
 * however it is sent again (in order, out of order, twice at once); checks judged by a view the
 * monitor no longer has are not stored.
 */

const HOUR_MS = 3_600_000;

async function setup(t: Parameters<typeof testDatabase>[0], monitors = 1) {
  const { sql } = await testDatabase(t);
  const [node] = await seedNodes(sql, 1);
  const ms: SeededMonitor[] = [];
  for (let i = 0; i < monitors; i++) ms.push(await seedMonitor(sql, { nodes: [node!] }));
  const series = await createSeries(sql, node!, ms.map((m) => m.monitor_id));
  // Rounds are placed from one instant: a round boundary passing while the test runs moves nothing.
  const now = Date.now();
  const check = (m: SeededMonitor, k: number, over: Partial<NodeCheckInsert> = {}): NodeCheckInsert => ({
    series_id: series.get(m.monitor_id)!, scheduled_ms: Date.parse(roundAt(m, k, now)), start_offset_ms: 3, duration_ms: 40, response_ms: 40,
    success: true, error_class: null, error: null, assertions: null, output: { k }, monitor_id: m.monitor_id, node_id: node!, deadline_offset_ms: 60_000,
    interval_s: m.interval_s, expected: 1, ...over,
  });
  const hour_ms = Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
  const rounds = async (monitor_id: string) => sql<{ scheduled_at: Date; reported: number; dirty: boolean }[]>`
    SELECT scheduled_at, reported, dirty FROM check_rounds WHERE monitor_id = ${monitor_id} ORDER BY scheduled_at`;
  return { sql, node: node!, ms, series, check, hour_ms, rounds };
}

t.test('SQL reads each check of a batch as the codec wrote it: scheduled_at, success, response_ms to the float32', async (t) => {
  const { sql, ms, check, hour_ms } = await setup(t, 20);
  const responses = [null, 0, 12.345678, Math.fround(1e-40), 3.0e38, 0.001, 65535.5, 1, 250.25, null, 9999.999, 42];
  const rows = ms.map((m, i) => check(m, -(i % 3), { response_ms: responses[i % responses.length]!, success: i % 3 !== 1, start_offset_ms: i }));
  const out = await storeNodeChecks(sql, rows, hour_ms);
  t.equal(out.inserted, rows.length);
  const [b] = await sql<{ first_at: Date; series: number[]; dir: Buffer }[]>`SELECT first_at, series, dir FROM check_batches`;
  const dir = decodeDirectory(b!.first_at.getTime(), b!.series.length, b!.dir);
  const entries = await sql<{ series_id: number; scheduled_at: Date; success: boolean; response_ms: number | null; pos: number }[]>`
    SELECT series_id, scheduled_at, success, response_ms, pos FROM check_entries(${b!.series}::int4[], '-infinity', 'infinity') ORDER BY pos`;
  t.equal(entries.length, rows.length, 'every check, once');
  for (const e of entries) {
    const p = e.pos - 1;
    const sent = rows.find((r) => r.series_id === e.series_id)!;
    t.same([e.scheduled_at.getTime(), e.success], [dir.scheduled_ms[p], dir.success[p]], `position ${e.pos}: as the codec reads it`);
    t.equal(e.scheduled_at.getTime(), sent.scheduled_ms);
    t.equal(e.response_ms === null ? null : Math.fround(e.response_ms), sent.response_ms === null ? null : Math.fround(sent.response_ms),
      `response_ms ${sent.response_ms} read back to the float32`);
  }
  const listed = await storedChecks(sql);
  t.same(listed.map((c) => c.start_offset_ms).sort((a, b) => a - b), rows.map((r) => r.start_offset_ms), 'details decoded from the batch');
});

t.test('a backlog sent out of order: older checks looked up, stored once, their rounds dirty again; sent again, nothing is stored', async (t) => {
  const { sql, ms, check, hour_ms, rounds } = await setup(t);
  const m = ms[0]!;
  t.match(await storeNodeChecks(sql, [check(m, -1)], hour_ms), { inserted: 1 });
  await sql`UPDATE check_rounds SET dirty = false, verdict = 'up' WHERE monitor_id = ${m.monitor_id}`;
  // Older rounds after a newer one: at or before the series' mark, so looked up (not found).
  const older = await storeNodeChecks(sql, [check(m, -3), check(m, -2), check(m, -1)], hour_ms);
  t.match(older, { inserted: 2, judgeable: true }, 'the two older checks stored by the second step; the newest is a duplicate');
  t.same((await storedChecks(sql)).map((c) => (c.output as { k: number }).k), [-3, -2, -1], 'each round once, in order');
  t.same((await rounds(m.monitor_id)).map((r) => [r.reported, r.dirty]), [[1, true], [1, true], [1, false]], 'the older rounds made; the judged one left alone');
  const [batches] = await sql<{ n: number; hidden: number }[]>`SELECT count(*)::int AS n, sum(coalesce(cardinality(hidden), 0))::int AS hidden FROM check_batches`;
  t.same(batches, { n: 2, hidden: 1 }, 'the resent check stays hidden in its batch');

  const again = await storeNodeChecks(sql, [check(m, -3), check(m, -2)], hour_ms);
  t.match(again, { inserted: 0 }, 'sent again whole: nothing stored');
  t.equal((await storedChecks(sql)).length, 3);
  t.equal((await sql`SELECT 1 FROM check_batches`).length, 2, 'and its batch row deleted');
});

t.test('the same batch stored several times at once is stored once', async (t) => {
  const { sql, ms, check, hour_ms } = await setup(t, 5);
  const rows = ms.flatMap((m) => [check(m, -2), check(m, -1)]);
  const outs = await Promise.all(Array.from({ length: 4 }, () => storeNodeChecks(sql, rows, hour_ms)));
  t.equal(outs.reduce((n, o) => n + o.inserted, 0), rows.length, 'each check counted as inserted by one statement');
  const stored = await storedChecks(sql);
  t.equal(stored.length, rows.length, 'each check stored once');
  t.equal(new Set(stored.map((c) => `${c.series_id}/${c.scheduled_at.getTime()}`)).size, rows.length);
  t.equal((await sql`SELECT 1 FROM check_batches`).length, 1, 'the copies\' batch rows deleted');
});

t.test('statements over overlapping series, their checks in different orders, at once: none fails, each check stored once', async (t) => {
  const { sql, ms, check, hour_ms } = await setup(t, 40);
  // Each statement a different subset of the series (two rounds each), its rows in an order of
  // its own (a fixed shuffle): the marks are moved in series id order whatever the rows' order,
  // so statements that share series wait for each other instead of deadlocking.
  let seed = 7;
  const draw = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  const statements = Array.from({ length: 8 }, (_, j) => ms.filter((_, i) => (i + j) % 4 !== 0)
    .flatMap((m) => [check(m, -1 - (j % 2)), check(m, -3)])
    .map((r) => ({ r, key: draw() })).sort((a, b) => a.key - b.key).map(({ r }) => r));
  const outs = await Promise.all(statements.map((rows) => storeNodeChecks(sql, rows, hour_ms)));
  const distinct = new Set(statements.flat().map((r) => `${r.series_id}/${r.scheduled_ms}`));
  t.equal(outs.reduce((n, o) => n + o.inserted, 0), distinct.size, 'each check counted as inserted by one statement');
  const stored = await storedChecks(sql);
  t.equal(stored.length, distinct.size, 'each check stored once');
  t.equal(new Set(stored.map((c) => `${c.series_id}/${c.scheduled_at.getTime()}`)).size, distinct.size);
  const [counted] = await sql<{ n: number }[]>`SELECT coalesce(sum(reported), 0)::int AS n FROM check_rounds`;
  t.equal(counted!.n, distinct.size, 'each check counted into its round once');
});

t.test('checks judged by a revision the monitor no longer has are not stored, and nothing is written for them', async (t) => {
  const { sql, ms, check, hour_ms } = await setup(t, 2);
  const [a, b] = ms as [SeededMonitor, SeededMonitor];
  const [v] = await sql<{ revision: string; placement_version: string }[]>`SELECT revision, placement_version FROM monitors WHERE id = ${a.monitor_id}`;
  const stale = { revision: Number(v!.revision) - 1, placement_version: Number(v!.placement_version) };
  const out = await storeNodeChecks(sql, [check(a, -1, { judged_at: stale }), check(b, -1)], hour_ms);
  t.same(out, { inserted: 1, judgeable: true, stale: [a.monitor_id] });
  t.same((await storedChecks(sql)).map((c) => c.monitor_id), [b.monitor_id], 'only the fresh monitor\'s check');
  const only = await storeNodeChecks(sql, [check(a, -2, { judged_at: stale })], hour_ms);
  t.same(only, { inserted: 0, judgeable: false, stale: [a.monitor_id] });
  t.equal((await sql`SELECT 1 FROM check_batches`).length, 1, 'no row for a batch of stale checks only');
  // Judged again at the current view: stored.
  t.match(await storeNodeChecks(sql, [check(a, -1)], hour_ms), { inserted: 1 });
});

t.test('a batch is cut at UTC midnight and by the span its offsets can hold', async (t) => {
  const { sql, ms, check, hour_ms } = await setup(t, 1);
  const m = ms[0]!;
  const midnight = Math.floor(Date.now() / 86_400_000) * 86_400_000;
  const at = (ms_: number) => Date.parse(roundAt(m, 0, ms_));
  const rows = [at(midnight - 10 * HOUR_MS), at(midnight - 60_000), at(midnight + 120_000)].map((s, i) => check(m, 0, { scheduled_ms: s, output: { i } }));
  t.match(await storeNodeChecks(sql, rows.slice().reverse(), hour_ms), { inserted: 3 });
  const batches = await sql<{ first_at: Date; last_at: Date; n: number }[]>`
    SELECT first_at, last_at, cardinality(series) AS n FROM check_batches ORDER BY first_at`;
  t.same(batches.map((b) => b.n), [1, 1, 1], 'three rows: the day before midnight cut by span (10 h > 2^24 ms), the next day apart');
  t.same((await storedChecks(sql)).map((c) => c.scheduled_at.getTime()), rows.map((r) => r.scheduled_ms));
});
