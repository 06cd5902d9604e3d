import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { loadConfig } from '../config/index.js';
import { startEmbeddedPostgres } from '../db/embedded.js';
import { migrate } from '../db/migrate.js';
import { connect } from '../db/sql.js';
import { createLogger } from '../log.js';
import { createResultSink } from '../probes/sink.js';
import { decidePass } from './decide.js';
import { createCheckStore } from './ingest.js';
import { makeJobsDue } from './jobs.db.js';
import { runDueJobs } from './jobs.js';
import { listPartitions } from './partitions.db.js';
import { ensurePartitions } from './partitions.js';
import { monitorSeries } from './history.db.js';
import { monitorStats } from './stats.js';
import { expireRounds, httpResult, roundAt, seedMonitor } from './test-support.js';
import { monitorUptime } from './uptime.js';
import { packHistory } from './pack.js';
import { checksPage } from './pack-reads.js';
import { toCheckItem } from './stream.js';

t.test('embedded PGlite (one connection): partitioned check history, verdicts, jobs and reads', async (t) => {
  const data_dir = await mkdtemp(join(tmpdir(), 'vantage-embedded-checks-'));
  t.teardown(() => rm(data_dir, { recursive: true, force: true }));
  const pg = await startEmbeddedPostgres(data_dir);
  t.teardown(() => pg.close());
  const sql = connect(pg.url, 1); // as main.ts does in embedded mode
  t.teardown(() => sql.end({ timeout: 5 }));
  await migrate(sql);
  const created = await ensurePartitions(sql);
  t.ok(created.length >= 10, 'daily and monthly partitions created');
  t.ok((await listPartitions(sql, 'checks')).length >= 5, 'declarative partitioning works here');

  const log = createLogger('silent');
  const config = loadConfig({}, { data_dir, log_level: 'silent', checks_round_grace_ms: 3_600_000 });
  const sink = createResultSink({ sql, log, config, checks: createCheckStore({ config }) });
  const m = await seedMonitor(sql, { nodes: 2 });
  // Rounds are placed from one instant: a round boundary passing while the test runs moves nothing.
  const now = Date.now();
  const at = (k: number) => roundAt(m, k, now);
  for (const node of m.node_ids) {
    const out = await sink.ingest(node, Array.from({ length: 5 }, (_, k) => httpResult(m.monitor_id, at(k - 5), { success: !(node === m.node_ids[0] && k === 2) })));
    t.equal(out.stored.length, 5);
  }
  const again = await sink.ingest(m.node_ids[0]!, [httpResult(m.monitor_id, at(-5))]);
  t.equal(again.stored.length, 1, 'a repeated round is acked');
  const parts = await sql`SELECT DISTINCT tableoid::regclass::text AS p FROM check_batches`;
  t.notOk(parts.some((r) => r.p === 'check_batches_default'), 'batches in their dated partitions');
  await expireRounds(sql, m.monitor_id);
  t.match(await decidePass({ sql }), { monitors: 1, rounds: 5 });
  t.equal((await sql`SELECT state FROM monitors WHERE id = ${m.monitor_id}`)[0]!.state, 'up');
  await makeJobsDue(sql);
  const did = await runDueJobs({ sql, log, config });
  t.ok('rollup' in did && 'retention' in did && 'partitions' in did, 'every job ran');
  const u = await monitorUptime(sql, m.monitor_id, new Date(Date.now() - 86_400_000), new Date(), '24h', new Date(0));
  t.match(u, { monitored_s: 300, degraded_s: 60, downtime_s: 0 });
  const s = await monitorStats(sql, await monitorSeries(sql, m.monitor_id), new Date(Date.now() - 3_600_000), new Date(), 300, 'node', { hours_until: null, days_from: null, days_until: null });
  t.match(s.overall, { checks: 10, failures: 1 });

  // Packing (pack.ts) on the one connection: today's checks, as two days from now, read back the same.
  const series = (await monitorSeries(sql, m.monitor_id)).map((r) => r.id);
  const page = async () => {
    const r = await checksPage(sql, series, new Date(Date.now() - 3_600_000), new Date(Date.now() + 60_000), 7, 2, new Date(Date.now() + 9e12));
    return { total: r.total, items: r.rows.map((row) => toCheckItem(m.monitor_id, null, row)) };
  };
  const before = await page();
  const later = new Date(Date.now() + 2 * 86_400_000 + 3_600_000);
  const packed = await packHistory(sql, { now: later, rounds_days: 1, raw_days: 90, rolled_until: later, budget_ms: 60_000 });
  t.match(packed, { checks: 10, done: true });
  t.same(await page(), before, 'the same page from the blocks');
  t.equal(before.total, 10);
});
