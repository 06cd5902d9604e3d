/**
 * Benchmark (not a test): raw-check retention per account (control-plane/src/checks/account-retention.ts)
 * on the real Postgres at TEST_DATABASE_URL (a scratch database, dropped afterwards).
 *
 *   npx tsx test/bench/account-retention-bench.ts [--monitors 200] [--days 60] [--per-day 24] [--pro-share 0.25]
 *
 * The deployment is on the free plan (30 days); `pro-share` of the monitors belong to a pro
 * account (90 days). Each monitor has one series with `per-day` checks a day over `days` days, in
 * daily partitions, rolled up. Prints JSON: checks written, checks the pass deleted, its wall time
 * and deleted checks per second, the no-op second pass's time, and the rows sequential scans of
 * the partitions read meanwhile (0: every batch went through the primary key).
 */
import { parseArgs } from 'node:util';
import { newId } from '@vantage/shared-protocol';
import { accountRetention } from '../../control-plane/src/billing/check-retention.js';
import { loadConfig } from '../../control-plane/src/config/index.js';
import { pruneAccountChecks, rawDaysInUse } from '../../control-plane/src/checks/account-retention.js';
import { ensurePartitions } from '../../control-plane/src/checks/partitions.js';
import { seedNodes, seedUser } from '../../control-plane/src/checks/test-support.js';
import { testDatabase } from '../../control-plane/src/test-support/db.js';
import { bulkMonitors } from './lib/checks-data.js';

const { values } = parseArgs({ options: {
  monitors: { type: 'string', default: '200' }, days: { type: 'string', default: '60' }, 'per-day': { type: 'string', default: '24' },
  'pro-share': { type: 'string', default: '0.25' },
} });
const MONITORS = Number(values.monitors);
const DAYS = Number(values.days);
const PER_DAY = Number(values['per-day']);
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

const teardowns: Array<() => unknown> = [];
const t = { teardown: (fn: () => unknown) => void teardowns.unshift(fn) };
try {
  const { sql } = await testDatabase(t);
  const config = loadConfig({}, { database_url: 'postgres://unused', log_level: 'silent', plan: 'free' });
  const now = new Date();
  for (let d = 0; d <= DAYS; d += 4) await ensurePartitions(sql, new Date(now.getTime() - d * DAY_MS));
  const free = await seedUser(sql);
  const pro = await seedUser(sql);
  await sql`INSERT INTO billing_subscriptions (id, user_id, plan, status, provider, current_period_end)
            VALUES (${newId('billing_subscription')}, ${pro}, 'pro', 'active', 'manual', now() + interval '20 days')`;
  const nodes = await seedNodes(sql, 3);
  const n_pro = Math.round(MONITORS * Number(values['pro-share']));
  const ids = [...await bulkMonitors(sql, free, nodes, MONITORS - n_pro), ...await bulkMonitors(sql, pro, nodes, n_pro)];
  await sql`INSERT INTO check_series (monitor_id, node_id) SELECT m, ${nodes[0]!} FROM unnest(${ids}::text[]) AS m`;
  const step_ms = Math.floor(DAY_MS / PER_DAY);
  const start = now.getTime() - DAYS * DAY_MS;
  await sql`
    INSERT INTO checks (scheduled_at, series_id, start_offset_ms, duration_ms, response_ms, success)
    SELECT to_timestamp((${start}::bigint + k * ${step_ms}::bigint) / 1000.0), s.id, 2, 80, 80, true
    FROM check_series s, generate_series(0, ${DAYS * PER_DAY - 1}) AS k`;
  await sql`UPDATE check_jobs SET state = ${sql.json({ rolled_until: new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS).toISOString() })} WHERE name = 'rollup'`;
  await sql`VACUUM ANALYZE checks`;
  const written = (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM checks`)[0]!.n;

  const days = await rawDaysInUse(accountRetention({ sql, config }));
  // Rows read by sequential scans of the dated partitions during the pass: 0 when every DELETE
  // reads them through their primary key.
  const seqRead = async () => Number((await sql<{ n: string }[]>`
    SELECT coalesce(sum(seq_tup_read), 0) AS n FROM pg_stat_user_tables WHERE relname LIKE 'checks_p%'`)[0]!.n);
  const settle = () => new Promise((r) => setTimeout(r, 11_000)); // idle backends flush their statistics within 10 s
  await settle();
  const seq0 = await seqRead();
  const t0 = performance.now();
  const first = await pruneAccountChecks(sql, days, { now, rounds_days: 8, budget_ms: 600_000 });
  const first_s = (performance.now() - t0) / 1000;
  const t1 = performance.now();
  const second = await pruneAccountChecks(sql, days, { now, rounds_days: 8, budget_ms: 600_000 });
  const second_ms = performance.now() - t1;
  await settle();
  const seq_rows_read = (await seqRead()) - seq0;
  console.log(JSON.stringify({
    checks_written: written, series: ids.length, first_pass: { deleted: first.rows, series: first.series, wall_s: Math.round(first_s * 100) / 100, deleted_per_s: Math.round(first.rows / first_s) },
    second_pass: { deleted: second.rows, wall_ms: Math.round(second_ms) }, rows_read_by_seq_scans: seq_rows_read,
  }, null, 2));
} finally {
  for (const fn of teardowns) await fn();
}
