import { getEventListeners } from 'node:events';
import t from 'tap';
import { deadlineSignal } from './deadline-signal.js';

/**
 * Resolves with the signal's abort reason once it aborts. The bound's timer is unref'd (it never
 * keeps a process alive), so a timer of the test's own holds the process while it waits.
 */
const aborted = (signal: AbortSignal) => new Promise<unknown>((resolve) => {
  const hold = setTimeout(() => {}, 30_000);
  signal.addEventListener('abort', () => { clearTimeout(hold); resolve(signal.reason); }, { once: true });
});

t.test('the time runs out first: a TimeoutError, timedOut() true, the parent left', async (t) => {
  const parent = new AbortController();
  const d = deadlineSignal(parent.signal, 20);
  t.equal(getEventListeners(parent.signal, 'abort').length, 1, 'listening to the parent meanwhile');
  const reason = await aborted(d.signal) as DOMException;
  t.equal(reason.name, 'TimeoutError', 'the reason AbortSignal.timeout gives');
  t.ok(d.timedOut());
  t.equal(getEventListeners(parent.signal, 'abort').length, 0, 'no listener left on the parent');
  parent.abort(new Error('later'));
  t.ok(d.timedOut(), 'still the time: the parent aborted after it');
  t.equal((d.signal.reason as DOMException).name, 'TimeoutError');
});

t.test('the parent aborts first: its reason, timedOut() false, the timer stopped', async (t) => {
  const parent = new AbortController();
  const d = deadlineSignal(parent.signal, 20);
  const why = new Error('task cancelled');
  parent.abort(why);
  t.ok(d.signal.aborted, 'at once');
  t.equal(d.signal.reason, why, "the parent's own reason");
  await new Promise((r) => setTimeout(r, 60));
  t.notOk(d.timedOut(), 'past the bound: the stopped timer never fired');
  t.equal(d.signal.reason, why);
  d.dispose();
  d.dispose();
  t.pass('dispose after the end, twice, does nothing');
});

t.test('a parent already aborted: aborted at once with its reason', async (t) => {
  const parent = new AbortController();
  parent.abort('gone');
  const d = deadlineSignal(parent.signal, 60_000);
  t.ok(d.signal.aborted);
  t.equal(d.signal.reason, 'gone');
  t.notOk(d.timedOut());
  t.equal(getEventListeners(parent.signal, 'abort').length, 0);
});

t.test('disposed before either: never aborts, nothing left on the parent', async (t) => {
  const parent = new AbortController();
  const d = deadlineSignal(parent.signal, 10);
  d.dispose();
  t.equal(getEventListeners(parent.signal, 'abort').length, 0);
  // Past the bound, measured by a timer of our own (any delay only makes the check stricter).
  await new Promise((r) => setTimeout(r, 50));
  parent.abort();
  t.notOk(d.signal.aborted, 'neither the time nor the parent reached it');
  t.notOk(d.timedOut());
});

t.test('no parent: the time alone', async (t) => {
  const d = deadlineSignal(undefined, 5);
  t.equal((await aborted(d.signal) as DOMException).name, 'TimeoutError');
  t.ok(d.timedOut());
});

t.test('a bound that is not a finite number >= 0 is refused', async (t) => {
  for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY]) t.throws(() => deadlineSignal(undefined, bad), RangeError, String(bad));
  const d = deadlineSignal(undefined, 0);
  t.equal((await aborted(d.signal) as DOMException).name, 'TimeoutError', '0 ms: on the next turn of the timers');
});
