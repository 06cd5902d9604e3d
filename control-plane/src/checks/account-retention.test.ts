import t from 'tap';
import { newId } from '@vantage/shared-protocol';
import { runArtifactRetention } from '../artifacts/retention.js';
import { accountRetention } from '../billing/check-retention.js';
import { loadConfig } from '../config/index.js';
import type { SqlExecutor } from '../contracts.js';
import { createLogger } from '../log.js';
import { testDatabase } from '../test-support/db.js';
import { makeJobsDue, rollUpHour } from './jobs.db.js';
import { runDueJobs } from './jobs.js';
import { ensurePartitions } from './partitions.js';
import { storeNodeChecks } from './ingest.db.js';
import { seedMonitor, seedNodes, seedUser, storedChecks } from './test-support.js';

/*
 * Raw checks kept per account plan (docs/api/monitors.md "Checks", docs/api/billing.md "Plans and
 * quotas") on a real Postgres, through the retention job: the deployment is on the free plan (30
 * days), one account subscribes to pro (90 days), a team's monitors follow its owner's plan. Checks
 * 20, 45 and 100 days old: partitions past 90 days go whole, the free account's 45-day checks are
 * deleted row by row; a second pass deletes nothing; two instances running the job at once do the
 * work once; the hourly rollups of every deleted check are still there; browser-check artifacts
 * stay as long as their checks.
 */

const DAY_MS = 86_400_000;
/**
 * Every job due but packing (pack.ts would pack these old days; this file checks raw checks row by
 * row, pack.test.ts the packed ones).
 */
async function jobsDue(sql: SqlExecutor): Promise<void> {
  await makeJobsDue(sql);
  await sql`UPDATE check_jobs SET due_at = now() + interval '1 hour' WHERE name = 'pack'`;
}
const HOUR_MS = 3_600_000;
const log = createLogger('silent');
const config = loadConfig({}, { database_url: 'postgres://unused', log_level: 'silent', plan: 'free' });

/**
 * A raw check of `series_id` at `at`: a row of `checks` (only the columns that matter here), or,
 * given its monitor, a node check stored in a batch row as ingest stores it.
 */
async function insertCheck(sql: SqlExecutor, series_id: number, at: Date, monitor_id?: string): Promise<void> {
  if (monitor_id === undefined) {
    await sql`INSERT INTO checks (scheduled_at, series_id, start_offset_ms, duration_ms, response_ms, success)
              VALUES (${at}, ${series_id}, 2, 80, 80, true)`;
    return;
  }
  const [series] = await sql<{ node_id: string }[]>`SELECT node_id FROM check_series WHERE id = ${series_id}`;
  await storeNodeChecks(sql, [{
    series_id, scheduled_ms: at.getTime(), start_offset_ms: 2, duration_ms: 80, response_ms: 80, success: true, error_class: null, error: null,
    assertions: null, output: null, monitor_id, node_id: series!.node_id, deadline_offset_ms: 60_000, interval_s: 60, expected: 1,
  }], at.getTime() + HOUR_MS);
}

t.test('free keeps 30 days, pro 90, a team its owner\'s; rollups intact; a second pass deletes nothing', async (t) => {
  const { sql } = await testDatabase(t);
  const now = new Date();
  // Checks mid-hour, the same hour of day for each age, in dated partitions (DEFAULT is tested by partitions.test.ts).
  const ages = [20, 45, 100];
  const hourOf = (days: number) => new Date(Math.floor((now.getTime() - days * DAY_MS) / HOUR_MS) * HOUR_MS);
  for (const days of ages) await ensurePartitions(sql, hourOf(days));
  await ensurePartitions(sql, now);

  const free = await seedUser(sql);
  const pro = await seedUser(sql);
  await sql`INSERT INTO billing_subscriptions (id, user_id, plan, status, provider, current_period_end)
            VALUES (${newId('billing_subscription')}, ${pro}, 'pro', 'active', 'manual', now() + interval '20 days')`;
  // A team owned by the pro account, with the free account as a member: its monitor follows the owner.
  const team = newId('team');
  await sql`INSERT INTO teams (id, name, created_by) VALUES (${team}, 'ops', ${free})`;
  await sql`INSERT INTO team_members (team_id, user_id, role) VALUES (${team}, ${pro}, 'owner'), (${team}, ${free}, 'member')`;

  const [node] = await seedNodes(sql, 1);
  const monitors = {
    free: await seedMonitor(sql, { user_id: free, nodes: [node!] }),
    pro: await seedMonitor(sql, { user_id: pro, nodes: [node!] }),
    team: await seedMonitor(sql, { user_id: free, nodes: [node!] }),
  };
  await sql`UPDATE monitors SET team_id = ${team} WHERE id = ${monitors.team.monitor_id}`;
  const series: Record<string, number> = {};
  for (const [name, m] of Object.entries(monitors)) {
    const [row] = await sql<{ id: number }[]>`INSERT INTO check_series (monitor_id, node_id) VALUES (${m.monitor_id}, ${node!}) RETURNING id`;
    series[name] = row!.id;
    for (const days of ages) {
      // The free monitor's checks as node batches (hidden by the job, a batch holding several
      // series), the others' as rows (deleted).
      const batch = name === 'free' ? m.monitor_id : undefined;
      await insertCheck(sql, row!.id, new Date(hourOf(days).getTime() + 60_000), batch);
      await insertCheck(sql, row!.id, new Date(hourOf(days).getTime() + 120_000), batch);
    }
  }
  // Rolled up (as the rollup job would have done long ago), up to this hour.
  for (const days of ages) await rollUpHour(sql, hourOf(days));
  await sql`UPDATE check_jobs SET state = ${sql.json({ rolled_until: new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS).toISOString() })} WHERE name = 'rollup'`;
  const rollups = async () => sql<{ series_id: number; hour: Date; checks: number }[]>`SELECT series_id, hour, checks FROM check_rollups ORDER BY series_id, hour`;
  const before = await rollups();
  t.equal(before.length, 9, 'one hourly rollup per series and age');

  // A browser artifact named by each monitor's first 45-day check.
  const sha = 'a'.repeat(64);
  await sql`INSERT INTO artifact_files (sha256, size_bytes) VALUES (${sha}, 10)`;
  for (const m of Object.values(monitors)) {
    await sql`INSERT INTO check_artifacts (monitor_id, node_id, scheduled_at, kind, sha256) VALUES (${m.monitor_id}, ${node!}, ${new Date(hourOf(45).getTime() + 60_000)}, 'har', ${sha})`;
  }
  const ageDays = async (name: string) => (await storedChecks(sql, sql`s.id = ${series[name]!}`)).reverse()
    .map((c) => Math.round((now.getTime() - c.scheduled_at.getTime()) / DAY_MS));
  const deps = { sql, log, config, retention: accountRetention({ sql, config }) };

  // Two instances at once: one claims the job, the other skips it.
  await jobsDue(sql);
  const [a, b] = await Promise.all([runDueJobs(deps, now), runDueJobs(deps, now)]);
  const ran = [a, b].filter((r) => r.retention !== undefined);
  t.equal(ran.length, 1, 'the retention job ran on one instance only');
  const did = ran[0]!.retention as { dropped: string[]; raw_days: number; pruned_checks: number };
  t.equal(did.raw_days, 90, 'partitions are kept as long as the longest plan in use (pro)');
  t.ok(did.dropped.some((p) => p.startsWith('checks_p')), `the 100-day partition dropped (${did.dropped.join(', ')})`);
  t.equal(did.pruned_checks, 2, 'the free account\'s two 45-day checks deleted (hidden in their batches)');

  t.same(await ageDays('free'), [20, 20], 'free (30 days): only the 20-day checks');
  t.same(await ageDays('pro'), [20, 20, 45, 45], 'pro (90 days): the 20- and 45-day checks');
  t.same(await ageDays('team'), [20, 20, 45, 45], 'the team\'s monitor follows its owner (pro), not its creator (free)');
  t.same(await rollups(), before, 'hourly rollups untouched');

  // Artifacts follow their checks: the free monitor's reference goes with its deleted check, the
  // pro and team monitors' stay (the job's own cutoff is the longest retention in use, 90 days).
  await sql`UPDATE artifact_jobs SET due_at = now()`;
  t.ok(await runArtifactRetention({ sql, log, config: { ...config, data_dir: t.testdir() }, retention: deps.retention }, now));
  const refs = await sql<{ monitor_id: string }[]>`SELECT monitor_id FROM check_artifacts`;
  t.same(refs.map((r) => r.monitor_id).sort(), [monitors.pro.monitor_id, monitors.team.monitor_id].sort(), 'artifact references of kept checks stay');

  await jobsDue(sql);
  const again = (await runDueJobs(deps, now)).retention as { pruned_checks: number; dropped: string[] };
  t.equal(again.pruned_checks, 0, 'a second pass deletes nothing');
  t.equal(again.dropped.filter((p) => p.startsWith('checks_p')).length, 0);
  const [unmarked] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM check_series WHERE pruned_before IS NULL AND id = ${series.free!}`;
  t.equal(unmarked!.n, 0, 'the free series remembers how far it was pruned');

  // The pro subscription ends: its account falls back to the free plan, and its 45-day checks go
  // (the team's with them: its only owner is on free now). Partitions follow the longest plan left.
  await sql`UPDATE billing_subscriptions SET status = 'expired' WHERE user_id = ${pro}`;
  await jobsDue(sql);
  const downgraded = (await runDueJobs(deps, now)).retention as { pruned_checks: number; raw_days: number };
  t.equal(downgraded.raw_days, 30);
  t.same(await ageDays('pro'), [20, 20], 'after the downgrade: 30 days');
  t.same(await ageDays('team'), [20, 20]);
  t.equal((await rollups()).length, 9, 'rollups still whole');
});

t.test('checks of hours not rolled up yet are kept', async (t) => {
  const { sql } = await testDatabase(t);
  const now = new Date();
  const at = new Date(now.getTime() - 45 * DAY_MS);
  await ensurePartitions(sql, at);
  const m = await seedMonitor(sql, { nodes: 1 });
  const [row] = await sql<{ id: number }[]>`INSERT INTO check_series (monitor_id, node_id) VALUES (${m.monitor_id}, ${m.node_ids[0]!}) RETURNING id`;
  await insertCheck(sql, row!.id, at);
  const pro = await seedUser(sql);
  await sql`INSERT INTO billing_subscriptions (id, user_id, plan, status, provider, current_period_end)
            VALUES (${newId('billing_subscription')}, ${pro}, 'pro', 'active', 'manual', now() + interval '20 days')`;
  // The rollup job has not run yet (no watermark): nothing is deleted.
  const deps = { sql, log, config, retention: accountRetention({ sql, config }) };
  await jobsDue(sql);
  await sql`UPDATE check_jobs SET due_at = now() + interval '1 hour' WHERE name <> 'retention'`;
  const did = (await runDueJobs(deps, now)).retention as { pruned_checks: number };
  t.equal(did.pruned_checks, 0);
  const [left] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM checks`;
  t.equal(left!.n, 1, 'the 45-day check of a free account waits for its hour\'s rollup');
});
