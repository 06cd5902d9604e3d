import t from 'tap';
import { DirectoryCache } from './directory-cache.js';

t.test('a page is read once per ttl, shared by concurrent callers, dropped on failure and on clear()', async (t) => {
  const cache = new DirectoryCache<number>(60_000);
  let reads = 0;
  const read = async () => { reads++; await new Promise((r) => setTimeout(r, 20)); return reads; };
  const together = await Promise.all([cache.get('p1', read), cache.get('p1', read), cache.get('p1', read)]);
  t.same(together, [1, 1, 1], 'three callers at once: one read');
  t.equal(await cache.get('p1', read), 1, 'kept within the ttl');
  t.equal(await cache.get('p2', read), 2, 'another page has its own read');
  cache.clear();
  t.equal(await cache.get('p1', read), 3, 'read again after clear()');

  let fail = true;
  const flaky = async () => { if (fail) throw new Error('database away'); return 7; };
  await t.rejects(cache.get('p3', flaky), /database away/);
  fail = false;
  t.equal(await cache.get('p3', flaky), 7, 'a failed read is not kept');
});

t.test('a page older than the ttl is read again; ttl 0 reads every time', async (t) => {
  const short = new DirectoryCache<number>(30);
  let reads = 0;
  const read = async () => ++reads;
  t.equal(await short.get('p', read), 1);
  await new Promise((r) => setTimeout(r, 60));
  t.equal(await short.get('p', read), 2, 'expired: read again');
  const never = new DirectoryCache<number>(0);
  t.equal(await never.get('p', read), 3);
  t.equal(await never.get('p', read), 4);
});
