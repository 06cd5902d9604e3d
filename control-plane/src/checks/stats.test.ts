import t from 'tap';
import { bucketValue } from './histogram.js';
import type { StatsCellRow } from './stats.db.js';
import { autoBucketS, statsOfCells, statsSources } from './stats.js';

const H = 3_600_000;
const D = 86_400_000;
const at = (ms: number) => new Date(Date.UTC(2026, 10, 1) + ms);
const show = (xs: ReturnType<typeof statsSources>) => xs.map((x) => [x.source, x.from.getTime() - at(0).getTime(), x.to.getTime() - at(0).getTime()]);

t.test('where each part of a range is read', async (t) => {
  const marks = { hours_until: at(10 * D + 5 * H), days_from: at(2 * D), days_until: at(10 * D) };
  t.same(show(statsSources(at(H / 2), at(11 * D), 86_400, marks)), [
    ['hour', 0, 2 * D], ['day', 2 * D, 10 * D], ['hour', 10 * D, 10 * D + 5 * H], ['raw', 10 * D + 5 * H, 11 * D],
  ], 'days before the daily rows from hours (the first one whole), whole days from daily rows, then hours, then raw');
  t.same(show(statsSources(at(3 * D), at(4 * D), 3600, marks)), [['hour', 3 * D, 4 * D]], 'hour buckets never read daily rows');
  t.same(show(statsSources(at(3 * D), at(4 * D), 300, marks)), [['raw', 3 * D, 4 * D]], 'finer buckets read raw checks');
  t.same(show(statsSources(at(3 * D), at(4 * D), 86_400, { hours_until: null, days_from: null, days_until: null })), [['raw', 3 * D, 4 * D]], 'before the first rollup');
  t.same(show(statsSources(at(11 * D), at(12 * D), 86_400, marks)), [['raw', 11 * D, 12 * D]], 'past the rollups');
});

t.test('automatic bucket widths: at most 100 buckets', async (t) => {
  t.equal(autoBucketS(H), 60);
  t.equal(autoBucketS(D), 900);
  t.equal(autoBucketS(7 * D), 21_600);
  t.equal(autoBucketS(90 * D), 86_400);
  t.equal(autoBucketS(2000 * D), 604_800);
});

t.test('summaries of random cells are those of their samples, each group and bucket merged', async (t) => {
  let seed = 5;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const pick = (n: number) => Math.floor(rand() * n);
  const series = [
    { id: 1, node_id: 'n1', country: 'DE' }, { id: 2, node_id: 'n2', country: 'DE' },
    { id: 3, node_id: 'n3', country: 'FR' }, { id: 4, node_id: null, country: null },
  ];
  const ms3 = (v: number | null) => (v === null ? null : Math.round(v * 1000) / 1000);
  for (let round = 0; round < 40; round++) {
    const from = at(pick(D));
    const to = at(D + pick(10 * D));
    const first_b = Math.floor(from.getTime() / 1000 / 86_400);
    const last_b = Math.ceil(to.getTime() / 1000 / 86_400) - 1;
    // Each cell with its samples (bucket indices) kept for the reference; sums whole ms so any order adds them exactly.
    const cells: Array<StatsCellRow & { samples: number[] }> = [];
    for (let b = first_b; b <= last_b; b++) {
      for (const s of series) {
        if (rand() < 0.3) continue;
        const lo = pick(500);
        const counts = new Map<number, number>();
        for (let k = pick(8); k > 0; k--) {
          const i = Math.min(511, lo + pick(round % 2 === 0 ? 12 : 200));
          counts.set(i, (counts.get(i) ?? 0) + 1 + pick(round % 5 === 0 ? 3_000 : 9));
        }
        const indices = [...counts.keys()].sort((x, y) => x - y);
        const samples = indices.flatMap((i) => Array.from({ length: counts.get(i)! }, () => i));
        const bound = (i: number | undefined) => (i === undefined ? null : bucketValue(i) * (0.97 + rand() * 0.06));
        const failures = pick(3);
        const packed = rand() < 0.5;
        cells.push({
          b, series_id: s.id, checks: samples.length + failures, failures, rt_count: samples.length, rt_sum_ms: samples.length * (1 + pick(500)),
          rt_min_ms: bound(samples[0]), rt_max_ms: bound(samples.at(-1)),
          hist_idx: packed ? null : indices, hist_n: packed ? null : indices.map((i) => counts.get(i)!),
          rt_hist: packed ? indices.map((i) => i * 2 ** 22 + counts.get(i)!) : null, hour: null, data: null, samples,
        });
      }
    }
    const reference = (of: typeof cells) => {
      const samples = of.flatMap((c) => c.samples).sort((x, y) => x - y);
      const checks = of.reduce((a, c) => a + c.checks, 0);
      const failures = of.reduce((a, c) => a + c.failures, 0);
      const rt_count = of.reduce((a, c) => a + c.rt_count, 0);
      const mins = of.flatMap((c) => (c.rt_min_ms === null ? [] : [c.rt_min_ms]));
      const maxes = of.flatMap((c) => (c.rt_max_ms === null ? [] : [c.rt_max_ms]));
      const min = mins.length > 0 ? Math.min(...mins) : null;
      const max = maxes.length > 0 ? Math.max(...maxes) : null;
      const q = (p: number) => {
        if (samples.length === 0) return null;
        const v = bucketValue(samples[Math.max(1, Math.ceil(p * samples.length)) - 1]!);
        return ms3(min !== null && v < min ? min : max !== null && v > max ? max : v);
      };
      return {
        checks, failures, failure_rate: checks > 0 ? Math.round((failures / checks) * 1e6) / 1e6 : null,
        p50_ms: q(0.5), p95_ms: q(0.95), p99_ms: q(0.99),
        min_ms: ms3(min), avg_ms: ms3(rt_count > 0 ? of.reduce((a, c) => a + c.rt_sum_ms, 0) / rt_count : null), max_ms: ms3(max),
      };
    };
    const expect = (members: typeof series) => {
      const of = cells.filter((c) => members.some((s) => s.id === c.series_id));
      const buckets = [];
      for (let b = first_b; b <= last_b; b++) buckets.push({ start: new Date(b * 86_400_000).toISOString(), ...reference(of.filter((c) => c.b === b)) });
      return { overall: reference(of), buckets };
    };
    const group_by = (['node', 'country', undefined] as const)[round % 3];
    const got = statsOfCells(series, from, to, 86_400, group_by, [{ source: 'day', from, to }], cells);
    t.same({ overall: got.overall, buckets: got.buckets }, expect(series), `round ${round}: all series`);
    const key = group_by === 'country' ? (s: { country: string | null }) => s.country : (s: { node_id: string | null }) => s.node_id;
    const keys = group_by ? [...new Set(series.map(key))] : [];
    t.same(got.groups?.map((g) => ({ overall: g.overall, buckets: g.buckets })) ?? [], keys.map((k) => expect(series.filter((s) => key(s) === k))), `round ${round}: groups by ${group_by}`);
  }
});
