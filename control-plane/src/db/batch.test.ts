import t from 'tap';
import { batchCalls, RESUME_SLICE } from './batch.js';

/** A batch runner that records its batches and finishes each when `release` is called. */
function recorder<I>() {
  const batches: I[][] = [];
  const waiting: Array<() => void> = [];
  const run = async (items: I[]) => {
    batches.push(items);
    await new Promise<void>((resolve) => waiting.push(resolve));
    return items.map((i) => `out:${String(i)}`);
  };
  const release = async () => {
    while (waiting.length === 0) await new Promise((r) => setImmediate(r));
    waiting.shift()!();
  };
  return { batches, run, release };
}

t.test('calls made together share one run; calls during a run wait for the next one', async (t) => {
  const r = recorder<number>();
  const call = batchCalls(r.run, { max: 100 });
  const first = [1, 2, 3].map((i) => call(i));
  await r.release();
  t.same(await Promise.all(first), ['out:1', 'out:2', 'out:3'], 'each caller gets its own output');
  const during: Array<Promise<string>> = [call(4)];
  await new Promise((res) => setImmediate(res));
  during.push(call(5), call(6)); // while 4's run is in flight
  await r.release();
  await r.release();
  t.same(await Promise.all(during), ['out:4', 'out:5', 'out:6']);
  t.same(r.batches, [[1, 2, 3], [4], [5, 6]], 'one run per burst, in call order');
});

t.test('in_flight 2: a call made while one batch runs starts a second at once; calls made while both run wait for the first to end', async (t) => {
  const r = recorder<number>();
  const call = batchCalls(r.run, { max: 100, in_flight: 2 });
  const first = call(1);
  while (r.batches.length < 1) await new Promise((res) => setImmediate(res));
  const second = call(2);
  while (r.batches.length < 2) await new Promise((res) => setImmediate(res));
  t.same(r.batches, [[1], [2]], 'the second batch started while the first runs');
  const later = [call(3), call(4)];
  for (let i = 0; i < 20; i++) await new Promise((res) => setImmediate(res));
  t.equal(r.batches.length, 2, 'no third batch while two run');
  await r.release();
  t.equal(await first, 'out:1');
  while (r.batches.length < 3) await new Promise((res) => setImmediate(res));
  t.same(r.batches[2], [3, 4], 'the calls that waited go together once a batch ended');
  await r.release();
  await r.release();
  t.same(await Promise.all([second, ...later]), ['out:2', 'out:3', 'out:4']);
});

t.test('a batch holds at most max by weight; one item heavier than max goes alone', async (t) => {
  const batches: string[][][] = [];
  const call = batchCalls<string[], number>(async (items) => {
    batches.push(items);
    return items.map((i) => i.length);
  }, { max: 4, weight: (i) => i.length });
  const out = await Promise.all([['a', 'b'], ['c', 'd'], ['e'], ['f', 'g', 'h', 'i', 'j'], ['k']].map((i) => call(i)));
  t.same(out, [2, 2, 1, 5, 1]);
  t.same(batches.map((b) => b.map((i) => i.join(''))), [['ab', 'cd'], ['e'], ['fghij'], ['k']]);
});

t.test('a failed run rejects its own callers only; a run answering the wrong count is a failure', async (t) => {
  let runs = 0;
  const call = batchCalls<number, number>(async (items) => {
    runs += 1;
    if (runs === 1) throw new Error('database away');
    if (runs === 2) return [];
    return items;
  }, { max: 10 });
  const failed = [call(1), call(2)];
  await t.rejects(failed[0]!, /database away/);
  await t.rejects(failed[1]!, /database away/);
  await t.rejects(call(3), /0 outputs for 1 inputs/);
  t.same(await Promise.all([call(4), call(5)]), [4, 5], 'the next burst runs as usual');
});

t.test('a large batch resumes its callers a slice per event-loop turn, so I/O runs between slices', async (t) => {
  const call = batchCalls<number, number>(async (items) => items, { max: 1000 });
  const n = 4 * RESUME_SLICE + 10;
  let resumed = 0;
  let seen_by_io: number | null = null;
  const calls = Array.from({ length: n }, (_, i) => call(i).then((out) => {
    // The first caller to resume asks for a turn of the loop: it comes before the last slice.
    if (resumed++ === 0) setImmediate(() => { seen_by_io = resumed; });
    return out;
  }));
  t.same(await Promise.all(calls), Array.from({ length: n }, (_, i) => i), 'every caller gets its own output, in order');
  t.ok(seen_by_io !== null && seen_by_io < n, `the loop turned between slices (after ${seen_by_io} of ${n})`);
  const failing = batchCalls<number, number>(async () => { throw new Error('database away'); }, { max: 1000 });
  const rejected = await Promise.allSettled(Array.from({ length: n }, (_, i) => failing(i)));
  t.ok(rejected.every((r) => r.status === 'rejected'), 'a failed batch rejects every caller, slice by slice');
});
