import t from 'tap';
import { testDatabase } from '../test-support/db.js';
import {
  addCountsToHistogram, addToHistogram, bucketIndex, bucketValue, Histogram, HISTOGRAM_ALPHA, histogramQuantile, histogramQuantiles, mergeHistogram, packHistogram, unpackHistogram,
} from './histogram.js';

const exactQuantile = (sorted: number[], q: number) => sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1]!;

t.test('a bucket stands for its values within 2 %', async (t) => {
  for (const ms of [0.02, 0.31, 1, 7.7, 42, 99.9, 250, 1234.5, 30_000, 119_999]) {
    const v = bucketValue(bucketIndex(ms));
    t.ok(Math.abs(v - ms) / ms <= HISTOGRAM_ALPHA + 1e-9, `${ms} ms → ${v.toFixed(4)}`);
  }
  t.equal(bucketIndex(0), 0);
  t.equal(bucketIndex(-5), 0);
  t.equal(bucketIndex(1e12), 511, 'huge values share the last bucket');
});

t.test('quantiles within 2 % of the exact ones, also after merging and packing', async (t) => {
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const a: number[] = Array.from({ length: 5000 }, () => 20 + rand() * 80);
  const b: number[] = Array.from({ length: 3000 }, () => 150 * Math.exp(rand() * 2));
  const ha = new Histogram();
  const hb = new Histogram();
  for (const x of a) addToHistogram(ha, bucketIndex(x));
  for (const x of b) addToHistogram(hb, bucketIndex(x));
  const merged = unpackHistogram(packHistogram(ha));
  mergeHistogram(merged, unpackHistogram(packHistogram(hb)));
  t.equal(merged.total, 8000);
  const all = [...a, ...b].sort((x, y) => x - y);
  for (const q of [0.5, 0.95, 0.99]) {
    const got = histogramQuantile(merged, q)!;
    const exact = exactQuantile(all, q);
    t.ok(Math.abs(got - exact) / exact <= HISTOGRAM_ALPHA + 1e-9, `p${q * 100}: ${got.toFixed(2)} vs exact ${exact.toFixed(2)}`);
  }
  t.equal(histogramQuantile(new Histogram(), 0.5), null, 'empty: null');
  t.equal(histogramQuantile(merged, 0, 20, 500), 20, 'clamped to the known minimum');
});

t.test('several quantiles at once are the nearest-rank bucket of each, in the order asked, clamped', async (t) => {
  let seed = 11;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  for (let round = 0; round < 300; round++) {
    // Parts built each way a histogram gets counts (one at a time, parallel arrays, packed), in
    // ranges apart, overlapping or nested, merged into one: the reference is their samples' buckets.
    const merged = new Histogram();
    const samples: number[] = [];
    for (let p = Math.floor(rand() * 4); p >= 0; p--) {
      const part = new Histogram();
      const lo = Math.floor(rand() * 512);
      const span = 1 + Math.floor(rand() * Math.min(60, 512 - lo));
      const indices: number[] = [];
      const counts: number[] = [];
      for (let k = Math.floor(rand() * 6); k > 0; k--) {
        const i = lo + Math.floor(rand() * span);
        const n = 1 + Math.floor(rand() * 5);
        indices.push(i);
        counts.push(n);
        for (let j = 0; j < n; j++) samples.push(i);
      }
      if (round % 3 === 0) indices.forEach((i, k) => addToHistogram(part, i, counts[k]));
      else addCountsToHistogram(part, indices, counts);
      mergeHistogram(merged, round % 3 === 2 ? unpackHistogram(packHistogram(part)) : part);
    }
    samples.sort((x, y) => x - y);
    t.equal(merged.total, samples.length, `histogram ${round}: count`);
    const qs = [0.99, 0, 0.5, 1, 0.95, 0.01, 0.5];
    if (samples.length === 0) {
      t.same(histogramQuantiles(merged, qs), qs.map(() => null), `histogram ${round}: empty, nulls`);
      continue;
    }
    const [min_ms, max_ms] = round % 4 === 0 ? [bucketValue(samples[0]!) * 1.01, bucketValue(samples.at(-1)!) * 0.99] : [null, null];
    const clamp = (v: number) => (min_ms !== null && v < min_ms ? min_ms : max_ms !== null && v > max_ms ? max_ms : v);
    const want = qs.map((q) => clamp(bucketValue(exactQuantile(samples, q))));
    t.same(histogramQuantiles(merged, qs, min_ms, max_ms), want, `histogram ${round}`);
  }
});

t.test('a count too large for one packed entry is split, not lost', async (t) => {
  const h = new Histogram();
  addToHistogram(h, 511, 5_000_000);
  addToHistogram(h, 3);
  const packed = packHistogram(h);
  t.ok(packed.every((v) => v < 2 ** 31), 'every entry fits an int4');
  t.same(packed, [3 * 2 ** 22 + 1, 511 * 2 ** 22 + 2 ** 22 - 1, 511 * 2 ** 22 + 5_000_000 - (2 ** 22 - 1)], 'ascending, index << 22 | count');
  t.same(unpackHistogram(packed), h);
});

t.test('check_rt_bucket (SQL) puts values in the same buckets as bucketIndex', async (t) => {
  const { sql } = await testDatabase(t);
  const values = [0, 0.005, 0.01, 0.0101, 0.5, 1, 3.3, 12.5, 80, 81.2, 99.99, 1000, 65_000, 1e9];
  for (let i = 0; i < 200; i++) values.push(Math.exp(i / 12) / 10);
  const rows = await sql<{ b: number }[]>`SELECT check_rt_bucket(v) AS b FROM unnest(${values}::float8[]) WITH ORDINALITY AS u(v, n) ORDER BY n`;
  t.same(rows.map((r) => r.b), values.map(bucketIndex));
});
