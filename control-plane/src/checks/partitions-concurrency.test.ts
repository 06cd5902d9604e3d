import pino from 'pino';
import t from 'tap';
import { loadConfig } from '../config/index.js';
import { createResultSink } from '../probes/sink.js';
import { testDatabase } from '../test-support/db.js';
import { decidePass } from './decide.js';
import { createCheckStore } from './ingest.js';
import { runDueJobs } from './jobs.js';
import { listPartitions } from './partitions.db.js';
import { ensurePartitions } from './partitions.js';
import { httpResult, roundAt, seedMonitor, seedNodes, seedUser, storedChecks, type SeededMonitor } from './test-support.js';

const DAY_MS = 86_400_000;
const config = loadConfig({}, { database_url: 'postgres://unused', log_level: 'silent', checks_round_grace_ms: 3_600_000, plan: 'free' });
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10).replaceAll('-', '');

// The partition job's ATTACH locks a table's DEFAULT partition exclusively. Holding those of
// `checks` while it went on to `check_rounds`, it deadlocked with the verdict job's claim (which
// locks the partitions of check_rounds, then those of checks) and with ingest: Postgres then
// cancelled one of them, "deadlock detected".
t.test('the partition job creates partitions while results are ingested and rounds judged: no deadlock, nothing lost', async (t) => {
  const { sql } = await testDatabase(t);
  await ensurePartitions(sql);
  const user_id = await seedUser(sql);
  const node_ids = await seedNodes(sql, 3);
  const monitors: SeededMonitor[] = [];
  for (let i = 0; i < 30; i++) monitors.push(await seedMonitor(sql, { user_id, nodes: node_ids }));
  const sink = createResultSink({ sql, log: pino({ level: 'silent' }), config, checks: createCheckStore({ config }) });
  const errors: string[] = [];
  const log = pino({ level: 'error' }, { write: (line: string) => void errors.push(String(JSON.parse(line).err?.message ?? line)) });
  // Only the partition job runs here.
  await sql`UPDATE check_jobs SET due_at = now() + interval '1 day' WHERE name <> 'partitions'`;

  let stop = false;
  // More rounds than the nodes can send while the job runs, all within the monitors' 7 days of
  // life: the loops must still be sending when the job's last run ends. 2,000 rounds (180,000
  // results) were once all sent before a slow run ended (25 s at about 7,000 results/s); 9,000
  // rounds are 810,000 results.
  const rounds = 9000;
  const sent = new Map<string, number>(node_ids.map((n) => [n, 0]));
  const nodeLoop = async (node_id: string) => {
    for (let k = -rounds; k < 0 && !stop; k++) {
      const batch = monitors.map((m) => httpResult(m.monitor_id, roundAt(m, k), { success: k % 7 !== 0 }));
      try {
        const out = await sink.ingest(node_id, batch);
        if (out.stored.length !== batch.length) errors.push(`ingest refused ${JSON.stringify(out.rejected.slice(0, 2))}`);
        sent.set(node_id, sent.get(node_id)! + out.stored.length);
      } catch (err) {
        errors.push(`ingest: ${(err as Error).message}`);
      }
    }
  };
  const verdictLoop = async () => {
    while (!stop) {
      try {
        await decidePass({ sql }, 200);
      } catch (err) {
        errors.push(`verdict: ${(err as Error).message}`);
      }
    }
  };
  const flows = [...node_ids.map(nodeLoop), verdictLoop()];

  // Every run the job is due with its clock moved 4 days on: it creates the days it lacks then.
  const base = Date.now();
  const total = () => [...sent.values()].reduce((a, b) => a + b, 0);
  while (total() === 0 && errors.length === 0) await new Promise((r) => setTimeout(r, 20));
  const before = total();
  // A run that waited 5 s for a lock gives up and is due again at once (partitions.ts
  // LOCK_TIMEOUT_MS): on a loaded machine that is the job working as meant, so the run is repeated
  // (at most 10 times) and counted; a deadlock or any other error still fails the test.
  const LOCK_TIMEOUT = 'canceling statement due to lock timeout';
  let lock_timeouts = 0;
  const made: string[][] = [];
  for (let i = 1; i <= 6; i++) {
    for (let attempt = 0; attempt < 10; attempt++) {
      await sql`UPDATE check_jobs SET due_at = now() WHERE name = 'partitions'`;
      await runDueJobs({ sql, log, config }, new Date(base + i * 4 * DAY_MS));
      const timeouts = errors.filter((e) => e === LOCK_TIMEOUT).length;
      if (timeouts === 0) break;
      lock_timeouts += timeouts;
      errors.splice(0, errors.length, ...errors.filter((e) => e !== LOCK_TIMEOUT));
    }
    made.push([...await listPartitions(sql, 'checks'), ...await listPartitions(sql, 'check_rounds')].map((p) => p.name));
  }
  if (lock_timeouts > 0) t.comment(`${lock_timeouts} partition run(s) gave up on a lock after 5 s and ran again`);
  const during = total() - before;
  stop = true;
  await Promise.all(flows);

  t.same(errors, [], 'no statement of the job, ingest or the verdict job failed');
  for (const [i, names] of made.entries()) {
    t.ok(names.includes(`checks_p${day(base + (i + 1) * 4 * DAY_MS + 3 * DAY_MS)}`) && names.includes(`check_rounds_p${day(base + (i + 1) * 4 * DAY_MS + 3 * DAY_MS)}`),
      `run ${i + 1} created its days of checks and rounds`);
  }
  const have = (await listPartitions(sql, 'checks')).map((p) => p.name);
  t.ok(have.includes(`checks_p${day(base + 27 * DAY_MS)}`), 'the last run\'s partitions are attached');
  const stored = (await storedChecks(sql)).length;
  t.equal(stored, total(), 'every result acked as stored is stored');
  t.comment(`results stored: ${before} before the first run, ${during} while the job ran, ${total()} in all`);
  t.ok(during > 0, 'results were stored while the job ran');
  t.ok(total() < rounds * monitors.length * node_ids.length, 'the nodes were still sending when the job\'s last run ended');
});
