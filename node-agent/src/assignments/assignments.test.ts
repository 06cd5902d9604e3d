import t from 'tap';
import { assignmentSchema, newId, roundPhaseMs, type Assignment } from '@vantage/shared-protocol';
import { openStateDb } from '../state/db.js';
import { ClockOffset } from './clock.js';
import { AssignmentScheduler, assignmentPhaseMs, assignmentTimeoutMs } from './scheduler.js';
import { AssignmentStore } from './store.js';

async function eventuallyTrue(check: () => boolean, timeout_ms = 30_000): Promise<void> {
  const until = Date.now() + timeout_ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const assignment = (interval_s = 60, target = '198.18.1.10:443'): Assignment =>
  assignmentSchema.parse({ monitor_id: newId('monitor'), interval_s, check: { type: 'tcp', target, config: {} } });

t.test('store: full sets replace, deltas apply only on the held version, all persisted', async (t) => {
  const dir = t.testdir();
  let db = openStateDb(dir);
  let store = new AssignmentStore(db);
  t.equal(store.version, 0);
  const [a, b, c] = [assignment(), assignment(), assignment()];
  store.replaceAll(5, [a!, b!]);
  t.equal(store.version, 5);
  t.same(store.list().map((x) => x.monitor_id).sort(), [a!.monitor_id, b!.monitor_id].sort());

  t.notOk(store.applyDelta({ from_version: 4, version: 6, upsert: [c!], remove: [] }), 'wrong from_version ignored');
  t.equal(store.version, 5);
  t.equal(store.list().length, 2);

  const b2 = { ...b!, interval_s: 300 };
  t.ok(store.applyDelta({ from_version: 5, version: 6, upsert: [c!, b2], remove: [a!.monitor_id] }));
  db.close();
  db = openStateDb(dir);
  t.teardown(() => db.close());
  store = new AssignmentStore(db);
  t.equal(store.version, 6, 'version survives a restart');
  const held = Object.fromEntries(store.list().map((x) => [x.monitor_id, x]));
  t.same(Object.keys(held).sort(), [b!.monitor_id, c!.monitor_id].sort());
  t.equal(held[b!.monitor_id]!.interval_s, 300);
  store.replaceAll(7, []);
  t.same(store.list(), []);
});

/** A round phase whose next round starts `in_ms` from now on the clock `now`. */
const phaseSoon = (interval_s: number, in_ms: number, now = Date.now()) => (now + in_ms) % (interval_s * 1000);

t.test('scheduler: rounds aligned to the control plane clock on every node; a round runs once; removed ones stop', async (t) => {
  const interval_s = 10;
  const a = { ...assignment(interval_s), phase_ms: phaseSoon(interval_s, 300) };
  const b = { ...assignment(interval_s), phase_ms: phaseSoon(interval_s, 600) };
  // Two nodes whose own clocks differ by 5 s, each corrected by its measured offset.
  const fired: Array<{ node: string; monitor_id: string; scheduled_at: string; at: number }> = [];
  const make = (node: string, skew_ms: number) => {
    const clock = new ClockOffset(() => Date.now() + skew_ms);
    clock.noteRtt(0);
    clock.noteServerTime(Date.now(), Date.now() + skew_ms);
    const s = new AssignmentScheduler({ now: () => clock.serverNow(), fire: (x, scheduled_at) => fired.push({ node, monitor_id: x.monitor_id, scheduled_at, at: Date.now() }) });
    t.teardown(() => s.stop());
    return s;
  };
  const n1 = make('n1', 0);
  const n2 = make('n2', 5000);
  n1.sync([a, b]);
  n2.sync([a, b]);
  await eventuallyTrue(() => fired.length >= 4);
  for (const m of [a, b]) {
    const runs = fired.filter((f) => f.monitor_id === m.monitor_id);
    t.equal(runs.length, 2, 'each node ran it');
    t.equal(runs[0]!.scheduled_at, runs[1]!.scheduled_at, 'the same round on both nodes');
    t.equal((Date.parse(runs[0]!.scheduled_at) - m.phase_ms) % (interval_s * 1000), 0, 'round start = phase + k * interval');
    t.ok(Math.abs(runs[0]!.at - runs[1]!.at) < 200, 'at the same instant though their clocks are 5 s apart');
  }
  const first = fired.find((f) => f.monitor_id === b.monitor_id && f.node === 'n1')!;

  // A changed assignment keeps its timing and does not run the round again.
  fired.length = 0;
  const changed = { ...b, check: { ...b.check, target: '198.18.1.11:443' } } as Assignment;
  n1.sync([a, changed]);
  t.same(n1.monitor_ids.sort(), [a.monitor_id, b.monitor_id].sort());
  t.equal(n1.nextRunAt(b.monitor_id), Date.parse(first.scheduled_at) + interval_s * 1000, 'next round of the changed one is the next k');
  n1.sync([a]);
  t.same(n1.monitor_ids, [a.monitor_id], 'removed one stopped');
  t.equal(n1.nextRunAt(b.monitor_id), null);
  t.same(fired.filter((f) => f.node === 'n1'), [], 'nothing ran again');
  n1.stop();
  t.same(n1.monitor_ids, []);
  // An assignments frame handled while the stopped agent flushes its outbox arms nothing again.
  n1.sync([a, b]);
  t.same(n1.monitor_ids, [], 'stopped for good');
  t.equal(n1.nextRunAt(a.monitor_id), null);
});

t.test('the phase is derived from the monitor id when the assignment has none, and fits the interval', async (t) => {
  const a = assignment(60);
  t.equal(assignmentPhaseMs(a), roundPhaseMs(a.monitor_id, 60));
  t.ok(assignmentPhaseMs(a) >= 0 && assignmentPhaseMs(a) < 60_000);
  t.equal(assignmentPhaseMs({ ...a, phase_ms: 61_000 }), 1000, 'a phase beyond the interval wraps');
});

t.test('clock: offset = the least delayed arrival - sent_at, less half the shortest round trip', async (t) => {
  let now = 1_800_000_000_000;
  const clock = new ClockOffset(() => now);
  t.equal(clock.offset_ms, null);
  t.same(clock.report(), {}, 'nothing reported before a measurement');
  clock.noteServerTime(now - 2000);
  t.equal(clock.offset_ms, null, 'no round trip yet: no sample');
  clock.noteRtt(10);
  clock.noteServerTime(now - 1005); // node 1 s ahead, 5 ms on the way
  t.equal(clock.offset_ms, 1000);
  clock.noteRtt(400);
  clock.noteServerTime(now - 1300); // a slow sample: its error shows in its round trip
  t.equal(clock.offset_ms, 1000, 'the short round trip wins');
  t.same(clock.report(), { clock_offset_ms: 1000, rtt_ms: 10 });
  // A heartbeat read 9 s late (an event loop stalled on either side) after a fast ping.
  clock.noteRtt(2);
  clock.noteServerTime(now - 10_000);
  t.equal(clock.offset_ms, 1004, 'the late heartbeat is not used; the shorter round trip is (1005 - 2 / 2)');
  t.same(clock.report(), { clock_offset_ms: 1004, rtt_ms: 2 });
  now += 60_000;
  t.equal(clock.serverNow(), now - 1004, 'the control plane\'s time');
});

t.test('a run is bounded by its interval, at most 60 s', async (t) => {
  t.equal(assignmentTimeoutMs(assignment(10)), 10_000);
  t.equal(assignmentTimeoutMs(assignment(300)), 60_000);
});
