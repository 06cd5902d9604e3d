import t from 'tap';
import { newId } from '@vantage/shared-protocol';
import { loadConfig } from '../config/index.js';
import { createLogger } from '../log.js';
import { createResultSink } from '../probes/sink.js';
import { testDatabase } from '../test-support/db.js';
import { monitorSeries } from './history.db.js';
import { historyReads } from './history-reads.js';
import { createCheckStore } from './ingest.js';
import { rollupMarks, rollUpHour } from './jobs.db.js';
import { ensurePartitions } from './partitions.js';
import { monitorStats } from './stats.js';
import { httpResult, roundAt, seedMonitor } from './test-support.js';

const HOUR_MS = 3_600_000;
const log = createLogger('silent');
const config = loadConfig({}, { database_url: 'postgres://unused', log_level: 'silent', checks_round_grace_ms: 3_600_000, plan: 'free' });

// A monitor on two nodes with checks in the three hours before the current one (node 0 fails one).
const { sql } = await testDatabase(t);
await ensurePartitions(sql);
const sink = createResultSink({ sql, log, config, checks: createCheckStore({ config }) });
const m = await seedMonitor(sql, { nodes: 2 });
const first_hour = Math.floor(Date.now() / HOUR_MS) * HOUR_MS - 3 * HOUR_MS;
for (const [n, node] of m.node_ids.entries()) {
  const results = Array.from({ length: 9 }, (_, i) => httpResult(m.monitor_id, roundAt(m, 1, first_hour + i * 20 * 60_000 - 1), { response_ms: 30 + 7 * i + n, success: !(n === 0 && i === 4) }));
  await sink.ingest(node, results);
}
const from = new Date(first_hour);
const to = new Date(first_hour + 3 * HOUR_MS);
const reads = historyReads({ sql, config });
let statements = 0;
(sql.options as unknown as { debug: unknown }).debug = () => { statements++; };
const counted = async <X>(fn: () => Promise<X>): Promise<[X, number]> => {
  statements = 0;
  const x = await fn();
  return [x, statements];
};
// What monitorStats answers with the marks as they stand (the reads of the route before they were one statement).
const expected = async (group_by?: 'node' | 'country') =>
  monitorStats(sql, await monitorSeries(sql, m.monitor_id), from, to, 3600, group_by, await rollupMarks(sql));

t.test('statistics and owner in one statement, the same answer as monitorStats', async (t) => {
  const [cold, n_cold] = await counted(() => reads.statsAndOwner(m.monitor_id, from, to, 3600, 'node'));
  t.equal(n_cold, 2, 'the first read also reads the rollup marks');
  t.same(cold.stats, await expected('node'));
  t.match(cold.stats, { source: 'raw', overall: { checks: 18, failures: 1 } });
  t.same(cold.owner, { user_id: m.user_id, team_id: null });
  const [warm, n_warm] = await counted(() => reads.statsAndOwner(m.monitor_id, from, to, 3600, 'country'));
  t.equal(n_warm, 1, 'later reads: one statement');
  t.same(warm.stats, await expected('country'));
  const none = await reads.statsAndOwner(newId('monitor'), from, to, 3600, undefined);
  t.equal(none.owner, null, 'no such monitor: no owner');
  t.same(none.stats.overall, { checks: 0, failures: 0, failure_rate: null, p50_ms: null, p95_ms: null, p99_ms: null, min_ms: null, avg_ms: null, max_ms: null });
});

t.test('when the rollup job has moved its marks since the last read, the read follows them', async (t) => {
  await reads.statsAndOwner(m.monitor_id, from, to, 3600, undefined);
  for (let h = first_hour; h < first_hour + 3 * HOUR_MS; h += HOUR_MS) await rollUpHour(sql, new Date(h));
  await sql`UPDATE check_jobs SET state = state || ${sql.json({ rolled_until: new Date(first_hour + 3 * HOUR_MS).toISOString() })} WHERE name = 'rollup'`;
  const [moved, n] = await counted(() => reads.statsAndOwner(m.monitor_id, from, to, 3600, 'node'));
  t.equal(n, 2, 'read again with the marks the first statement found');
  t.match(moved.stats, { source: 'rollup', overall: { checks: 18, failures: 1 } }, 'from the hourly rollups, as the marks now say');
  t.same(moved.stats, await expected('node'));
  const [again, n_again] = await counted(() => reads.statsAndOwner(m.monitor_id, from, to, 3600, 'node'));
  t.equal(n_again, 1);
  t.same(again.stats, moved.stats);
});
