import t from 'tap';
import { loadConfig } from '../config/index.js';
import type { SqlExecutor } from '../contracts.js';
import { connect } from '../db/sql.js';
import { waitFor } from '../hub/test-harness.js';
import { createLogger } from '../log.js';
import { lockMonitor, pruneEndedPlacements, writePlacements, type PlacementWrites } from '../monitors/placement.db.js';
import { PLACEMENT_HISTORY_MS } from '../monitors/placement-job.js';
import { pruneRoundHistory } from '../monitors/round-history.db.js';
import { createResultSink } from '../probes/sink.js';
import { testDatabase } from '../test-support/db.js';
import { CHECK_REJECT, createCheckStore } from './ingest.js';
import { ROUND_REFUSAL } from './ingest-rounds.js';
import { httpResult, roundAt, seedMonitor, seedNodes, storedChecks } from './test-support.js';

/*
 * Check ingest remembers each (node, monitor)'s placement answer by the monitor's placement
 * version (0100_monitor_placement_version.sql): what it remembers must never decide otherwise than
 * a fresh read would.
 */

const MIN = 60_000;
const DAY = 86_400_000;

async function setup(t: { teardown(fn: () => unknown): void }) {
  const { sql, url } = await testDatabase(t);
  // Retention past the placement history, so a round that old is not refused as too old.
  const config = loadConfig({}, { database_url: 'postgres://unused', log_level: 'silent', checks_retention_days: 30 });
  const sink = createResultSink({ sql, log: createLogger('silent'), config, checks: createCheckStore({ config }) });
  return { sql, url, sink, lag_ms: Math.max(config.placement_grace_ms, 5 * MIN) };
}

/** Placement writes as the placement job makes them: the monitor's row locked, then writePlacements. */
async function place(sql: ReturnType<typeof connect>, monitor_id: string, w: Partial<PlacementWrites>): Promise<void> {
  await sql.begin(async (tx) => {
    await lockMonitor(tx, monitor_id);
    await writePlacements(tx, { end: [], add: [], revise: [], done: [], short: [], retry_ms: 0, ...w });
  });
}

const versionOf = async (sql: SqlExecutor, id: string) =>
  Number((await sql<{ v: string }[]>`SELECT placement_version AS v FROM monitors WHERE id = ${id}`)[0]!.v);

t.test('a node placed anew has its very next result accepted, and a new round expects every node placed now', async (t) => {
  const { sql, sink } = await setup(t);
  const m = await seedMonitor(sql, { nodes: 1, age_ms: DAY });
  const a = m.node_ids[0]!;
  const [b] = await seedNodes(sql, 1) as [string];
  // Each round is taken once: two calls could straddle a round boundary.
  const r3 = roundAt(m, -3);
  t.same((await sink.ingest(a, [httpResult(m.monitor_id, r3)])).rejected, [], 'a: stored');
  const before = await sink.ingest(b, [httpResult(m.monitor_id, r3)]);
  t.same(before.rejected.map((r) => r.reason), [CHECK_REJECT.not_assigned], 'b, not placed yet: refused (and that answer remembered)');

  await place(sql, m.monitor_id, { add: [[m.monitor_id, b, 1]] });
  const next = httpResult(m.monitor_id, roundAt(m, 0));
  t.same(await sink.ingest(b, [next]), { stored: [next.result_id], rejected: [] }, 'b\'s next result, placed now: stored');
  const r1 = roundAt(m, -1);
  const r = httpResult(m.monitor_id, r1);
  t.same((await sink.ingest(a, [r])).stored, [r.result_id]);
  const [round] = await sql<{ expected: number }[]>`SELECT expected FROM check_rounds WHERE monitor_id = ${m.monitor_id} AND scheduled_at = ${r1}`;
  t.equal(round!.expected, 2, 'a new round reported by a expects both nodes: the count read afresh');
});

t.test('a node unplaced: its results for rounds after the placement ended (beyond the lag) are refused', async (t) => {
  const { sql, sink, lag_ms } = await setup(t);
  const m = await seedMonitor(sql, { nodes: 2, age_ms: DAY });
  const a = m.node_ids[0]!;
  const first = httpResult(m.monitor_id, roundAt(m, -30));
  t.same((await sink.ingest(a, [first])).stored, [first.result_id], 'placed: stored');
  // Ended earlier than the lag plus some rounds (backdated: writePlacements ends at now()).
  const ended_s = Math.ceil((lag_ms + 20 * MIN) / 1000);
  await sql`UPDATE monitor_placements SET ended_at = now() - make_interval(secs => ${ended_s}) WHERE monitor_id = ${m.monitor_id} AND node_id = ${a}`;
  const after = httpResult(m.monitor_id, roundAt(m, -5));
  t.same((await sink.ingest(a, [after])).rejected.map((r) => r.reason), [ROUND_REFUSAL.not_placed_then], 'a round after the end: refused');
  const during = httpResult(m.monitor_id, roundAt(m, -Math.ceil(ended_s / 60) - Math.ceil(lag_ms / MIN) - 10));
  t.same((await sink.ingest(a, [during])).stored, [during.result_id], 'a round while it was placed: still stored');

  // Ended the way the placement job ends it: a round after now + the lag cannot be reported yet,
  // so what changes is the placed count of a new round.
  const b = m.node_ids[1]!;
  t.same((await sink.ingest(b, [httpResult(m.monitor_id, roundAt(m, -4))])).rejected, []);
  await place(sql, m.monitor_id, { end: [[m.monitor_id, a]] });
  const r3 = roundAt(m, -3); // once: two calls could straddle a round boundary
  t.same((await sink.ingest(b, [httpResult(m.monitor_id, r3)])).rejected, []);
  const [round] = await sql<{ expected: number }[]>`SELECT expected FROM check_rounds WHERE monitor_id = ${m.monitor_id} AND scheduled_at = ${r3}`;
  t.equal(round!.expected, 1, 'a new round after a\'s placement ended expects b alone');
});

t.test('a remembered span is dropped once it ended more than the placement history ago, as the read drops it', async (t) => {
  const { sql, sink } = await setup(t);
  const m = await seedMonitor(sql, { nodes: 1, age_ms: 9 * DAY });
  const a = m.node_ids[0]!;
  await sql`UPDATE monitor_placements SET ended_at = now() - make_interval(secs => ${PLACEMENT_HISTORY_MS / 1000 - 3}) WHERE monitor_id = ${m.monitor_id}`;
  const [row] = await sql<{ ended: Date }[]>`SELECT ended_at AS ended FROM monitor_placements WHERE monitor_id = ${m.monitor_id}`;
  const ended_ms = row!.ended.getTime();
  const k = -Math.ceil((Date.now() - ended_ms) / MIN) - 10; // a round 10 minutes before the end
  const early = httpResult(m.monitor_id, roundAt(m, k));
  t.same((await sink.ingest(a, [early])).stored, [early.result_id], 'within the history: stored');
  await waitFor(async () => Date.now() > ended_ms + PLACEMENT_HISTORY_MS + 50, 10_000);
  const aged = httpResult(m.monitor_id, roundAt(m, k - 1));
  t.same((await sink.ingest(a, [aged])).rejected.map((r) => r.reason), [CHECK_REJECT.not_assigned], 'aged out of the history: refused');
});

t.test('every write of a placement or a past span moves the version; the revision bookkeeping does not', async (t) => {
  const { sql } = await setup(t);
  const m = await seedMonitor(sql, { nodes: 1, age_ms: DAY });
  const [b] = await seedNodes(sql, 1) as [string];
  const revisionOf = async () => (await sql<{ revision: number }[]>`SELECT revision::int AS revision FROM monitors WHERE id = ${m.monitor_id}`)[0]!.revision;
  const revision = await revisionOf();
  const steps: Array<[string, () => Promise<unknown>, boolean]> = [
    ['placed', () => place(sql, m.monitor_id, { add: [[m.monitor_id, b, 1]] }), true],
    ['revised only', () => place(sql, m.monitor_id, { revise: [[m.monitor_id, 2]] }), false],
    ['ended', () => place(sql, m.monitor_id, { end: [[m.monitor_id, b]] }), true],
    ['placed again (the earlier span kept in _past)', () => place(sql, m.monitor_id, { add: [[m.monitor_id, b, 3]] }), true],
    ['past spans pruned', () => pruneRoundHistory(sql, 0), true],
    ['ended again', () => place(sql, m.monitor_id, { end: [[m.monitor_id, b]] }), true],
    ['ended placements pruned', () => pruneEndedPlacements(sql, 0), true],
    ['nothing pruned', () => pruneEndedPlacements(sql, 0), false],
  ];
  for (const [name, step, moves] of steps) {
    const v0 = await versionOf(sql, m.monitor_id);
    await step();
    const v1 = await versionOf(sql, m.monitor_id);
    t.equal(v1 > v0, moves, `${name}: ${moves ? 'moves' : 'keeps'} the version`);
  }
  t.equal(await revisionOf(), revision, 'the monitor\'s revision is left alone');
});

t.test('pruning an ended placement while the node is placed again: no deadlock, the placement stays', async (t) => {
  const { sql, url } = await setup(t);
  const m = await seedMonitor(sql, { nodes: 1, age_ms: DAY });
  const a = m.node_ids[0]!;
  await sql`UPDATE monitor_placements SET ended_at = now() - interval '8 days', placed_at = now() - interval '9 days' WHERE monitor_id = ${m.monitor_id}`;
  const other = connect(url, 2);
  t.teardown(() => other.end());
  let pruned: Promise<number> | undefined;
  await sql.begin(async (tx) => {
    await lockMonitor(tx, m.monitor_id);
    // The prune starts while the placing transaction holds the monitor, and waits for a lock.
    pruned = pruneEndedPlacements(other, PLACEMENT_HISTORY_MS);
    pruned.catch(() => {}); // awaited below
    await waitFor(async () => (await sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`)[0]!.n > 0);
    await writePlacements(tx, { end: [], add: [[m.monitor_id, a, 2]], revise: [], done: [], short: [], retry_ms: 0 });
  });
  t.equal(await pruned!, 0, 'the prune went on after the commit and found nothing ended to forget');
  const [row] = await sql<{ live: boolean }[]>`SELECT ended_at IS NULL AS live FROM monitor_placements WHERE monitor_id = ${m.monitor_id} AND node_id = ${a}`;
  t.equal(row?.live, true, 'placed again, not pruned');
});

t.test('a view remembered at an older placement version or revision never stores a check: the batch is read and judged again', async (t) => {
  const { sql, sink, lag_ms } = await setup(t);
  const m = await seedMonitor(sql, { nodes: 2, age_ms: DAY });
  const [a, b] = m.node_ids as [string, string];
  // Two batches each: the second read remembers the series the first one made.
  for (const k of [-40, -39, -38]) {
    for (const node of [a, b]) t.same((await sink.ingest(node, [httpResult(m.monitor_id, roundAt(m, k))])).rejected, [], `round ${k}: stored`);
  }
  const ended_s = Math.ceil((lag_ms + 20 * MIN) / 1000);
  await sql`UPDATE monitor_placements SET ended_at = now() - make_interval(secs => ${ended_s}) WHERE monitor_id = ${m.monitor_id} AND node_id = ${a}`;
  const after = httpResult(m.monitor_id, roundAt(m, -5));
  t.same(await sink.ingest(a, [after]), { stored: [], rejected: [{ result_id: after.result_id, reason: ROUND_REFUSAL.not_placed_then }] },
    'a\'s placement ended (its version moved): refused as a fresh read refuses it');
  // The monitor's interval changes (its revision moves): b's next result is judged by what the read brings.
  await sql`UPDATE monitors SET interval_s = 300, revision = revision + 1 WHERE id = ${m.monitor_id}`;
  const off = httpResult(m.monitor_id, roundAt(m, -2));
  const o = await sink.ingest(b, [off]);
  t.equal(o.stored.length + o.rejected.length, 1, 'the result answered once');
  const found = (await storedChecks(sql, sql`s.monitor_id = ${m.monitor_id} AND s.node_id = ${b}`))
    .filter((c) => c.scheduled_at.toISOString() === new Date(off.scheduled_at).toISOString());
  t.equal(found.length, o.stored.length, 'stored only if the read allowed it');
  await sql`DELETE FROM monitors WHERE id = ${m.monitor_id}`;
  const gone = httpResult(m.monitor_id, roundAt(m, -1));
  t.same((await sink.ingest(b, [gone])).rejected.map((r) => r.reason), [CHECK_REJECT.not_assigned], 'the monitor deleted: refused');
});
