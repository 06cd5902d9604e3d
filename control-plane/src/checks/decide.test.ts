import t from 'tap';
import type { OutboundEvent } from '../contracts.js';
import { loadConfig } from '../config/index.js';
import { createLogger } from '../log.js';
import { createResultSink } from '../probes/sink.js';
import { testDatabase } from '../test-support/db.js';
import { decidePass } from './decide.js';
import { createCheckHooks, type StatePass } from './hooks.js';
import { createCheckStore } from './ingest.js';
import { expireRounds, httpResult, roundAt, seedMonitor, seedNodes } from './test-support.js';
import { webhookStateEvents } from './webhook-events.js';

interface Teardown { teardown(fn: () => unknown): void }

/**
 * `grace_ms`: added to the 1 s run budget of seeded monitors for a round's deadline. The default
 * (an hour) keeps every recent round waiting until a test expires it (expireRounds); 0 makes
 * every round that started over a second ago late.
 */
async function setup(t: Teardown, grace_ms = 3_600_000) {
  const { sql } = await testDatabase(t);
  const config = loadConfig({}, { database_url: 'postgres://unused', log_level: 'silent', checks_round_grace_ms: grace_ms });
  const sink = createResultSink({ sql, log: createLogger('silent'), config, checks: createCheckStore({ config }) });
  const hooks = createCheckHooks();
  const events: OutboundEvent[] = [];
  const passes: StatePass[] = [];
  hooks.onStatePass(webhookStateEvents({ publish: async (e) => { events.push(e); return 1; }, publishMany: async (es) => { events.push(...es); return es.length; } }));
  hooks.onStatePass((ps) => { passes.push(...ps); });
  const decide = () => decidePass({ sql, hooks });
  const monitor = async (id: string) => (await sql`SELECT state, state_changed_at, last_check_at FROM monitors WHERE id = ${id}`)[0]!;
  const changes = async (id: string) => sql`
    SELECT from_state, to_state, changed_at, late, reason, failing_nodes, superseded_at FROM monitor_state_changes
    WHERE monitor_id = ${id} AND superseded_at IS NULL ORDER BY changed_at, id`;
  const verdict = async (id: string, at: string) => (await sql`SELECT verdict, dirty, late, quorum FROM check_rounds WHERE monitor_id = ${id} AND scheduled_at = ${at}`)[0];
  return { sql, sink, decide, events, passes, monitor, changes, verdict };
}

t.test('rounds are judged once all nodes reported or their deadline passed; a silent node is unknown, not failed', async (t) => {
  const { sql, sink, decide, events, monitor, changes, verdict } = await setup(t);
  const m = await seedMonitor(sql, { nodes: 3 });
  const [a, b, c] = m.node_ids as [string, string, string];
  const r0 = roundAt(m, -3);
  const r1 = roundAt(m, -2);
  const r2 = roundAt(m, -1);

  await sink.ingest(a, [httpResult(m.monitor_id, r0)]);
  await sink.ingest(b, [httpResult(m.monitor_id, r0)]);
  t.match(await decide(), { rounds: 0 }, 'two of three reported, deadline ahead: waiting');
  await sink.ingest(c, [httpResult(m.monitor_id, r0)]);
  t.match(await decide(), { monitors: 1, rounds: 1, changes: 1 }, 'complete: judged at once');
  t.match(await verdict(m.monitor_id, r0), { verdict: 'up', dirty: false, quorum: 2 });
  t.match(await monitor(m.monitor_id), { state: 'up', last_check_at: new Date(r0) });

  await sink.ingest(a, [httpResult(m.monitor_id, r1, { success: false, error: 'connection refused' })]);
  await sink.ingest(b, [httpResult(m.monitor_id, r1, { success: false, error: 'timeout' })]);
  await sink.ingest(c, [httpResult(m.monitor_id, r1)]);
  await decide();
  t.match(await monitor(m.monitor_id), { state: 'down', state_changed_at: new Date(r1) });
  const down = (await changes(m.monitor_id)).at(-1)!;
  t.match(down, { from_state: 'up', to_state: 'down', late: false, reason: /^2 of 3 reporting nodes failed \(quorum 2\): (connection refused; timeout|timeout; connection refused)$/ });
  t.same(down.failing_nodes.map((n: { node_id: string }) => n.node_id).sort(), [a, b].sort(), 'which nodes failed');
  t.match(down.failing_nodes[0], { country: /^(DE|US)$/, error: /refused|timeout/ });

  // Node c goes silent: a and b report fine; the round waits for c until its deadline, then is up.
  await sink.ingest(a, [httpResult(m.monitor_id, r2)]);
  await sink.ingest(b, [httpResult(m.monitor_id, r2)]);
  t.match(await decide(), { rounds: 0 }, 'waiting for node c');
  await expireRounds(sql, m.monitor_id);
  await decide();
  t.match(await verdict(m.monitor_id, r2), { verdict: 'up' }, 'the silent node does not count as failed');
  t.equal((await monitor(m.monitor_id)).state, 'up');
  t.same(events.map((e) => [e.type, (e.data as { previous_status: string }).previous_status, (e.data as { late?: boolean }).late]), [
    ['monitor.down', 'up', undefined], ['monitor.up', 'down', undefined],
  ], 'webhook events: down, then up again (the first up after pending is not news)');
});

t.test('verdicts are taken in order: a complete round waits for an earlier one still waiting, and its monitor is not claimed meanwhile', async (t) => {
  const { sql, sink, decide, verdict, changes } = await setup(t);
  const m = await seedMonitor(sql, { nodes: 2 });
  const [a, b] = m.node_ids as [string, string];
  const r1 = roundAt(m, -2);
  const r2 = roundAt(m, -1);
  await sink.ingest(a, [httpResult(m.monitor_id, r1, { success: false }), httpResult(m.monitor_id, r2)]);
  await sink.ingest(b, [httpResult(m.monitor_id, r2)]);
  t.match(await decide(), { monitors: 0, rounds: 0 }, 'round 2 is complete but round 1 waits for node b: nothing claimed');
  t.match(await verdict(m.monitor_id, r2), { verdict: null, dirty: true });
  await expireRounds(sql, m.monitor_id);
  t.match(await decide(), { monitors: 1, rounds: 2 });
  t.same((await changes(m.monitor_id)).map((c) => [c.to_state, c.changed_at.toISOString()]), [['degraded', r1], ['up', r2]], 'in order');
});

t.test('node loss: one silent, one failing of three is degraded, never down', async (t) => {
  const { sql, sink, decide, verdict } = await setup(t);
  const m = await seedMonitor(sql, { nodes: 3 });
  const r = roundAt(m, -1);
  await sink.ingest(m.node_ids[0]!, [httpResult(m.monitor_id, r, { success: false })]);
  await sink.ingest(m.node_ids[1]!, [httpResult(m.monitor_id, r)]);
  await expireRounds(sql, m.monitor_id);
  await decide();
  t.match(await verdict(m.monitor_id, r), { verdict: 'degraded', quorum: 2 });
});

t.test('down_quorum from the monitor config', async (t) => {
  const { sql, sink, decide, verdict, monitor } = await setup(t);
  const m = await seedMonitor(sql, { nodes: 3, config: { down_quorum: 1 } });
  const r = roundAt(m, -1);
  for (const [i, node] of m.node_ids.entries()) await sink.ingest(node, [httpResult(m.monitor_id, r, { success: i !== 0 })]);
  await decide();
  t.match(await verdict(m.monitor_id, r), { verdict: 'down', quorum: 1 });
  t.equal((await monitor(m.monitor_id)).state, 'down');
});

t.test('late results after an outage fill their rounds, replay the state and are marked late; webhooks send only the net change', async (t) => {
  const { sql, sink, decide, events, passes, monitor, changes, verdict } = await setup(t, 0);
  const m = await seedMonitor(sql, { nodes: 2 });
  const [a, b] = m.node_ids as [string, string];
  // Rounds 0-5 are past (over a second: past their deadline); 6-8 are ahead (their results are timely).
  // Rounds are placed from one instant: a round boundary passing while the test runs moves nothing.
  const now = Date.now();
  const k = (i: number) => roundAt(m, i <= 5 ? i - 6 : i - 5, now);
  const both = async (i: number, ok: boolean) => {
    await sink.ingest(a, [httpResult(m.monitor_id, k(i), { success: ok })]);
    await sink.ingest(b, [httpResult(m.monitor_id, k(i), { success: ok })]);
  };
  // Rounds 0 and 6 reach the control plane; 1-5 were buffered on the nodes while it was away.
  await both(0, true);
  await both(6, true);
  await decide();
  t.equal((await monitor(m.monitor_id)).state, 'up');
  const before = events.length;

  for (const i of [1, 2, 3, 4, 5]) await both(i, i !== 2 && i !== 3);
  await decide();
  t.match(await verdict(m.monitor_id, k(2)), { verdict: 'down', late: true });
  const log = (await changes(m.monitor_id)).map((c) => [c.from_state, c.to_state, c.changed_at.toISOString(), c.late]);
  t.same(log.slice(1), [['up', 'down', k(2), true], ['down', 'up', k(4), true]], 'the spell the outage hid is in the history, marked late');
  t.match(await monitor(m.monitor_id), { state: 'up' }, 'state now: unchanged');
  t.equal(events.length, before, 'no stale storm: the state ends where it was, nothing sent');
  t.match(passes.at(-1), { previous_state: 'up', state: 'up', changes: [{ to_state: 'down', late: true }, { to_state: 'up', late: true }] }, 'subscribers see the late changes');

  // Round 7: node a's success is judged alone (b is silent past the deadline); then b's failure,
  // buffered meanwhile, arrives: the round and the current state turn degraded: one event, late.
  await sink.ingest(a, [httpResult(m.monitor_id, k(7))]);
  await expireRounds(sql, m.monitor_id);
  await decide();
  t.match(await verdict(m.monitor_id, k(7)), { verdict: 'up', late: false });
  await sink.ingest(b, [httpResult(m.monitor_id, k(7), { success: false })]);
  await decide();
  t.match(await verdict(m.monitor_id, k(7)), { verdict: 'degraded', late: true }, 'the late result filled its round');
  t.match(await monitor(m.monitor_id), { state: 'degraded' });
  const sent = () => events.slice(before).map((e) => [e.type, (e.data as { previous_status: string }).previous_status, (e.data as { late?: boolean }).late]);
  t.same(sent(), [['monitor.degraded', 'up', true]], 'one event for the net change, marked late');
  // Round 8 (timely): both fail.
  await both(8, false);
  await decide();
  t.match(await monitor(m.monitor_id), { state: 'down' });
  t.same(sent().at(-1), ['monitor.down', 'degraded', undefined], 'a timely change is sent as it happens');
});

t.test('a pause holds the state whatever late rounds say; resume waits for the next verdict', async (t) => {
  const { sql, sink, decide, monitor, changes } = await setup(t);
  const m = await seedMonitor(sql, { nodes: 1 });
  await sink.ingest(m.node_ids[0]!, [httpResult(m.monitor_id, roundAt(m, -5))]);
  await decide();
  await sql`UPDATE monitors SET state = 'paused', status = 'paused', state_changed_at = now() WHERE id = ${m.monitor_id}`;
  // A round that starts while paused (the node had not heard of the pause yet).
  await sink.ingest(m.node_ids[0]!, [httpResult(m.monitor_id, roundAt(m, 1), { success: false })]);
  await expireRounds(sql, m.monitor_id);
  await decide();
  t.equal((await monitor(m.monitor_id)).state, 'paused');
  t.same((await changes(m.monitor_id)).map((c) => c.to_state), ['up', 'paused'], 'the pause is logged (by the trigger); no verdict change inside it');
  await sql`UPDATE monitors SET state = 'pending', status = 'active', state_changed_at = now() WHERE id = ${m.monitor_id}`;
  await sink.ingest(m.node_ids[0]!, [httpResult(m.monitor_id, roundAt(m, 2), { success: false })]);
  await expireRounds(sql, m.monitor_id);
  await decide();
  t.equal((await monitor(m.monitor_id)).state, 'down');
  t.same((await changes(m.monitor_id)).map((c) => c.to_state), ['up', 'paused', 'pending', 'down']);
});

t.test('two monitors judged in one pass; a deleted monitor\'s rounds are forgotten', async (t) => {
  const { sql, sink, decide } = await setup(t);
  const nodes = await seedNodes(sql, 1);
  const m1 = await seedMonitor(sql, { nodes });
  const m2 = await seedMonitor(sql, { nodes });
  await sink.ingest(nodes[0]!, [httpResult(m1.monitor_id, roundAt(m1, -1)), httpResult(m2.monitor_id, roundAt(m2, -1))]);
  t.match(await decide(), { monitors: 2, rounds: 2, changes: 2 });
  await sink.ingest(nodes[0]!, [httpResult(m1.monitor_id, roundAt(m1, 0))]);
  await sql`DELETE FROM monitors WHERE id = ${m1.monitor_id}`;
  await expireRounds(sql, m1.monitor_id);
  t.match(await decide(), { monitors: 0 }, 'nothing to judge for a deleted monitor');
});
