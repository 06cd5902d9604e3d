import t from 'tap';
import type { CheckItem } from '@vantage/shared-protocol';
import { loadConfig } from '../config/index.js';
import { storeControlCheck } from '../control-checks/results.db.js';
import { createLogger } from '../log.js';
import { createResultSink } from '../probes/sink.js';
import { testDatabase } from '../test-support/db.js';
import { pruneAccountChecks } from './account-retention.js';
import { historyReads } from './history-reads.js';
import { createCheckStore } from './ingest.js';
import { makeJobsDue } from './jobs.db.js';
import { runDueJobs } from './jobs.js';
import { packHistory, packSeriesDay } from './pack.js';
import { clearPackedBodies } from './pack-bodies.js';
import { listPartitions } from './partitions.db.js';
import { dropExpiredPartitions, ensurePartitions } from './partitions.js';
import { monitorSeries } from './history.db.js';
import { monitorStats } from './stats.js';
import { httpResult, roundAt, seedMonitor } from './test-support.js';

/*
 * Packed check history on a real Postgres (docs/architecture/checks.md "Storage"): a day of checks
 * ingested through the check store, packed; the checks list answers the same pages before and
 * after, across the raw/packed boundary; packing twice, or again after a crash between the blocks
 * and the drop, loses and duplicates nothing; a result for a packed round is refused; retention
 * deletes packed history, also a day it prunes while the day is being packed; a heartbeat body
 * leaving the newest kept is cleared in its block. The deployment keeps rounds 1 day (VANTAGE_CHECKS_ROUNDS_RETENTION_DAYS=1),
 * so the day before yesterday, ingested while it could still change, can be packed now.
 */

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const log = createLogger('silent');
const config = loadConfig({}, { database_url: 'postgres://unused', log_level: 'silent', checks_round_grace_ms: 3_600_000, checks_rounds_retention_days: 1 });
// What the store accepted when the day was recent (the default 8-day window).
const storeConfig = loadConfig({}, { database_url: 'postgres://unused', log_level: 'silent', checks_round_grace_ms: 3_600_000 });

const now = new Date();
const day = new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS - 2 * DAY_MS);

async function setup(t: Parameters<typeof testDatabase>[0]) {
  const { sql } = await testDatabase(t);
  for (let d = -2; d <= 0; d++) await ensurePartitions(sql, new Date(now.getTime() + d * DAY_MS));
  const sink = createResultSink({ sql, log, config: storeConfig, checks: createCheckStore({ config: storeConfig }) });
  const m = await seedMonitor(sql, { nodes: 2, interval_s: 300 });
  // Every round of the day on both nodes (one in 7 failed, response times varied), and the rounds
  // of yesterday's first six hours (raw: not packable yet).
  const rounds: string[] = [];
  for (let k = 1; ; k++) {
    const at = roundAt(m, k, day.getTime());
    if (Date.parse(at) >= day.getTime() + DAY_MS + 6 * HOUR_MS) break;
    rounds.push(at);
  }
  for (const [n, node] of m.node_ids.entries()) {
    const results = rounds.map((at, i) => httpResult(m.monitor_id, at, (i + n) % 7 === 0 ? { success: false, error: `refused ${i}` } : { response_ms: 40 + ((i * 37 + n) % 50) }));
    for (let i = 0; i < results.length; i += 100) {
      const out = await sink.ingest(node, results.slice(i, i + 100));
      if (out.rejected.length > 0) throw new Error(`refused: ${JSON.stringify(out.rejected[0])}`);
    }
  }
  // A control-plane check of another monitor (output kept as jsonb) in the same day.
  const hb = await seedMonitor(sql, { nodes: [], type: 'heartbeat', config: { period_s: 3600 } });
  const hb_at = new Date(day.getTime() + 5 * HOUR_MS + 1234);
  await sql.begin((tx) => storeControlCheck(tx, {
    monitor_id: hb.monitor_id, interval_s: 3600, scheduled_at: hb_at, started_at: new Date(day.getTime() + 5 * HOUR_MS + 1234),
    finished_at: new Date(day.getTime() + 5 * HOUR_MS + 1300), success: true, error: null, error_class: null,
    output: { kind: 'success', method: 'POST', body: 'backup done\nok', body_truncated: false, exit_status: null },
  }));
  const reads = historyReads({ sql, config });
  /** Every page of the monitor's checks in [from, to) at `page_size`, and the totals each page gave. */
  const pages = async (id: string, from: Date, to: Date, page_size: number) => {
    const items: CheckItem[] = [];
    const totals = new Set<number>();
    for (let page = 1; ; page++) {
      const r = await reads.checks(id, { from: from.toISOString(), to: to.toISOString(), page, page_size }, now.getTime());
      items.push(...r.items);
      totals.add(r.total);
      if (!r.has_more) return { items, totals: [...totals] };
    }
  };
  // A range cut mid-hour at both ends: from inside the packed day, to inside yesterday's raw checks.
  const from = new Date(day.getTime() + 7 * HOUR_MS + 30 * 60_000);
  const to = new Date(day.getTime() + DAY_MS + 2 * HOUR_MS + 20 * 60_000);
  const raw_only = { hours_until: null, days_from: null, days_until: null };
  const snapshot = async () => ({
    // Statistics from the checks themselves (no rollups): 30-minute buckets across the boundary.
    stats: await monitorStats(sql, await monitorSeries(sql, m.monitor_id), from, to, 1800, 'node', raw_only),
    p50: await pages(m.monitor_id, from, to, 50), p7: await pages(m.monitor_id, from, to, 7), all: await pages(m.monitor_id, new Date(day.getTime() - DAY_MS), now, 100),
    hb: await pages(hb.monitor_id, new Date(day.getTime() - DAY_MS), now, 100),
  });
  const count = async (table: string) => (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM ${sql(table)}`)[0]!.n;
  const pack = () => packHistory(sql, { now, rounds_days: 1, raw_days: 90, rolled_until: new Date(now.getTime() - HOUR_MS), budget_ms: 60_000, series_per_batch: 2 });
  return { sql, m, hb, hb_at, rounds, snapshot, count, pack, pages };
}

t.test('the checks list answers the same pages before and after packing, across the boundary', async (t) => {
  const { sql, m, hb, hb_at, rounds, snapshot, count, pack } = await setup(t);
  const before = await snapshot();
  const in_day = rounds.filter((at) => Date.parse(at) < day.getTime() + DAY_MS).length;
  t.equal(before.all.items.length, rounds.length * 2, 'every ingested check listed');
  t.same(before.p50.totals, [before.p50.items.length], 'one total on every page');

  const did = await pack();
  // The day, and the empty one before it (its partition made ahead by ensurePartitions).
  t.match(did, { days: 2, checks: in_day * 2 + 1, done: true });
  t.notOk((await listPartitions(sql, 'checks')).some((p) => p.from.getTime() === day.getTime()), 'the day\'s raw partition dropped');
  t.equal(await count('check_blocks'), 24 * 2 + 1, 'one block per series and hour');
  const after = await snapshot();
  t.same(after, before, 'same items, order, totals and paging, raw and packed');
  t.strictSame(JSON.stringify(after), JSON.stringify(before), 'to the byte');
  t.ok(after.p7.items.some((c) => Date.parse(c.scheduled_at) < day.getTime() + DAY_MS) && after.p7.items.some((c) => Date.parse(c.scheduled_at) >= day.getTime() + DAY_MS));

  t.match(await pack(), { days: 0, checks: 0 }, 'packing again finds nothing to do');
  t.same(await snapshot(), before);

  // A result for a packed round is refused, as for any round past the rounds retention.
  const store = createCheckStore({ config });
  const again = await store.store(sql, m.node_ids[0]!, [httpResult(m.monitor_id, rounds[3]!)]);
  t.match(again.rejected, [{ reason: /older than the rounds retention/ }]);
  t.same(await snapshot(), before, 'nothing stored twice');

  // A heartbeat body leaving the newest kept is cleared where it is packed too.
  t.equal(before.hb.items[0]!.output!.body, 'backup done\nok');
  t.equal(await sql.begin((tx) => clearPackedBodies(tx, hb.monitor_id, [hb_at], now)), 1);
  const cleared = await snapshot();
  t.same(cleared.hb.items, [{ ...before.hb.items[0]!, output: { ...before.hb.items[0]!.output, body: null } }]);
  t.same(cleared.all, before.all, 'the other checks as they were');
});

t.test('a crash between the blocks and the drop loses nothing and duplicates nothing', async (t) => {
  const { sql, snapshot, count, pack } = await setup(t);
  const before = await snapshot();
  // Blocks of some series written (committed), the raw partition still there: readers read raw.
  const series = (await sql<{ id: number }[]>`SELECT id FROM check_series ORDER BY id`).map((r) => r.id);
  await packSeriesDay(sql, series.slice(0, 2), day);
  t.ok(await count('check_blocks') > 0);
  t.same(await snapshot(), before, 'blocks not switched in are not read');
  // The job resumes: the same blocks again (kept), the rest, then the switch.
  t.match(await pack(), { days: 2, done: true });
  t.same(await snapshot(), before);
});

t.test('the pack job packs under its claim; retention deletes packed history', async (t) => {
  const { sql, m, hb, snapshot, count, pages } = await setup(t);
  await sql`UPDATE check_jobs SET state = ${sql.json({ rolled_until: new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS - HOUR_MS).toISOString() })} WHERE name = 'rollup'`;
  await makeJobsDue(sql);
  await sql`UPDATE check_jobs SET due_at = now() + interval '1 hour' WHERE name <> 'pack'`;
  const [a, b] = await Promise.all([runDueJobs({ sql, log, config }, now), runDueJobs({ sql, log, config }, now)]);
  const ran = [a, b].filter((r) => r.pack !== undefined);
  t.equal(ran.length, 1, 'one instance packed');
  t.match(ran[0]!.pack, { packed_days: 2, packed_checks: 24 * 12 * 2 + 1 });
  const packed = await snapshot();

  // An account keeping 1 day: its packed hours go, series by series, yesterday's raw checks stay.
  const pruned = await pruneAccountChecks(sql, { default_days: 1, accounts: new Map(), max_days: 90 }, { now, rounds_days: 1, budget_ms: 60_000 });
  t.match(pruned, { blocks: 24 * 2 + 1, done: true });
  t.equal(await count('check_blocks'), 0);
  const left = await pages(m.monitor_id, new Date(day.getTime() - DAY_MS), now, 100);
  t.same(left.items, packed.all.items.filter((c) => Date.parse(c.scheduled_at) >= day.getTime() + DAY_MS), 'only the raw checks are left');
  t.same((await pages(hb.monitor_id, new Date(day.getTime() - DAY_MS), now, 100)).items, []);
});

t.test('the raw retention drops packed days whole', async (t) => {
  const { sql, snapshot, count, pack } = await setup(t);
  await pack();
  t.ok(await count('check_blocks') > 0);
  const did = await dropExpiredPartitions(sql, { raw_days: 1, rounds_days: 1, rollup_days: 730 }, now);
  t.ok(did.dropped.some((p) => p.startsWith('check_blocks_p')), did.dropped.join(', '));
  t.equal(await count('check_blocks'), 0);
  const after = await snapshot();
  t.ok(after.all.items.every((c) => Date.parse(c.scheduled_at) >= day.getTime() + DAY_MS));
});

t.test('a day pruned by account retention while it is being packed ends pruned', async (t) => {
  const { sql, m, count, pack, pages } = await setup(t);
  await sql`UPDATE check_jobs SET state = ${sql.json({ rolled_until: new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS - HOUR_MS).toISOString() })} WHERE name = 'rollup'`;
  // Blocks of the day written (not switched in yet), then the retention of an account keeping 1 day.
  const series = (await sql<{ id: number }[]>`SELECT id FROM check_series ORDER BY id`).map((r) => r.id);
  await packSeriesDay(sql, series, day);
  const pruned = await pruneAccountChecks(sql, { default_days: 1, accounts: new Map(), max_days: 90 }, { now, rounds_days: 1, budget_ms: 60_000 });
  t.match(pruned, { rows: 24 * 12 * 2 + 1, blocks: 24 * 2 + 1, done: true }, 'its raw checks and its blocks deleted');
  t.match(await pack(), { done: true });
  t.equal(await count('check_blocks'), 0, 'nothing of the day comes back');
  const left = await pages(m.monitor_id, new Date(day.getTime() - DAY_MS), now, 100);
  t.ok(left.items.length > 0 && left.items.every((c) => Date.parse(c.scheduled_at) >= day.getTime() + DAY_MS), 'only yesterday\'s raw checks');
});
