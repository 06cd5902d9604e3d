import t from 'tap';
import { roundPhaseMs, type MonitorResultEnvelope } from '@vantage/shared-protocol';
import { loadConfig } from '../config/index.js';
import { enrollNode, makeToken, waitFor } from '../hub/test-harness.js';
import { createLogger } from '../log.js';
import { pruneRoundHistory } from '../monitors/round-history.db.js';
import { createResultSink } from '../probes/sink.js';
import { testApp } from '../test-support/app.js';
import { testDatabase } from '../test-support/db.js';
import type { SqlExecutor } from '../contracts.js';
import { decidePass } from './decide.js';
import { CHECK_REJECT, createCheckStore } from './ingest.js';
import { ROUND_CLOCK_TOLERANCE_MS, ROUND_REFUSAL, roundOf, type RoundHistory } from './ingest-rounds.js';
import { expireRounds, httpResult, roundAt, seedMonitor, seedNodes, storedChecks } from './test-support.js';

interface Teardown { teardown(fn: () => unknown): void }

const MIN = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
/** The placement grace of the default config, ms: how long a node may keep an old schedule. */
const LAG_MS = loadConfig({}, { database_url: 'postgres://unused' }).placement_grace_ms;

async function setup(t: Teardown) {
  const { sql } = await testDatabase(t);
  const config = loadConfig({}, { database_url: 'postgres://unused', log_level: 'silent', checks_round_grace_ms: 120_000 });
  const sink = createResultSink({ sql, log: createLogger('silent'), config, checks: createCheckStore({ config }) });
  return { sql, sink };
}

/** The rounds of `monitor_id` stored: start → its interval and whether it came late. */
async function rounds(sql: SqlExecutor, monitor_id: string): Promise<Map<string, { interval_s: number; late: boolean }>> {
  const rows = await sql<{ at: Date; interval_s: number; late: boolean }[]>`
    SELECT scheduled_at AS at, interval_s, late FROM check_rounds WHERE monitor_id = ${monitor_id} ORDER BY scheduled_at`;
  return new Map(rows.map((r) => [r.at.toISOString(), { interval_s: r.interval_s, late: r.late }]));
}

const failed = (monitor_id: string, at: string | number) => httpResult(monitor_id, typeof at === 'number' ? new Date(at).toISOString() : at, { success: false, error: 'forged' });

t.test('forged rounds are refused with a reason and change nothing; genuine late rounds are stored', async (t) => {
  const { sql, sink } = await setup(t);
  // Another account's monitor, created 2 days ago on node g; node f placed on it a day ago.
  const m = await seedMonitor(sql, { nodes: 1, age_ms: 2 * DAY });
  const g = m.node_ids[0]!;
  const [f, stranger] = await seedNodes(sql, 2) as [string, string];
  await sql`INSERT INTO monitor_placements (monitor_id, node_id, revision, placed_at) VALUES (${m.monitor_id}, ${f}, 1, now() - interval '1 day')`;
  const t0 = Date.now();
  const at = (k: number) => roundAt(m, k, t0); // round k relative to the one running at t0

  const forged: Array<[MonitorResultEnvelope, string]> = [
    [failed(m.monitor_id, Date.parse(at(-3)) + 17_000), ROUND_REFUSAL.not_a_round],
    [failed(m.monitor_id, at(-3 * 24 * 60)), ROUND_REFUSAL.before_created],
    [failed(m.monitor_id, at(-36 * 60)), ROUND_REFUSAL.not_placed_then],
    [failed(m.monitor_id, at(23 * 60)), CHECK_REJECT.in_future],
    [failed(m.monitor_id, at(7)), CHECK_REJECT.in_future],
  ];
  // And instants at random over the last 7 days, as the attack sent them (never a round start;
  // none within the clock tolerance of the creation or of f's placement).
  const phase = roundPhaseMs(m.monitor_id, m.interval_s);
  while (forged.length < 45) {
    const at = Math.floor(t0 - Math.random() * 7 * DAY);
    if ((at - phase) % (m.interval_s * 1000) === 0 || Math.abs(at - (t0 - 2 * DAY)) < 10 * MIN || Math.abs(at - (t0 - DAY)) < 10 * MIN) continue;
    forged.push([failed(m.monitor_id, at), at < t0 - 2 * DAY ? ROUND_REFUSAL.before_created : at < t0 - DAY ? ROUND_REFUSAL.not_placed_then : ROUND_REFUSAL.not_a_round]);
  }
  const genuine = [httpResult(m.monitor_id, at(-10 * 60)), httpResult(m.monitor_id, at(-1))];
  const out = await sink.ingest(f, [...forged.map(([r]) => r), ...genuine]);
  t.same(out.stored.sort(), genuine.map((r) => r.result_id).sort(), 'f\'s rounds during its placement, 10 hours late and timely: stored');
  t.same(out.rejected, forged.map(([r, reason]) => ({ result_id: r.result_id, reason })), 'every forged one refused, with why');

  const buffered = httpResult(m.monitor_id, at(-30 * 60));
  t.same(await sink.ingest(g, [buffered]), { stored: [buffered.result_id], rejected: [] }, 'g buffered a round 30 hours ago (before f came): stored');
  const misplaced = failed(m.monitor_id, at(-2));
  t.same(await sink.ingest(stranger, [misplaced]), { stored: [], rejected: [{ result_id: misplaced.result_id, reason: CHECK_REJECT.not_assigned }] }, 'a node never placed on it: refused');

  const stored = await rounds(sql, m.monitor_id);
  t.same([...stored.keys()], [at(-30 * 60), at(-10 * 60), at(-1)], 'only the genuine rounds exist');
  t.match(Object.fromEntries(stored), { [at(-30 * 60)]: { late: true }, [at(-10 * 60)]: { late: true } }, 'the buffered ones marked late');
  t.equal((await storedChecks(sql, sql`s.monitor_id = ${m.monitor_id}`)).length, 3);
  await expireRounds(sql, m.monitor_id);
  while ((await decidePass({ sql })).monitors > 0);
  t.equal((await sql`SELECT state FROM monitors WHERE id = ${m.monitor_id}`)[0]!.state, 'up', 'the forged failures did not take it down');
  t.same((await sql`SELECT to_state FROM monitor_state_changes WHERE monitor_id = ${m.monitor_id}`).map((r) => r.to_state), ['up']);
});

t.test('an interval change: the old interval\'s rounds count up to the change (and while nodes hear of it), the new one\'s after', async (t) => {
  const { sql, sink } = await setup(t);
  const m = await seedMonitor(sql, { nodes: 1, age_ms: DAY });
  const node = m.node_ids[0]!;
  await sql`UPDATE monitors SET interval_s = 300, revision = revision + 1 WHERE id = ${m.monitor_id}`;
  const spans = await sql`SELECT interval_s, until_at IS NULL AS open FROM monitor_schedules WHERE monitor_id = ${m.monitor_id} ORDER BY from_at`;
  t.same(spans.map((s) => [s.interval_s, s.open]), [[60, false], [300, true]], 'the change closed the 60 s span and opened a 300 s one');
  // As if the change had been made two hours ago.
  await sql`UPDATE monitor_schedules SET until_at = until_at - interval '2 hours' WHERE monitor_id = ${m.monitor_id} AND until_at IS NOT NULL`;
  await sql`UPDATE monitor_schedules SET from_at = from_at - interval '2 hours' WHERE monitor_id = ${m.monitor_id} AND until_at IS NULL`;

  const t0 = Date.now();
  const m300 = { monitor_id: m.monitor_id, interval_s: 300 };
  const rounds300 = new Set(Array.from({ length: 30 }, (_, k) => roundAt(m300, -k, t0)));
  // A round of the old interval an hour after the change that is no round of the new one.
  const stale = Array.from({ length: 6 }, (_, k) => roundAt(m, -60 - k, t0)).find((at) => !rounds300.has(at))!;
  const old = httpResult(m.monitor_id, roundAt(m, -180, t0));
  const unheard = httpResult(m.monitor_id, roundAt(m, -118, t0));
  const now300 = httpResult(m.monitor_id, roundAt(m300, -12, t0));
  const wrong = failed(m.monitor_id, stale);
  const out = await sink.ingest(node, [old, unheard, now300, wrong]);
  t.same(out.stored, [old.result_id, unheard.result_id, now300.result_id], 'old rounds before the change and just after it, new ones after it');
  t.same(out.rejected, [{ result_id: wrong.result_id, reason: ROUND_REFUSAL.not_a_round }], 'the old interval an hour after the change: no round');
  const stored = await rounds(sql, m.monitor_id);
  t.equal(stored.get(roundAt(m, -180, t0))?.interval_s, 60, 'an old round counts its own interval');
  t.equal(stored.get(roundAt(m300, -12, t0))?.interval_s, 300);
});

t.test('a pause: no rounds while paused, save those the node ran before it heard of it', async (t) => {
  const { sql, sink } = await setup(t);
  const m = await seedMonitor(sql, { nodes: 1, age_ms: DAY });
  const node = m.node_ids[0]!;
  const first = httpResult(m.monitor_id, roundAt(m, -300));
  t.same((await sink.ingest(node, [first])).stored, [first.result_id], 'a round before any pause (the store now holds the schedule of this revision)');
  await sql`UPDATE monitors SET status = 'paused', state = 'paused', revision = revision + 1 WHERE id = ${m.monitor_id}`;
  t.equal((await sql`SELECT count(*)::int AS n FROM monitor_schedules WHERE monitor_id = ${m.monitor_id} AND until_at IS NULL`)[0]!.n, 0, 'paused: no open span');
  await sql`UPDATE monitors SET status = 'active', state = 'pending', revision = revision + 1 WHERE id = ${m.monitor_id}`;
  // Paused three hours ago, resumed one hour ago.
  await sql`UPDATE monitor_schedules SET until_at = now() - interval '3 hours' WHERE monitor_id = ${m.monitor_id} AND until_at IS NOT NULL`;
  await sql`UPDATE monitor_schedules SET from_at = now() - interval '1 hour' WHERE monitor_id = ${m.monitor_id} AND until_at IS NULL`;
  const during = failed(m.monitor_id, roundAt(m, -150));
  const ok = [roundAt(m, -240), roundAt(m, -178), roundAt(m, -30)].map((at) => httpResult(m.monitor_id, at));
  const out = await sink.ingest(node, [during, ...ok]);
  t.same(out.stored, ok.map((r) => r.result_id), 'before the pause, just after it (not heard of yet), after the resume');
  t.same(out.rejected, [{ result_id: during.result_id, reason: ROUND_REFUSAL.no_rounds_then }]);
});

t.test('placed again: what the node buffered in its earlier placement counts, the gap between does not', async (t) => {
  const { sql, sink } = await setup(t);
  const m = await seedMonitor(sql, { nodes: 1, age_ms: 2 * DAY });
  const node = m.node_ids[0]!;
  await sql`UPDATE monitor_placements SET ended_at = now() - interval '1 day' WHERE monitor_id = ${m.monitor_id}`;
  // Placed again two hours ago, the way placement writes it (monitors/placement.db.ts writePlacements).
  await sql`
    INSERT INTO monitor_placements (monitor_id, node_id, revision, placed_at) VALUES (${m.monitor_id}, ${node}, 2, now() - interval '2 hours')
    ON CONFLICT (monitor_id, node_id) DO UPDATE SET ended_at = NULL, placed_at = EXCLUDED.placed_at, revision = EXCLUDED.revision`;
  const spans = await sql`SELECT placed_at, ended_at FROM monitor_placements_past WHERE monitor_id = ${m.monitor_id}`;
  t.equal(spans.length, 1, 'the earlier span kept');
  t.ok(spans[0]!.ended_at.getTime() < Date.now() - 23 * HOUR && spans[0]!.placed_at.getTime() < spans[0]!.ended_at.getTime(), 'as it was: placed two days ago, ended one day ago');
  const earlier = httpResult(m.monitor_id, roundAt(m, -36 * 60));
  const gap = failed(m.monitor_id, roundAt(m, -12 * 60));
  const now = httpResult(m.monitor_id, roundAt(m, -60));
  const out = await sink.ingest(node, [earlier, gap, now]);
  t.same(out.stored, [earlier.result_id, now.result_id]);
  t.same(out.rejected, [{ result_id: gap.result_id, reason: ROUND_REFUSAL.not_placed_then }]);

  t.ok(await pruneRoundHistory(sql, 12 * HOUR) >= 1, 'the span that ended a day ago is forgotten with the placement history');
  const forgotten = failed(m.monitor_id, roundAt(m, -36 * 60 + 1));
  t.match(await sink.ingest(node, [forgotten]), { stored: [], rejected: [{ reason: ROUND_REFUSAL.not_placed_then }] });
});

t.test('roundOf: clock tolerance at the starts, the lag after the ends', async (t) => {
  const id = 'm_01jd3k6w9z4q8r2t7v5x1y3b6c';
  const phase = roundPhaseMs(id, 60);
  const round = (k: number) => phase + k * MIN;
  const k0 = Math.floor((Date.now() - phase) / MIN) - 100;
  const created = round(k0) + 20_000; // round k0 starts 20 s before the monitor existed
  const ended = round(k0 + 10) + 1;
  const m: RoundHistory = { id, created_ms: created, placed_spans: [[created, ended]], schedule_spans: [[created, Infinity, 60]] };
  const lag = Math.max(LAG_MS, ROUND_CLOCK_TOLERANCE_MS);
  const last = k0 + 10 + Math.floor((ended + lag - round(k0 + 10)) / MIN); // the last round starting by ended + lag
  const cases: Array<[string, number, unknown]> = [
    ['20 s before creation (clocks)', round(k0), { interval_s: 60 }],
    ['a round less than the tolerance before creation', round(k0 - Math.floor((ROUND_CLOCK_TOLERANCE_MS - 20_000) / MIN)), { interval_s: 60 }],
    ['the round before that', round(k0 - Math.floor((ROUND_CLOCK_TOLERANCE_MS - 20_000) / MIN) - 1), { reason: ROUND_REFUSAL.before_created }],
    ['1 ms off its round', round(k0 + 3) + 1, { reason: ROUND_REFUSAL.not_a_round }],
    ['the last round within the lag after the placement ended', round(last), { interval_s: 60 }],
    ['the first round past that lag', round(last + 1), { reason: ROUND_REFUSAL.not_placed_then }],
  ];
  for (const [what, at, want] of cases) t.same(roundOf(m, at, lag), want, what);
});

t.test('over the node socket: forged rounds are acked as rejected with their reason, counted on the node, never stored', async (t) => {
  const { sql, url } = await testApp(t, { config: { checks_round_grace_ms: 3_600_000 } });
  const { node, node_id } = await enrollNode(url, await makeToken(sql));
  t.teardown(() => node.close());
  const m = await seedMonitor(sql, { nodes: [node_id], age_ms: DAY });
  const t0 = Date.now();
  const good = httpResult(m.monitor_id, roundAt(m, -1, t0));
  const forged = [failed(m.monitor_id, Date.parse(roundAt(m, -2, t0)) + 1), failed(m.monitor_id, roundAt(m, 23 * 60, t0)), failed(m.monitor_id, roundAt(m, -2 * 24 * 60, t0))];
  node.send({ type: 'result.batch', batch_id: 1, results: [good, ...forged] });
  const error = await node.next('error');
  t.match(error, { code: 'FORBIDDEN', ref: '1' });
  for (const [r, reason] of forged.map((r, i) => [r, [ROUND_REFUSAL.not_a_round, CHECK_REJECT.in_future, ROUND_REFUSAL.before_created][i]!] as const)) {
    t.ok(error.message.includes(`${r.result_id}: ${reason}`), `named with its reason: ${reason}`);
  }
  const ack = await node.next('result.ack');
  t.same([...ack.result_ids].sort(), [good, ...forged].map((r) => r.result_id).sort(), 'all acked: the node drops the refused ones from its outbox');
  await waitFor(async () => (await sql`SELECT results_rejected_total::int AS n FROM nodes WHERE id = ${node_id}`)[0]!.n === forged.length);
  t.pass('counted on the node');
  t.same([...(await rounds(sql, m.monitor_id)).keys()], [roundAt(m, -1, t0)], 'only the genuine round stored');
});
