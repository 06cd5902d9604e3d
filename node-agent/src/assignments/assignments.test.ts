import t from 'tap';
import { assignmentSchema, newId, type Assignment } from '@vantage/shared-protocol';
import { openStateDb } from '../state/db.js';
import { AssignmentScheduler, assignmentTimeoutMs } from './scheduler.js';
import { AssignmentStore } from './store.js';

const assignment = (interval_s = 60, target = '198.18.1.10:443'): Assignment =>
  assignmentSchema.parse({ monitor_id: newId('monitor'), interval_s, check: { type: 'tcp', target, params: {} } });

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

t.test('scheduler: fires each assignment, keeps unchanged ones, stops removed ones', async (t) => {
  const fired: string[] = [];
  let onFire: (() => void) | null = null;
  const s = new AssignmentScheduler({ random: () => 0, fire: (a) => { fired.push(a.monitor_id); onFire?.(); } });
  t.teardown(() => s.stop());
  const [a, b] = [assignment(10), assignment(10)];
  const both = new Promise<void>((resolve) => { onFire = () => { if (fired.length >= 2) resolve(); }; });
  s.sync([a!, b!]);
  await both;
  t.same(fired.sort(), [a!.monitor_id, b!.monitor_id].sort(), 'offset 0: both fire at once');

  fired.length = 0;
  const changed = { ...b!, check: { ...b!.check, target: '198.18.1.11:443' } } as Assignment;
  const again = new Promise<void>((resolve) => { onFire = () => resolve(); });
  s.sync([a!, changed]);
  await again;
  t.same(fired, [b!.monitor_id], 'only the changed one restarts (and fires at its new offset 0)');
  t.same(s.monitor_ids.sort(), [a!.monitor_id, b!.monitor_id].sort());
  s.sync([a!]);
  t.same(s.monitor_ids, [a!.monitor_id], 'removed one stopped');
  s.stop();
  t.same(s.monitor_ids, []);
});

t.test('a run is bounded by its interval, at most 60 s', async (t) => {
  t.equal(assignmentTimeoutMs(assignment(10)), 10_000);
  t.equal(assignmentTimeoutMs(assignment(300)), 60_000);
});
