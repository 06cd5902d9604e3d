import t from 'tap';
import { TaskQueue, type Job } from './queue.js';

/** A job that finishes when released (or when aborted), recording what happened. */
function gate() {
  const events: string[] = [];
  const releases = new Map<string, () => void>();
  const job = (name: string): Job => (signal) => new Promise<void>((resolve) => {
    events.push(`start ${name}`);
    const done = (how: string) => { events.push(`${how} ${name}`); resolve(); };
    releases.set(name, () => done('end'));
    if (signal.aborted) return done('abort');
    signal.addEventListener('abort', () => done('abort'), { once: true });
  });
  return { events, job, release: (name: string) => releases.get(name)?.() };
}

t.test('concurrency limit, queue bound and a clear rejection', async (t) => {
  const g = gate();
  const q = new TaskQueue({ concurrency: 2, queue_max: 1 });
  t.same(q.submit('a', g.job('a')), { accepted: true, duplicate: false });
  q.submit('b', g.job('b'));
  t.same(q.submit('c', g.job('c')), { accepted: true, duplicate: false }, 'third waits');
  t.same(q.submit('d', g.job('d')), { accepted: false, reason: 'queue full (1 tasks)' });
  t.same(q.submit('a', g.job('a')), { accepted: true, duplicate: true }, 'same key not run twice');
  t.same(q.size, { running: 2, waiting: 1 });
  t.same(g.events, ['start a', 'start b']);
  g.release('a');
  await new Promise(setImmediate);
  t.same(g.events, ['start a', 'start b', 'end a', 'start c'], 'next starts when a slot frees');
  g.release('b');
  g.release('c');
  await q.drain(5000);
  t.same(q.size, { running: 0, waiting: 0 });
});

t.test('cancel aborts a running job and lets a queued one finish at once', async (t) => {
  const g = gate();
  const q = new TaskQueue({ concurrency: 1, queue_max: 5 });
  q.submit('run', g.job('run'));
  q.submit('wait', g.job('wait'));
  t.ok(q.cancel('wait'));
  t.ok(q.cancel('run'));
  t.notOk(q.cancel('nothing'));
  await q.drain(5000);
  t.same(g.events.sort(), ['abort run', 'abort wait', 'start run', 'start wait']);
});

t.test('drain waits for running jobs, then aborts what is left, and refuses new work', async (t) => {
  const g = gate();
  const q = new TaskQueue({ concurrency: 1, queue_max: 5 });
  q.submit('quick', g.job('quick'));
  q.submit('slow', g.job('slow'));
  setImmediate(() => g.release('quick'));
  const aborted = await q.drain(200);
  t.equal(aborted, 1, 'the slow one was aborted after the grace');
  t.same(g.events, ['start quick', 'end quick', 'start slow', 'abort slow']);
  t.same(q.submit('late', g.job('late')), { accepted: false, reason: 'agent shutting down' });
});

t.test('a job that throws or rejects does not stop the queue', async (t) => {
  const q = new TaskQueue({ concurrency: 1, queue_max: 5 });
  let ran = false;
  q.submit('throws', () => { throw new Error('sync'); });
  q.submit('rejects', async () => { throw new Error('async'); });
  q.submit('ok', async () => { ran = true; });
  t.equal(await q.drain(5000), 0);
  t.ok(ran);
});

t.test('keys submitted once are remembered after they finish, for a bounded time and number', async (t) => {
  const g = gate();
  let now = 0;
  const q = new TaskQueue({ concurrency: 1, queue_max: 5, once_memory: { ttl_ms: 1000, max: 2 }, now: () => now });
  q.submit('a', g.job('a'), { once: true });
  g.release('a');
  await new Promise(setImmediate);
  t.same(q.submit('a', g.job('a'), { once: true }), { accepted: true, duplicate: true }, 'finished, still not run again');
  t.same(g.events, ['start a', 'end a']);
  t.same(q.submit('m', g.job('m')), { accepted: true, duplicate: false }, 'keys without once run again (monitor rounds)');
  g.release('m');
  await new Promise(setImmediate);
  t.same(q.submit('m', g.job('m')), { accepted: true, duplicate: false });
  g.release('m');
  await new Promise(setImmediate);

  now = 1000;
  t.same(q.submit('a', g.job('a'), { once: true }), { accepted: true, duplicate: false }, 'forgotten after ttl_ms');
  g.release('a');
  await new Promise(setImmediate);
  q.remember(['b', 'c']);
  t.same(q.submit('a', g.job('a'), { once: true }), { accepted: true, duplicate: false }, 'the oldest is dropped past max');
  g.release('a');
  await new Promise(setImmediate);
  t.same(q.submit('c', g.job('c'), { once: true }), { accepted: true, duplicate: true }, 'remembered (e.g. a result in the outbox at start-up)');
  q.close('agent shutting down');
  t.same(q.submit('c', g.job('c'), { once: true }), { accepted: true, duplicate: true }, 'a duplicate is acked even while closing');
  t.same(q.submit('x', g.job('x'), { once: true }), { accepted: false, reason: 'agent shutting down' });
  await q.drain(1000);
});
