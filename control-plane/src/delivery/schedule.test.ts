import t from 'tap';
import { DEFAULT_RETRY_DELAYS_MS } from '../config/delivery.js';
import { RETRY_JITTER, nextRetryDelayMs } from './schedule.js';

t.test('the default schedule: about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then failed', async (t) => {
  const mid = () => 0.5; // no jitter
  const cases: Array<[number, number | null]> = [
    [0, 5_000], [1, 300_000], [2, 1_800_000], [3, 7_200_000], [4, 18_000_000], [5, 36_000_000], [6, 36_000_000], [7, null], [50, null],
  ];
  for (const [step, expected] of cases) t.equal(nextRetryDelayMs(step, true, DEFAULT_RETRY_DELAYS_MS, mid), expected, `retry step ${step}`);
});

t.test('jitter stays within ±20 % of the nominal delay', async (t) => {
  t.equal(nextRetryDelayMs(1, true, DEFAULT_RETRY_DELAYS_MS, () => 0), Math.round(300_000 * (1 - RETRY_JITTER)));
  t.equal(nextRetryDelayMs(1, true, DEFAULT_RETRY_DELAYS_MS, () => 0.999999), Math.round(300_000 * (1 + RETRY_JITTER * 0.999998)));
  const seen = new Set<number>();
  for (let i = 0; i < 200; i++) {
    const d = nextRetryDelayMs(0, true, DEFAULT_RETRY_DELAYS_MS)!;
    t.ok(d >= 4_000 && d <= 6_000, `${d} ms`);
    seen.add(d);
  }
  t.ok(seen.size > 50, 'delays are spread, not all the same');
});

t.test('a failure that is not retriable is final at once', async (t) => {
  t.equal(nextRetryDelayMs(0, false, DEFAULT_RETRY_DELAYS_MS), null);
  t.equal(nextRetryDelayMs(0, true, []), null, 'an empty schedule: one attempt only');
});
