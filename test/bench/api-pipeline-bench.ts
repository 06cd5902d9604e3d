/**
 * Benchmark (not a test): where this process's CPU goes per API read, the HTTP pipeline included
 * (authentication, rate limit, middleware, validation, envelope), on the real Postgres at
 * TEST_DATABASE_URL (a scratch database, dropped afterwards), the whole app in this process.
 *
 *   npx tsx test/bench/api-pipeline-bench.ts [--n 3000] [--monitors 300] [--reads uptime,monitor,list]
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx test/bench/api-pipeline-bench.ts --socket false
 *
 * Each read (`uptime`: GET /v1/monitors/{id}/uptime?period=90d of a monitor without history;
 * `monitor`: GET /v1/monitors/{id}; `list`: GET /v1/monitors?limit=100 among `monitors` monitors)
 * is made `n` times one after the other, after 100 untimed ones, two ways:
 * - `in_process`: through `app.request` as checks-bench and monitor-bench make them (this
 *   process also builds the web Request and reads the Response, as a client would);
 * - `socket` (unless `--socket false`): over HTTP on loopback from autocannon in a child process
 *   (one connection, keep-alive), so only the server's side is counted here.
 * For each: latency p50/p99 ms (in-process: measured here; socket: autocannon's, whole ms), and
 * per request this process's CPU µs (`node_cpu_us`, every thread), the main thread's alone
 * (`main_thread_cpu_us`: JavaScript, the driver, syscalls), the other threads' (`other_threads_cpu_us`:
 * V8's platform workers, i.e. parallel scavenges and concurrent marking, and libuv's pool), and
 * minor page faults (`minflt`). Counts from /proc (1/100 s ticks summed over `n` requests).
 * In-process also: how many requests a garbage collection of this process overlapped
 * (`gc_overlapped`) and the p99 of the others (`p99_ms_without_gc`): when the two p99s are the
 * same, collections are not what the tail is made of.
 */
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { ensurePartitions } from '../../control-plane/src/checks/partitions.js';
import { seedNodes } from '../../control-plane/src/checks/test-support.js';
import { call, registerUser, testApp } from '../../control-plane/src/test-support/app.js';
import { bulkMonitors } from './lib/checks-data.js';
import { quantile } from './lib/stats.js';

const { values } = parseArgs({ options: {
  n: { type: 'string', default: '3000' }, monitors: { type: 'string', default: '300' },
  reads: { type: 'string', default: 'uptime,monitor,list' }, socket: { type: 'string', default: 'true' },
} });
const N = Number(values.n);
const WARMUP = 100;
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
const TICK_S = 100; // USER_HZ

/** CPU seconds of this process's main thread and of its other threads, and its minor faults, from /proc. */
function usage(): { main_s: number; other_s: number; minflt: number } {
  let main_s = 0;
  let other_s = 0;
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const s = (Number(f[11]) + Number(f[12])) / TICK_S;
      if (Number(tid) === process.pid) main_s += s; else other_s += s;
    } catch { /* thread gone */ }
  }
  const own = readFileSync('/proc/self/stat', 'utf8');
  return { main_s, other_s, minflt: Number(own.slice(own.lastIndexOf(')') + 2).split(' ')[7]) };
}

/** Run `fn` and give the per-request CPU split over `n` requests. */
async function perRequest(n: number, fn: () => Promise<void>) {
  const u0 = usage();
  await fn();
  const u1 = usage();
  const main = u1.main_s - u0.main_s;
  const other = u1.other_s - u0.other_s;
  return {
    node_cpu_us: Math.round(((main + other) * 1e6) / n), main_thread_cpu_us: Math.round((main * 1e6) / n),
    other_threads_cpu_us: Math.round((other * 1e6) / n), minflt: round((u1.minflt - u0.minflt) / n, 2),
  };
}

// autocannon is a dev dependency of the control plane; its CLI runs as a child process here.
const AUTOCANNON = new URL('../../control-plane/node_modules/.bin/autocannon', import.meta.url).pathname;

/** `count` sequential requests of `url` from autocannon in a child process. @returns its latency p50/p99 ms */
function autocannon(url: string, token: string, count: number): Promise<{ p50_ms: number; p99_ms: number; non2xx: number }> {
  const args = ['-c', '1', '-a', String(count), '-H', `authorization=Bearer ${token}`, '--json', url];
  return new Promise((resolve, reject) => execFile(AUTOCANNON, args, { maxBuffer: 1 << 24 }, (err, stdout) => {
    if (err) return reject(err);
    const r = JSON.parse(stdout);
    resolve({ p50_ms: r.latency.p50, p99_ms: r.latency.p99, non2xx: r.non2xx });
  }));
}

const teardowns: Array<() => unknown> = [];
const t = { teardown: (fn: () => unknown) => void teardowns.unshift(fn) };
try {
  const { app, sql, url } = await testApp(t, { generic_plans: true });
  await ensurePartitions(sql);
  const nodes = await seedNodes(sql, 3);
  const owner = await registerUser(app);
  const [target] = await bulkMonitors(sql, owner.user_id, nodes, Number(values.monitors));
  await sql`VACUUM ANALYZE`;
  const paths: Record<string, string> = {
    uptime: `/v1/monitors/${target}/uptime?period=90d`, monitor: `/v1/monitors/${target}`, list: '/v1/monitors?limit=100',
  };
  const figures: Record<string, unknown> = {};
  for (const read of values.reads.split(',')) {
    const path = paths[read];
    if (!path) throw new Error(`unknown read ${read}`);
    const get = async () => {
      const res = await call(app, 'GET', path, { token: owner.access_token });
      if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
    };
    for (let i = 0; i < WARMUP; i++) await get();
    const spans: Array<[number, number]> = [];
    const gcs: Array<[number, number]> = [];
    const add = (entries: PerformanceEntry[]) => { for (const e of entries) gcs.push([e.startTime, e.startTime + e.duration]); };
    const gcWatch = new PerformanceObserver((list) => add(list.getEntries()));
    gcWatch.observe({ entryTypes: ['gc'] });
    const in_process = await perRequest(N, async () => {
      for (let i = 0; i < N; i++) {
        const t0 = performance.now();
        await get();
        spans.push([t0, performance.now()]);
      }
    });
    add(gcWatch.takeRecords()); // entries not yet delivered
    gcWatch.disconnect();
    const ms = spans.map(([a, b]) => b - a);
    const clear = spans.filter(([a, b]) => !gcs.some(([g0, g1]) => g0 < b && g1 > a)).map(([a, b]) => b - a);
    const out: Record<string, unknown> = { in_process: {
      p50_ms: round(quantile(ms, 0.5), 2), p99_ms: round(quantile(ms, 0.99), 2),
      gc_overlapped: ms.length - clear.length, p99_ms_without_gc: round(quantile(clear, 0.99), 2), ...in_process,
    } };
    if (values.socket !== 'false') {
      await autocannon(url + path, owner.access_token, WARMUP);
      let latency = { p50_ms: 0, p99_ms: 0, non2xx: 0 };
      const cpu = await perRequest(N, async () => { latency = await autocannon(url + path, owner.access_token, N); });
      if (latency.non2xx > 0) throw new Error(`${path}: ${latency.non2xx} answers not 2xx over the socket`);
      out.socket = { p50_ms: latency.p50_ms, p99_ms: latency.p99_ms, ...cpu };
    }
    figures[read] = out;
  }
  console.log(JSON.stringify({ n: N, ...figures, load_average: loadavg().map((x) => round(x)) }, null, 2));
} catch (err) {
  console.error(err);
  process.exitCode = 1;
} finally {
  for (const fn of teardowns) await fn();
}
