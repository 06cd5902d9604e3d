import t from 'tap';
import { loadConfig } from '../config/index.js';
import { createLogger } from '../log.js';
import { createResultSink } from '../probes/sink.js';
import { testDatabase } from '../test-support/db.js';
import { createCheckStore } from './ingest.js';
import { startCheckJobs } from './jobs.js';
import { httpResult, roundAt, seedMonitor, seedNodes } from './test-support.js';
import { createVerdictWake } from './verdict-wake.js';

interface Teardown { teardown(fn: () => unknown): void }

/** A test database, a result sink whose check store wakes `wake`, and a count of the wakes. */
async function setup(t: Teardown, grace_ms: number) {
  const { sql } = await testDatabase(t);
  const config = loadConfig({}, { database_url: 'postgres://unused', log_level: 'silent', checks_round_grace_ms: grace_ms, checks_decide_interval_ms: 60_000, checks_jobs_interval_ms: 60_000 });
  const wake = createVerdictWake();
  let wakes = 0;
  const counting = { wake: () => { wakes++; wake.wake(); }, listen: wake.listen };
  const sink = createResultSink({ sql, log: createLogger('silent'), config, checks: createCheckStore({ config, wake: counting }) });
  return { sql, config, sink, wake: counting, wakes: () => wakes };
}

/** Poll `check` every 25 ms until it holds, at most `timeout_ms`. */
async function until(check: () => Promise<boolean>, timeout_ms = 20_000): Promise<boolean> {
  const end = Date.now() + timeout_ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
}

t.test('ingest wakes the verdict job only when a stored batch leaves a round judgeable', async (t) => {
  const { sql, sink, wakes } = await setup(t, 3_600_000);
  const single = await seedMonitor(sql, { nodes: 1 });
  const s0 = roundAt(single, -1);
  await sink.ingest(single.node_ids[0]!, [httpResult(single.monitor_id, s0)]);
  t.equal(wakes(), 1, 'a one-node monitor: its report completes its round: one wake');
  await sink.ingest(single.node_ids[0]!, [httpResult(single.monitor_id, s0)]);
  t.equal(wakes(), 1, 'the same report again stores nothing and wakes nothing');

  const m = await seedMonitor(sql, { nodes: 3 });
  const r0 = roundAt(m, -1);
  const [a, b, c] = m.node_ids as [string, string, string];
  for (const node of [a, b]) await sink.ingest(node, [httpResult(m.monitor_id, r0)]);
  t.equal(wakes(), 1, 'three nodes, deadline an hour ahead: two reports leave the round waiting, no wake');
  await sink.ingest(c, [httpResult(m.monitor_id, r0)]);
  t.equal(wakes(), 2, 'the third report completes the round (its count): one wake, no wait for the poll');
});

t.test('a report after the round deadline wakes the verdict job even when others are missing', async (t) => {
  const { sql, sink, wakes } = await setup(t, 0);
  const m = await seedMonitor(sql, { nodes: 3 });
  await sink.ingest(m.node_ids[0]!, [httpResult(m.monitor_id, roundAt(m, -3))]);
  t.equal(wakes(), 1, 'one of three, deadline passed: judgeable');
});

t.test('a woken verdict job judges a completed round long before its poll', async (t) => {
  const { sql, config, sink, wake } = await setup(t, 3_600_000);
  const jobs = startCheckJobs({ sql, config, log: createLogger('silent'), wake });
  t.teardown(() => jobs.stop());
  const m = await seedMonitor(sql, { nodes: 1 });
  const state = async () => (await sql<Array<{ state: string }>>`SELECT state FROM monitors WHERE id = ${m.monitor_id}`)[0]!.state;
  await sink.ingest(m.node_ids[0]!, [httpResult(m.monitor_id, roundAt(m, -1), { success: false })]);
  t.ok(await until(async () => (await state()) === 'down'), 'down well within the 60 s poll interval');

  // Many wakes at once (several monitors completing together) coalesce: each round judged once.
  const many = await Promise.all(Array.from({ length: 20 }, () => seedMonitor(sql, { nodes: 1 })));
  await Promise.all(many.map((x) => sink.ingest(x.node_ids[0]!, [httpResult(x.monitor_id, roundAt(x, -1), { success: false })])));
  const ids = many.map((x) => x.monitor_id);
  t.ok(await until(async () => (await sql`SELECT 1 FROM monitors WHERE id = ANY(${ids}::text[]) AND state = 'down'`).length === ids.length), 'all 20 judged down');
  const [dup] = await sql<Array<{ n: number }>>`
    SELECT count(*)::int AS n FROM (SELECT monitor_id FROM monitor_state_changes WHERE monitor_id = ANY(${ids}::text[]) AND superseded_at IS NULL
      GROUP BY monitor_id, changed_at, to_state HAVING count(*) > 1) d`;
  t.equal(dup!.n, 0, 'no state change recorded twice');
});

t.test('a woken pass judges a round whose monitor an uncommitted insert references (its key-share lock): no wait for the poll', async (t) => {
  const { sql, config, sink, wake } = await setup(t, 3_600_000);
  const jobs = startCheckJobs({ sql, config, log: createLogger('silent'), wake });
  t.teardown(() => jobs.stop());
  const m = await seedMonitor(sql, { nodes: 1 });
  const [other] = await seedNodes(sql, 1);
  const state = async () => (await sql<Array<{ state: string }>>`SELECT state FROM monitors WHERE id = ${m.monitor_id}`)[0]!.state;
  // A transaction inserting a row that references the monitor (here a node's first check series; the
  // alert engine opening an event for it is another) holds a key-share lock on the monitor row
  // until it ends. The round completes and wakes the verdict job meanwhile.
  let release!: () => void;
  const held = new Promise<void>((r) => { release = r; });
  let inserted!: () => void;
  const locked = new Promise<void>((r) => { inserted = r; });
  const insert = sql.begin(async (tx) => {
    await tx`INSERT INTO check_series (monitor_id, node_id) VALUES (${m.monitor_id}, ${other!})`;
    inserted();
    await held;
  });
  t.teardown(() => { release(); return insert; });
  await locked;
  await sink.ingest(m.node_ids[0]!, [httpResult(m.monitor_id, roundAt(m, -1), { success: false })]);
  // The poll is a minute away: only the woken pass can judge the round within this time.
  t.ok(await until(async () => (await state()) === 'down', 5_000), 'judged down by the woken pass while the insert is still open');
  release();
  await insert;
});
