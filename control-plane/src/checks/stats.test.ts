import t from 'tap';
import { autoBucketS, statsSources } from './stats.js';

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
