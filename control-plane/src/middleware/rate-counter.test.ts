import t from 'tap';
import { testDatabase } from '../test-support/db.js';
import { RateCounter } from './rate-counter.js';

const quiet = { warn: () => {} };
const WINDOW_S = 3600;

// Windows are aligned to the clock: a file started in the last 30 s of an hour waits for the next.
const into_window_ms = Date.now() % (WINDOW_S * 1000);
if (into_window_ms > (WINDOW_S - 30) * 1000) await new Promise((r) => setTimeout(r, WINDOW_S * 1000 - into_window_ms + 500));

async function stored(sql: Awaited<ReturnType<typeof testDatabase>>['sql'], bucket: string): Promise<number | null> {
  const [row] = await sql<{ count: number }[]>`SELECT count FROM rate_limit_counters WHERE bucket = ${bucket}`;
  return row?.count ?? null;
}

t.test('one instance counts exactly, and writes every bucket in one statement within sync_ms', async (t) => {
  const { sql } = await testDatabase(t);
  const counter = new RateCounter(sql, WINDOW_S, 60_000, quiet);
  const counts = await Promise.all(Array.from({ length: 100 }, () => counter.hit('ip:a')));
  t.same(counts.map((c) => c.count).sort((a, b) => a - b), Array.from({ length: 100 }, (_, i) => i + 1), 'concurrent first requests share one read: 1..100, each once');
  await counter.hit('ip:b');
  await counter.hit('ip:b');
  t.equal(await stored(sql, 'ip:a'), 1, 'only the first request was written at once');
  t.equal(await stored(sql, 'ip:b'), 1);
  await counter.flush();
  t.equal(await stored(sql, 'ip:a'), 100, 'the rest written by the flush');
  t.equal(await stored(sql, 'ip:b'), 2);
  t.equal((await counter.hit('ip:a')).count, 101, 'counting goes on from the written count');
  const reset = counts[0]!.reset_at.getTime();
  t.ok(reset > Date.now() && reset <= Date.now() + WINDOW_S * 1000, 'reset_at is the end of the current window');
});

t.test('the timer writes within sync_ms without a call to flush', async (t) => {
  const { sql } = await testDatabase(t);
  const counter = new RateCounter(sql, WINDOW_S, 50, quiet);
  for (let i = 0; i < 5; i++) await counter.hit('cred:k');
  const deadline = Date.now() + 30_000;
  while ((await stored(sql, 'cred:k')) !== 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  t.equal(await stored(sql, 'cred:k'), 5);
});

t.test('instances share counts: each learns the others\' at its next write, and sync_ms 0 is exact at once', async (t) => {
  const { sql } = await testDatabase(t);
  const a = new RateCounter(sql, WINDOW_S, 60_000, quiet);
  const b = new RateCounter(sql, WINDOW_S, 60_000, quiet);
  await a.hit('ip:x'); // 1, written
  await a.hit('ip:x'); // 2, pending
  await a.flush();
  t.equal((await b.hit('ip:x')).count, 3, 'a bucket new to b reads the shared count');
  await a.hit('ip:x'); // a: 3 as far as it knows (really 4)
  await b.hit('ip:x'); // b: 4 as far as it knows (really 5)
  await a.flush();
  await b.flush();
  t.equal(await stored(sql, 'ip:x'), 5, 'nothing counted twice or lost');
  t.equal((await b.hit('ip:x')).count, 6, 'b wrote last: it counts on top of every request of both');
  t.equal((await a.hit('ip:x')).count, 5, 'a learns of b\'s requests at its own next write (the documented bound)');
  await a.flush();
  t.equal((await a.hit('ip:x')).count, 7, 'after that write a counts on top of all that was written (b\'s last request is still pending)');

  const exact_a = new RateCounter(sql, WINDOW_S, 0, quiet);
  const exact_b = new RateCounter(sql, WINDOW_S, 0, quiet);
  const seen = [];
  for (const c of [exact_a, exact_b, exact_a, exact_b]) seen.push((await c.hit('ip:y')).count);
  t.same(seen, [1, 2, 3, 4], 'sync_ms 0: every request written at once');
});

t.test('a new window starts at 1; an unwritable count is dropped with a warning, never thrown', async (t) => {
  const { sql } = await testDatabase(t);
  const counter = new RateCounter(sql, 1, 60_000, quiet);
  const first = await counter.hit('ip:w');
  await counter.hit('ip:w');
  await new Promise((r) => setTimeout(r, Math.max(0, first.reset_at.getTime() - Date.now()) + 50));
  t.equal((await counter.hit('ip:w')).count, 1, 'the next window counts from 1');

  const warnings: unknown[] = [];
  const broken = new RateCounter(sql, WINDOW_S, 60_000, { warn: (o: unknown) => void warnings.push(o) });
  await broken.hit('ip:z');
  await broken.hit('ip:z');
  await sql`DROP TABLE rate_limit_counters`;
  await broken.flush();
  t.equal(warnings.length, 1, 'the failed write is logged');
  await t.rejects(broken.hit('ip:new'), 'a bucket that must be read still fails with the database');
  t.equal((await broken.hit('ip:z')).count, 2, 'a known bucket keeps counting from what was written');
});
