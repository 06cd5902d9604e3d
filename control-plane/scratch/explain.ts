import { testDatabase } from '../src/test-support/db.js';
import { ensurePartitions } from '../src/checks/partitions.js';
import { createSeries, storeNodeChecks, type NodeCheckInsert } from '../src/checks/ingest.db.js';
import { pingResult, seedNodes, seedUser } from '../src/checks/test-support.js';
import { bulkMonitors } from '../../test/bench/lib/checks-data.js';
import { countReports } from '../src/checks/decide.db.js';

const teardowns: Array<() => unknown> = [];
const { sql } = await testDatabase({ teardown: (fn) => void teardowns.unshift(fn) });
await ensurePartitions(sql);
const user = await seedUser(sql);
const nodes = await seedNodes(sql, 3);
const MON = Number(process.argv[2] ?? 1000), ROUNDS = Number(process.argv[3] ?? 60);
const ms = await bulkMonitors(sql, user, nodes, MON);
const series = new Map<string, Map<string, number>>();
for (const n of nodes) series.set(n, await createSeries(sql, n, ms));
const start = Math.floor(Date.now() / 60000) * 60000 - ROUNDS * 60000;
const hour_ms = Math.floor(Date.now() / 3600000) * 3600000;
for (let k = 0; k < ROUNDS; k++) {
  const all: Promise<unknown>[] = [];
  for (const n of nodes) for (let i = 0; i < ms.length; i += 100) {
    const rows: NodeCheckInsert[] = ms.slice(i, i + 100).map((m) => ({
      series_id: series.get(n)!.get(m)!, scheduled_ms: start + k * 60000, start_offset_ms: 1, duration_ms: 3000, response_ms: 12, success: true,
      error_class: null, error: null, assertions: null, output: pingResult(m, new Date(start).toISOString()).output, monitor_id: m,
      deadline_offset_ms: 90000, interval_s: 60, expected: 3,
    }));
    all.push(storeNodeChecks(sql, rows, hour_ms));
  }
  await Promise.all(all);
}
await sql`VACUUM ANALYZE check_batches`;
const rounds = ms.slice(0, 200).map((m) => ({ monitor_id: m, at: new Date(start + (ROUNDS - 1) * 60000) }));
for (let r = 0; r < 3; r++) { const t0 = performance.now(); await countReports(sql, rounds); console.log('countReports 200 rounds ms', (performance.now() - t0).toFixed(1)); }
const s1 = series.get(nodes[0]!)!.get(ms[0]!)!;
const at = new Date(start + (ROUNDS - 1) * 60000);
if (process.argv[4]) { const plan = await sql.unsafe(`EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM check_entries(ARRAY[${s1}], '${at.toISOString()}', '${new Date(at.getTime() + 1).toISOString()}')`);
console.log(plan.map((r) => r['QUERY PLAN']).join('\n'));
const at2 = new Date(start + 10 * 60000);
const plan2 = await sql.unsafe(`EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM check_entries(ARRAY[${s1}], '${at2.toISOString()}', '${new Date(at2.getTime() + 1).toISOString()}')`);
console.log(plan2.map((r) => r['QUERY PLAN']).join('\n')); }
const cr = await sql.unsafe(`EXPLAIN (ANALYZE, BUFFERS) SELECT s.monitor_id, c.scheduled_at, count(*)::int AS reported
    FROM unnest($1::text[], $2::timestamptz[]) AS u(m, at)
    JOIN check_series s ON s.monitor_id = u.m
    CROSS JOIN LATERAL check_entries(ARRAY[s.id], u.at, u.at + interval '1 millisecond') c
    GROUP BY s.monitor_id, c.scheduled_at`, [rounds.map((r) => r.monitor_id), rounds.map((r) => r.at.toISOString())]);
console.log(cr.map((r) => r['QUERY PLAN']).join('\n'));
for (const fn of teardowns) await fn();
await sql.end();
