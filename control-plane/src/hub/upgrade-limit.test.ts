import t from 'tap';
import { UpgradeCounter } from './upgrade-limit.js';

t.test('upgrades are counted per address in fixed windows, in memory', async (t) => {
  const c = new UpgradeCounter(60);
  const start = 1_800_000_000_000 - (1_800_000_000_000 % 60_000);
  t.equal(c.hit('192.0.2.1', start).count, 1);
  t.equal(c.hit('192.0.2.1', start + 1000).count, 2);
  t.equal(c.hit('192.0.2.2', start + 1000).count, 1, 'another address has its own count');
  const next = c.hit('192.0.2.1', start + 60_000);
  t.equal(next.count, 1, 'a new window starts at 1');
  t.equal(next.reset_at.getTime(), start + 120_000, 'reset_at is the end of the window');
});
