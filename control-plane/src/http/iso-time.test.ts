import t from 'tap';
import { isoTime } from './iso-time.js';

t.test('the same string as toISOString at the edges of the fast range and of months and years', async (t) => {
  const cases = [
    0, 1, 999, 86_399_999, 86_400_000, Date.UTC(1972, 1, 29, 23, 59, 59, 999), Date.UTC(2000, 1, 29), Date.UTC(2000, 2, 1),
    Date.UTC(2100, 1, 28, 12), Date.UTC(2100, 2, 1), Date.UTC(2026, 11, 31, 23, 59, 59, 999), Date.UTC(2027, 0, 1),
    Date.UTC(9999, 11, 31, 23, 59, 59, 999),
  ];
  for (const ms of cases) t.equal(isoTime(new Date(ms)), new Date(ms).toISOString(), String(ms));
});

t.test('outside the fast range it is toISOString itself', async (t) => {
  for (const ms of [-1, Date.UTC(1969, 11, 31, 23, 59, 59, 999), Date.UTC(-1, 0, 1), Date.UTC(10_000, 0, 1), 8.64e15, -8.64e15]) {
    t.equal(isoTime(new Date(ms)), new Date(ms).toISOString(), String(ms));
  }
  t.throws(() => isoTime(new Date(Number.NaN)), RangeError, 'an invalid date throws as toISOString does');
});

t.test('200,000 random instants from 1970 to 9999: the same string as toISOString', async (t) => {
  let differ = 0;
  let first = '';
  for (let i = 0; i < 200_000; i++) {
    const d = new Date(Math.floor(Math.random() * Date.UTC(10_000, 0, 1)));
    if (isoTime(d) !== d.toISOString()) { differ++; first ||= `${d.getTime()}: ${isoTime(d)} ≠ ${d.toISOString()}`; }
  }
  t.equal(differ, 0, first || 'none differ');
});
