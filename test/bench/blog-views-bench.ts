/**
 * Benchmark (not a test): reads of one blog post under load, `GET /v1/blog/posts/{slug}` with its
 * view counted in memory and written in batches (blog/view-counter.ts, flush every 5 s), beside the
 * peer a straightforward implementation would be: the same read answered after an
 * `UPDATE blog_posts SET view_count = view_count + 1` of that one row per read, served from the
 * same process and database. Both on a real listening control plane on 127.0.0.1 and the real
 * Postgres at TEST_DATABASE_URL (a scratch database, dropped afterwards), loaded by autocannon
 * with `--connections` for `--duration` seconds, in `--rounds` interleaved pairs (ours, then the
 * peer), the table vacuumed before each run. Figures per side: median over the rounds of reads/s,
 * p99 latency (ms), and row updates of blog_posts per 1000 reads (pg_stat_user_tables). The load
 * average is printed at start and end (the machine is shared).
 *
 *   npx tsx test/bench/blog-views-bench.ts [--connections 50] [--duration 5] [--rounds 3]
 */
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { call, registerUser, testApp } from '../../control-plane/src/test-support/app.js';
import { findPost } from '../../control-plane/src/blog/blog.db.js';
import { toPost } from '../../control-plane/src/blog/view.js';
import { median } from './lib/stats.js';

// autocannon is a dev dependency of the control plane (no type declarations are installed).
const autocannon = createRequire(new URL('../../control-plane/package.json', import.meta.url))('autocannon') as (opts: Record<string, unknown>) => Promise<any>;

const { values } = parseArgs({ options: { connections: { type: 'string', default: '50' }, duration: { type: 'string', default: '5' }, rounds: { type: 'string', default: '3' } } });
const connections = Number(values.connections);
const duration = Number(values.duration);
const rounds = Number(values.rounds);
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');

const teardowns: Array<() => unknown> = [];
const t = { teardown: (fn: () => unknown) => void teardowns.unshift(fn) };
try {
  console.log(`load average at start: ${load()}`);
  const { app, url, sql } = await testApp(t, { config: { rate_limit_keyed: 100_000_000, rate_limit_anonymous: 100_000_000, blog_view_flush_ms: 5000 } });
  const admin = await registerUser(app);
  const made = await call(app, 'POST', '/v1/admin/blog/posts', {
    token: admin.access_token,
    body: { slug: 'hot-post', locale: 'en', title: 'A popular post', author: 'bench', tags: ['bench'], content_md: '# Hello\n\nSome **Markdown** with [a link](https://example.com/).', published_at: new Date(Date.now() - 60_000).toISOString() },
  });
  if (made.status !== 201) throw new Error(`post not created: ${JSON.stringify(made.body)}`);

  // The peer: one row update per read, then the same answer.
  const peerServer = createServer((req, res) => {
    const slug = decodeURIComponent((req.url ?? '').replace('/posts/', ''));
    void (async () => {
      await sql`UPDATE blog_posts SET view_count = view_count + 1 WHERE slug = ${slug} AND published_at <= now()`;
      const post = await findPost(sql, slug, new Date());
      res.statusCode = post ? 200 : 404;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(post ? { data: toPost(post, [], 0) } : { error: 'not found' }));
    })().catch(() => { res.statusCode = 500; res.end(); });
  });
  await new Promise<void>((resolve) => peerServer.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => peerServer.close(() => resolve())));
  const peerUrl = `http://127.0.0.1:${(peerServer.address() as AddressInfo).port}`;

  const updates = async () => {
    await sql`SELECT pg_stat_clear_snapshot()`;
    return Number((await sql<{ n: string }[]>`SELECT n_tup_upd::text AS n FROM pg_stat_user_tables WHERE relname = 'blog_posts'`)[0]!.n);
  };
  async function run(target: string): Promise<{ per_s: number; p99_ms: number; writes_per_1000: number }> {
    await sql`VACUUM blog_posts`;
    // Let the previous run's statistics reach the shared counters (backends report them within about a second of going idle).
    await sleep(3000);
    const before = await updates();
    const r = await autocannon({ url: target, connections, duration });
    if (r.non2xx + r.errors + r.timeouts > 0) throw new Error(`${target}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`);
    // The batched side's last reads reach the table at its next flush: wait past one, then let the statistics settle.
    await sleep(6500);
    const after = await updates();
    return { per_s: r.requests.average, p99_ms: r.latency.p99, writes_per_1000: ((after - before) / r.requests.total) * 1000 };
  }

  const ours: Array<Awaited<ReturnType<typeof run>>> = [];
  const theirs: Array<Awaited<ReturnType<typeof run>>> = [];
  await run(`${url}/v1/blog/posts/hot-post`); // warm-up
  for (let i = 0; i < rounds; i++) {
    ours.push(await run(`${url}/v1/blog/posts/hot-post`));
    theirs.push(await run(`${peerUrl}/posts/hot-post`));
    console.log(`round ${i + 1}: batched ${ours.at(-1)!.per_s.toFixed(0)}/s, per-read update ${theirs.at(-1)!.per_s.toFixed(0)}/s (load ${load()})`);
  }
  const sum = (xs: typeof ours) => ({
    reads_per_s: Math.round(median(xs.map((x) => x.per_s))),
    p99_ms: median(xs.map((x) => x.p99_ms)),
    row_updates_per_1000_reads: Number(median(xs.map((x) => x.writes_per_1000)).toFixed(2)),
  });
  const stored = Number((await sql<{ v: string }[]>`SELECT view_count::text AS v FROM blog_posts WHERE slug = 'hot-post'`)[0]!.v);
  console.log(JSON.stringify({
    endpoint: 'GET /v1/blog/posts/{slug} (one hot post)', connections, duration_s: duration, rounds,
    batched: sum(ours), per_read_update: sum(theirs),
    ratio_reads_per_s: Number((median(ours.map((x) => x.per_s)) / median(theirs.map((x) => x.per_s))).toFixed(2)),
    view_count_stored: stored, load_end: load(),
  }, null, 2));
} finally {
  for (const fn of teardowns) await fn();
}
