/**
 * Benchmark (not a test): page views of a public status page (`GET /status/{slug}`, the HTML a
 * visitor gets) per second and their latency, served from the page cache, paired in the same run
 * with the same page built for every view (cache off: VANTAGE_STATUS_PAGE_CACHE_TTL_S=0), against
 * a real listening control plane on 127.0.0.1 and the real Postgres at TEST_DATABASE_URL (a
 * scratch database, dropped afterwards). The page has 10 components, each a monitor with 90 days
 * of hourly uptime rollups, and 5 incidents. Rounds alternate cached as a browser asks for it
 * (Accept-Encoding br/gzip: the body precompressed once per cache entry), cached without
 * compression, and built per view, `--rounds` times; the figures are the medians. The load
 * generator (autocannon) runs in the same process as the control plane, so it takes its share of
 * the same event loop. Goal (docs/api/status-pages.md "Caching"): 2,000 views/s from cache
 * with p99 < 50 ms on the 2-core test machine.
 *
 *   npx tsx test/bench/status-page-bench.ts [--connections 20] [--duration 5] [--rounds 3]
 */
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { seedMonitor } from '../../control-plane/src/checks/test-support.js';
import { call, registerUser, testApp } from '../../control-plane/src/test-support/app.js';

// autocannon is a dev dependency of the control plane (no type declarations are installed).
const autocannon = createRequire(new URL('../../control-plane/package.json', import.meta.url))('autocannon') as (opts: Record<string, unknown>) => Promise<any>;

const { values } = parseArgs({ options: { connections: { type: 'string', default: '20' }, duration: { type: 'string', default: '5' }, rounds: { type: 'string', default: '3' } } });
const connections = Number(values.connections);
const duration_s = Number(values.duration);
const rounds = Number(values.rounds);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const teardowns: Array<() => unknown> = [];
const t = { teardown: (fn: () => unknown) => void teardowns.unshift(fn) };
try {
  const { app, url, sql, deps } = await testApp(t, { config: { rate_limit_keyed: 100_000_000, rate_limit_anonymous: 100_000_000, status_page_cache_ttl_s: 30 } });
  const user = await registerUser(app);
  const components = [];
  const hour0 = Math.floor(Date.now() / 3_600_000) * 3_600_000;
  for (let i = 0; i < 10; i++) {
    const { monitor_id } = await seedMonitor(sql, { user_id: user.user_id, nodes: 0, state: i === 3 ? 'degraded' : 'up' });
    const rows = Array.from({ length: 90 * 24 }, (_, h) => ({ monitor_id, hour: new Date(hour0 - h * 3_600_000), up_s: h % 97 === i ? 3000 : 3600, down_s: h % 97 === i ? 600 : 0 }));
    for (let k = 0; k < rows.length; k += 1000) await sql`INSERT INTO round_rollups ${sql(rows.slice(k, k + 1000))}`;
    components.push({ monitor_id, display_name: `Service ${i}`, section: i < 5 ? 'Core' : 'Edge' });
  }
  await sql`ANALYZE round_rollups`;
  const page = await call(app, 'POST', '/v1/status-pages', { token: user.access_token, body: { slug: 'bench', title: 'Bench status', components } });
  if (page.status !== 201) throw new Error(`page: ${page.status} ${JSON.stringify(page.body)}`);
  for (let i = 0; i < 5; i++) {
    const inc = await call(app, 'POST', '/v1/incidents', { token: user.access_token, body: { title: `Incident ${i}`, message: 'Investigating.', status_page_ids: [page.body.data.id] } });
    await call(app, 'POST', `/v1/incidents/${inc.body.data.id}/updates`, { token: user.access_token, body: { status: 'resolved', message: 'Fixed.' } });
  }
  const warm = await app.request('/status/bench');
  if (warm.status !== 200 || !(await warm.text()).includes('Service 9')) throw new Error(`warm-up failed: ${warm.status}`);

  // What Chromium sends; the status page is read by browsers. `identity` shows the uncompressed cost.
  const BROWSER = { 'accept-encoding': 'gzip, deflate, br, zstd' };
  const run = async (ttl_s: number, headers: Record<string, string> = BROWSER) => {
    deps.config.status_page_cache_ttl_s = ttl_s;
    const r = await autocannon({ url: `${url}/status/bench`, connections, duration: duration_s, headers });
    return { rps: r.requests.average as number, p50: r.latency.p50 as number, p99: r.latency.p99 as number, failed: (r.non2xx + r.errors + r.timeouts) as number };
  };
  const cached: Awaited<ReturnType<typeof run>>[] = [];
  const identity: Awaited<ReturnType<typeof run>>[] = [];
  const built: Awaited<ReturnType<typeof run>>[] = [];
  for (let i = 0; i < rounds; i++) {
    cached.push(await run(30));
    identity.push(await run(30, {}));
    built.push(await run(0));
  }
  const summary = (xs: typeof cached) => ({ requests_per_s: Math.round(median(xs.map((x) => x.rps))), latency_p50_ms: median(xs.map((x) => x.p50)), latency_p99_ms: median(xs.map((x) => x.p99)), failed: xs.reduce((a, x) => a + x.failed, 0) });
  console.log(JSON.stringify({ endpoint: 'GET /status/{slug} (10 components x 90 days, 5 incidents)', connections, duration_s, rounds, load_average: loadavg().map((x) => x.toFixed(2)).join(' '), cached_browser: summary(cached), cached_identity: summary(identity), built_browser: summary(built) }, null, 2));
} finally {
  for (const fn of teardowns) await fn();
}
