import t from 'tap';
import { loadConfig } from '../config/index.js';
import { createLogger } from '../log.js';
import { createResultSink } from '../probes/sink.js';
import { testDatabase } from '../test-support/db.js';
import { createCheckStore } from './ingest.js';
import { makeJobsDue, rolledUntil, rollupMarks } from './jobs.db.js';
import { monitorSeries } from './history.db.js';
import { monitorStats } from './stats.js';
import { runDueJobs } from './jobs.js';
import { listPartitions } from './partitions.db.js';
import { ensurePartitions } from './partitions.js';
import { httpResult, roundAt, seedMonitor } from './test-support.js';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const log = createLogger('silent');
const config = loadConfig({}, { database_url: 'postgres://unused', log_level: 'silent', checks_round_grace_ms: 3_600_000, plan: 'free' });

async function setup(t: Parameters<typeof testDatabase>[0]) {
  const { sql } = await testDatabase(t);
  const sink = createResultSink({ sql, log, config, checks: createCheckStore({ config }) });
  const where = async (at: string) => (await sql<{ p: string }[]>`SELECT tableoid::regclass::text AS p FROM check_batches WHERE first_at = ${at}`).map((r) => r.p);
  return { sql, sink, where };
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10).replaceAll('-', '');

t.test('partition rollover across midnight: each check in its day\'s partition, none in DEFAULT', async (t) => {
  const { sql, sink, where } = await setup(t);
  const midnight = Math.ceil(Date.now() / DAY_MS) * DAY_MS;
  const created = await ensurePartitions(sql);
  t.ok(created.includes(`checks_p${day(midnight)}`) && created.includes(`check_rounds_p${day(midnight)}`), 'tomorrow\'s partitions ready');
  t.same(await ensurePartitions(sql), [], 'idempotent');
  const rf = await sql<{ p: string; options: string[] | null }[]>`
    SELECT i.inhrelid::regclass::text AS p, c.reloptions AS options FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'check_rounds'::regclass ORDER BY 1`;
  t.ok(rf.length > 1 && rf.every((r) => r.options?.includes('fillfactor=60')),
    'every round partition, the DEFAULT one and those made now, leaves room for HOT updates');
  const m = await seedMonitor(sql, { nodes: 1, interval_s: 60 });
  // The monitor's last round before today's midnight and its first from then on (rounds that ran).
  const today = midnight - DAY_MS;
  const before = roundAt(m, 0, today - 1);
  const after = roundAt(m, 1, today - 1);
  t.same((await sink.ingest(m.node_ids[0]!, [httpResult(m.monitor_id, before), httpResult(m.monitor_id, after)])).rejected, []);
  t.same(await where(before), [`check_batches_p${day(today - 1)}`]);
  t.same(await where(after), [`check_batches_p${day(today)}`], 'a batch of two days is stored as one row per day');
  const rounds = await sql`SELECT tableoid::regclass::text AS p FROM check_rounds WHERE monitor_id = ${m.monitor_id} ORDER BY scheduled_at`;
  t.same(rounds.map((r) => r.p), [`check_rounds_p${day(today - 1)}`, `check_rounds_p${day(today)}`]);

  // Days later: the job keeps partitions ahead of the clock.
  const later = new Date(midnight + 3 * DAY_MS + 60_000);
  await runDueJobs({ sql, log, config }, later);
  const names = (await listPartitions(sql, 'checks')).map((p) => p.name);
  t.ok(names.includes(`checks_p${day(later.getTime() + 3 * DAY_MS)}`), 'three days ahead of the (moved) clock');
});

t.test('rows that landed in DEFAULT move into the partition created for them', async (t) => {
  const { sql, sink, where } = await setup(t);
  await ensurePartitions(sql);
  const m = await seedMonitor(sql, { nodes: 1 });
  const old = roundAt(m, 0, Math.floor(Date.now() / DAY_MS) * DAY_MS - 5 * DAY_MS + 3_600_000);
  await sink.ingest(m.node_ids[0]!, [httpResult(m.monitor_id, old)]);
  t.same(await where(old), ['check_batches_default'], 'no partition for that day yet');
  await ensurePartitions(sql, new Date(old));
  t.same(await where(old), [`check_batches_p${day(Date.parse(old))}`], 'moved');
  t.equal((await sql`SELECT count(*)::int AS n FROM check_batches_default`)[0]!.n, 0);
});

t.test('retention drops whole days past the raw retention and months past the rollup retention', async (t) => {
  const { sql, sink } = await setup(t);
  await ensurePartitions(sql);
  const m = await seedMonitor(sql, { nodes: 1 });
  const now = Date.now();
  await sink.ingest(m.node_ids[0]!, [httpResult(m.monitor_id, roundAt(m, 0, now - 2 * HOUR_MS))]);
  const today = day(now);
  // 31 days on (raw retention 30 days on the free plan): today's partition is past it, days since are not.
  const future = new Date(now + 31 * DAY_MS);
  await makeJobsDue(sql);
  const did = await runDueJobs({ sql, log, config }, future) as { retention: { dropped: string[] } };
  t.ok(did.retention.dropped.includes(`checks_p${today}`) && did.retention.dropped.includes(`check_batches_p${today}`) && did.retention.dropped.includes(`check_rounds_p${today}`),
    'today\'s raw partitions dropped');
  t.notOk(did.retention.dropped.some((n) => n.startsWith('check_rollups') || n.startsWith('round_rollups')), 'rollups kept (2 years)');
  t.equal((await sql`SELECT count(*)::int AS n FROM check_batches`)[0]!.n, 0, 'the check went with its day');
  const kept = (await listPartitions(sql, 'checks')).map((p) => p.name);
  t.ok(kept.includes(`checks_p${day(future.getTime())}`), 'recent days stay');
  await makeJobsDue(sql);
  const far = await runDueJobs({ sql, log, config }, new Date(now + 800 * DAY_MS)) as { retention: { dropped: string[] } };
  t.ok(far.retention.dropped.some((n) => n.startsWith('check_rollups_p')), 'rollup months past two years dropped');
});

t.test('the rollup job rolls up finished hours, and again when late checks arrive', async (t) => {
  const { sql, sink } = await setup(t);
  await ensurePartitions(sql);
  const m = await seedMonitor(sql, { nodes: 2 });
  const [a, b] = m.node_ids as [string, string];
  const hour = Math.floor(Date.now() / HOUR_MS) * HOUR_MS - 3 * HOUR_MS;
  const at = (i: number) => roundAt(m, i + 1, hour - 1); // the i-th round starting in that hour
  for (let i = 0; i < 10; i++) await sink.ingest(a, [httpResult(m.monitor_id, at(i), { response_ms: 50 + i * 10, success: i !== 3 })]);
  const run = async () => {
    for (let i = 0; i < 20; i++) {
      await makeJobsDue(sql);
      await runDueJobs({ sql, log, config });
      if ((await rolledUntil(sql))!.getTime() >= Math.floor((Date.now() - 10 * 60_000) / HOUR_MS) * HOUR_MS) return;
    }
  };
  await run();
  const rollup = async () => (await sql`
    SELECT s.node_id, r.checks, r.failures, r.rt_count, r.rt_min_ms, r.rt_max_ms, r.rt_sum_ms, cardinality(r.rt_hist) AS buckets
    FROM check_rollups r JOIN check_series s ON s.id = r.series_id WHERE r.hour = ${new Date(hour)} ORDER BY s.node_id`);
  t.same((await rollup()).map((r) => [r.node_id, r.checks, r.failures, r.rt_count, r.rt_min_ms, r.rt_max_ms, r.rt_sum_ms]),
    [[a, 10, 1, 9, 50, 140, 50 + 60 + 70 + 80 + 90 + 100 + 110 + 120 + 130 + 140 - 80]], 'one row per node and hour: counts, failures, response times of the successes');
  t.ok((await rollup())[0]!.buckets >= 5, 'a histogram of the response times');

  // Node b's results for that hour arrive late (it was cut off): the hour is rolled up again.
  await sink.ingest(b, [httpResult(m.monitor_id, at(1), { response_ms: 33 }), httpResult(m.monitor_id, at(2), { response_ms: 34 })]);
  await run();
  t.same((await rollup()).map((r) => [r.node_id, r.checks]).sort(), [[a, 10], [b, 2]].sort(), 'the late checks are in the rollup');

  // A day later every hour of that day is rolled up: it becomes one daily row per series, and
  // statistics in day buckets read the same from daily rows as from hourly ones.
  const tomorrow = new Date(Math.floor(hour / DAY_MS) * DAY_MS + DAY_MS + 2 * HOUR_MS);
  for (let i = 0; i < 20; i++) {
    await makeJobsDue(sql);
    await runDueJobs({ sql, log, config }, tomorrow);
    const marks = await rollupMarks(sql);
    if (marks.days_until && marks.days_until.getTime() > hour) break;
  }
  const marks = await rollupMarks(sql);
  t.ok(marks.days_until!.getTime() > hour && marks.days_from!.getTime() <= hour, 'the day is rolled up');
  const daily = await sql`SELECT s.node_id, d.checks, d.failures, d.rt_count, cardinality(d.rt_hist) AS buckets FROM check_rollups_daily d
    JOIN check_series s ON s.id = d.series_id WHERE d.day = ${new Date(Math.floor(hour / DAY_MS) * DAY_MS)} ORDER BY s.node_id`;
  t.same(daily.map((r) => [r.node_id, r.checks, r.failures, r.rt_count]).sort(), [[a, 10, 1, 9], [b, 2, 0, 2]].sort());
  const series = await monitorSeries(sql, m.monitor_id);
  const range = [new Date(Math.floor(hour / DAY_MS) * DAY_MS), new Date(Math.floor(hour / DAY_MS) * DAY_MS + DAY_MS)] as const;
  const fromDaily = await monitorStats(sql, series, range[0], range[1], 86_400, undefined, marks);
  const fromHourly = await monitorStats(sql, series, range[0], range[1], 86_400, undefined, { ...marks, days_from: null, days_until: null });
  t.same(fromDaily.overall, fromHourly.overall, 'daily and hourly rollups agree');
  const fromRaw = await monitorStats(sql, series, range[0], range[1], 86_400, undefined, { hours_until: null, days_from: null, days_until: null });
  t.same(fromDaily.overall, fromRaw.overall, 'and both agree with the raw checks, percentiles included');
  t.match(fromDaily.overall, { checks: 12, failures: 1 });
});
