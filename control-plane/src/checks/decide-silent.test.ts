import t from 'tap';
import type { OutboundEvent } from '../contracts.js';
import { loadConfig } from '../config/index.js';
import { createLogger } from '../log.js';
import { createResultSink } from '../probes/sink.js';
import { testDatabase } from '../test-support/db.js';
import { decidePass } from './decide.js';
import { dueRounds, sweepSilentRounds } from './decide-silent.js';
import { createCheckHooks } from './hooks.js';
import { createCheckStore } from './ingest.js';
import { replayStates } from './replay.js';
import { httpResult, roundAt, seedMonitor } from './test-support.js';
import { monitorUptime } from './uptime.js';
import { webhookStateEvents } from './webhook-events.js';

interface Teardown { teardown(fn: () => unknown): void }

/** Grace of 1 s: with the seeded monitors' 1 s run budget, a round's deadline is 2 s after its start. */
const GRACE_MS = 1000;

async function setup(t: Teardown) {
  const { sql } = await testDatabase(t);
  const config = loadConfig({}, { database_url: 'postgres://unused', log_level: 'silent', checks_round_grace_ms: GRACE_MS });
  const sink = createResultSink({ sql, log: createLogger('silent'), config, checks: createCheckStore({ config }) });
  const hooks = createCheckHooks();
  const events: OutboundEvent[] = [];
  hooks.onStatePass(webhookStateEvents({ publish: async (e) => { events.push(e); return 1; }, publishMany: async (es) => { events.push(...es); return es.length; } }));
  const decideAll = async () => { while ((await decidePass({ sql, hooks })).monitors > 0); };
  const monitor = async (id: string) => (await sql`SELECT state, state_changed_at, last_check_at FROM monitors WHERE id = ${id}`)[0]!;
  const changes = async (id: string) => sql`
    SELECT from_state, to_state, changed_at, late, reason FROM monitor_state_changes
    WHERE monitor_id = ${id} AND superseded_at IS NULL ORDER BY changed_at, id`;
  return { sql, sink, events, decideAll, monitor, changes };
}

t.test('replay: one silent round keeps the state, the second in a row moves it to no_data, the first round with a report leaves it', async (t) => {
  const r = (at_ms: number, verdict: 'up' | 'down' | 'no_data', maintenance = false) => ({ at_ms, verdict, maintenance });
  t.same(replayStates('up', [r(1, 'no_data'), r(2, 'up')], []).transitions, [], 'a single silent round: still up');
  const two = replayStates('up', [r(1, 'no_data'), r(2, 'no_data'), r(3, 'no_data'), r(4, 'down')], []);
  t.same(two.transitions.map((x) => [x.at_ms, x.from, x.to]), [[2, 'up', 'no_data'], [4, 'no_data', 'down']]);
  t.same(two.counted, [true, true, true, true], 'silent rounds are counted (as no-data time)');
  t.equal(replayStates('up', [r(1, 'no_data')], [], false, 1).final, 'no_data', 'the round before the replayed ones was silent too');
  t.equal(replayStates('up', [r(1, 'no_data'), r(2, 'no_data', true), r(3, 'no_data')], []).final, 'maintenance', 'a window round breaks the run');
  t.equal(replayStates('pending', [r(1, 'no_data'), r(2, 'no_data')], []).final, 'no_data', 'a monitor no node ever reported');
});

t.test('due rounds: deadlines since the last sweep, not the first interval of a schedule span', async (t) => {
  const m = { id: 'm_01jd3k6w9z4q8r2t7v5x1y3b6c', type: 'http' as const, config: { timeout_ms: 1000 }, interval_s: 60, placed: 2 };
  const now = Date.parse('2026-11-22T10:00:00Z');
  const starts = (span_from: number, after: number) => dueRounds({ ...m, span_from: new Date(span_from), now: new Date(now) }, after, GRACE_MS).map((r) => r.scheduled_at.getTime());
  const old = starts(now - 86_400_000, now - 600_000);
  t.equal(old.length, 10, 'ten minutes of 60 s rounds');
  t.ok(old.every((at) => at + 2000 > now - 600_000 && at + 2000 <= now), 'each deadline (start + 1 s run + 1 s grace) in (after, now]');
  const fresh = starts(now - 150_000, now - 600_000);
  t.ok(fresh.every((at) => at >= now - 90_000), `created 150 s ago: rounds starting in its first interval are not swept (${fresh.length} due)`);
  t.ok(fresh.length >= 1 && fresh.length <= 2);
  t.same(dueRounds({ ...m, span_from: new Date(now - 86_400_000), now: new Date(now) }, now - 600_000, GRACE_MS)[0], {
    monitor_id: m.id, scheduled_at: new Date(old[0]!), deadline_at: new Date(old[0]! + 2000), interval_s: 60, expected: 2,
  });
});

t.test('a monitor whose only node is removed goes to no_data after two silent rounds, with a reason and a webhook event; uptime counts the time apart', async (t) => {
  const { sql, sink, events, decideAll, monitor, changes } = await setup(t);
  // Created 4.5 minutes ago: its rounds before that are not swept (ingest accepts them: clock tolerance).
  const m = await seedMonitor(sql, { nodes: 1, interval_s: 60, age_ms: 270_000 });
  const node = m.node_ids[0]!;
  // Rounds are placed from one instant: a round boundary passing while the test runs moves nothing.
  const now = Date.now();
  const at = (k: number) => roundAt(m, k, now);
  const rounds = [-5, -4, -3].map((k) => at(k));
  await sink.ingest(node, rounds.map((at) => httpResult(m.monitor_id, at)));
  await decideAll();
  t.match(await monitor(m.monitor_id), { state: 'up', last_check_at: new Date(rounds[2]!) });

  // The node is removed: its placement ends (as node removal does) and nothing reports any more.
  await sql`UPDATE monitor_placements SET ended_at = now() WHERE monitor_id = ${m.monitor_id}`;
  await sql`UPDATE nodes SET status = 'offline' WHERE id = ${node}`;
  const before = await sweepSilentRounds(sql, null, GRACE_MS);
  t.ok(before.written >= 2, `rounds -2 and -1 (and the current one once past its deadline) written empty: ${before.written}`);
  t.equal((await sweepSilentRounds(sql, null, GRACE_MS)).written, 0, 'swept again: nothing new');
  await decideAll();

  const r2 = at(-2);
  const r1 = at(-1);
  const rows = await sql`SELECT scheduled_at, verdict, reported, expected FROM check_rounds WHERE monitor_id = ${m.monitor_id} AND scheduled_at IN (${r2}, ${r1}) ORDER BY 1`;
  t.match(rows, [{ verdict: 'no_data', reported: 0 }, { verdict: 'no_data', reported: 0 }]);
  t.match(await monitor(m.monitor_id), { state: 'no_data', state_changed_at: new Date(r1), last_check_at: new Date(rounds[2]!) }, 'the last check stays the last round with a report');
  t.match((await changes(m.monitor_id)).at(-1), { from_state: 'up', to_state: 'no_data', changed_at: new Date(r1), late: false, reason: 'no node reported for 2 rounds in a row (0 placed)' });
  t.match(events.map((e) => e.type), ['monitor.no_data'], 'webhook event monitor.no_data');
  t.match(events[0]!.data, { status: 'no_data', previous_status: 'up' });

  const u = await monitorUptime(sql, m.monitor_id, new Date(rounds[0]!), new Date(Date.parse(r1) + 60_000), null, new Date(Date.now() - 86_400_000));
  t.match(u, { up_s: 180, downtime_s: 0, no_data_s: 120, monitored_s: 180, uptime: 1, rounds: { up: 3, down: 0, no_data: 2 } }, 'no-data time is neither up nor down');
});

t.test('the first round with a report leaves no_data; a result arriving for a round swept empty fills it (judged again, late)', async (t) => {
  const { sql, sink, decideAll, monitor, changes } = await setup(t);
  // Created 5.5 minutes ago: rounds from 4.5 minutes ago on are swept, so -3 and -2 always are.
  const m = await seedMonitor(sql, { nodes: 1, interval_s: 60, age_ms: 330_000 });
  const node = m.node_ids[0]!;
  await sink.ingest(node, [-5, -4].map((k) => httpResult(m.monitor_id, roundAt(m, k))));
  await sweepSilentRounds(sql, null, GRACE_MS);
  await decideAll();
  t.equal((await monitor(m.monitor_id)).state, 'no_data', 'rounds -3 and later silent');

  // The node was only cut off: its buffered result of round -1 arrives now.
  const r1 = roundAt(m, -1);
  await sink.ingest(node, [httpResult(m.monitor_id, r1, { success: false, error: 'connection refused' })]);
  await decideAll();
  const r0 = roundAt(m, 0);
  const current = (await sql`SELECT verdict FROM check_rounds WHERE monitor_id = ${m.monitor_id} AND scheduled_at = ${r0}`)[0];
  // The current round stays silent if it was swept: one silent round after a report does not move the state.
  t.match(await monitor(m.monitor_id), { state: 'down', state_changed_at: new Date(r1), last_check_at: new Date(r1) }, `left no_data (current round ${current?.verdict ?? 'not swept'})`);
  const c = await changes(m.monitor_id);
  t.match(c.map((x) => [x.from_state, x.to_state]), [['pending', 'up'], ['up', 'no_data'], ['no_data', 'down']]);
  t.match(c.at(-1), { late: true, reason: /^1 of 1 reporting node failed/ });
});
