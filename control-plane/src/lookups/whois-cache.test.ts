import t from 'tap';
import { createTtlCache } from './whois-cache.js';

/* The look-up cache: time to live, joined concurrent loads, failures not kept, the size bound. */

t.test('answers are served until their TTL, then loaded again; concurrent loads are joined', async (t) => {
  let clock = 0;
  let loads = 0;
  const cache = createTtlCache<string>(60, 10, () => clock);
  const load = async () => { loads++; await new Promise((r) => setImmediate(r)); return `v${loads}`; };
  const [a, b] = await Promise.all([cache.get('k', load), cache.get('k', load)]);
  t.same([a, b], [{ value: 'v1', cached: false }, { value: 'v1', cached: false }]);
  t.equal(loads, 1, 'one load for two concurrent gets');
  clock = 59_999;
  t.same(await cache.get('k', load), { value: 'v1', cached: true });
  clock = 60_000;
  t.same(await cache.get('k', load), { value: 'v2', cached: false }, 'expired at the TTL');
});

t.test('a rejected load or one keep() refuses is not cached; the oldest entry goes past the bound', async (t) => {
  const cache = createTtlCache<number>(60, 2);
  await t.rejects(cache.get('bad', async () => { throw new Error('down'); }), /down/);
  t.same(await cache.get('bad', async () => 1), { value: 1, cached: false });
  await cache.get('skip', async () => 2, () => false);
  t.same(await cache.get('skip', async () => 3, () => false), { value: 3, cached: false });
  await cache.get('x', async () => 4);
  await cache.get('y', async () => 5);
  t.equal(cache.size, 2);
  t.same(await cache.get('bad', async () => 9), { value: 9, cached: false }, 'the least recently used entry was dropped');
});

t.test('a TTL of 0 keeps nothing', async (t) => {
  const cache = createTtlCache<number>(0, 10);
  await cache.get('k', async () => 1);
  t.same(await cache.get('k', async () => 2), { value: 2, cached: false });
});
