import t from 'tap';
import { createLogger } from '../log.js';
import { testDatabase } from '../test-support/db.js';
import { ViewCounter } from './view-counter.js';

/*
 * The batched view counter on a real database: many reads become one addition per post at a
 * flush; a flush that fails (the table out of reach) keeps its counts for the next one; close()
 * writes what is left.
 */

t.test('view counter: batches, keeps counts across a failed flush, writes at close', async (t) => {
  const { sql } = await testDatabase(t);
  await sql`INSERT INTO blog_posts (slug, locale, title, author) VALUES ('a', 'en', 'A', 'x'), ('b', 'en', 'B', 'x')`;
  const counts = async () => Object.fromEntries((await sql<{ slug: string; v: string }[]>`SELECT slug, view_count::text AS v FROM blog_posts ORDER BY slug`).map((r) => [r.slug, Number(r.v)]));
  const counter = new ViewCounter(sql, 600_000, createLogger('silent'));
  t.teardown(() => counter.close());
  for (let i = 0; i < 100; i++) counter.count('a');
  counter.count('b');
  counter.count('gone');
  t.equal(counter.unwritten('a'), 100);
  t.same(await counts(), { a: 0, b: 0 }, 'nothing written before a flush');
  await counter.flush();
  t.same(await counts(), { a: 100, b: 1 }, 'one flush writes every post; an unknown slug is skipped');
  t.equal(counter.unwritten('a'), 0);

  await sql`ALTER TABLE blog_posts RENAME TO blog_posts_away`;
  counter.count('a');
  counter.count('a');
  await counter.flush();
  t.equal(counter.unwritten('a'), 2, 'a failed flush keeps its counts');
  await sql`ALTER TABLE blog_posts_away RENAME TO blog_posts`;
  counter.count('b');
  await counter.close();
  t.same(await counts(), { a: 102, b: 2 }, 'close writes what is left');
});
