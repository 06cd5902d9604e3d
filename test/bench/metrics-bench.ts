/*
 * Request-path cost of the Prometheus metrics, and the cost of a scrape at 100,000 monitors:
 *
 *   npx tsx test/bench/metrics-bench.ts [--rounds 7] [--requests 4000] [--monitors 100000]
 *
 * 1. The same app (test database, as test-support/app.ts builds it) with and without the metric
 *    set, asked in-process (`app.request`, no sockets: the figure is the middleware's own cost)
 *    for GET /healthz and for GET /v1/monitors/{id} anonymously (identify, rate limit, 401):
 *    rounds alternate between the two apps; medians of the rounds' mean µs per request.
 * 2. `vantage_monitor_*` series for N monitor and node pairs: median wall and CPU time to render a
 *    scrape (medians of 5), its size and its gzip size (what Prometheus receives every scrape interval).
 * Needs the Postgres at TEST_DATABASE_URL.
 */
import { parseArgs } from 'node:util';
import os from 'node:os';
import { gzipSync } from 'node:zlib';
import { createApp } from '../../control-plane/src/app.js';
import { MonitorSeries } from '../../control-plane/src/metrics/monitor-series.js';
import { testApp } from '../../control-plane/src/test-support/app.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '7' }, requests: { type: 'string', default: '4000' }, monitors: { type: 'string', default: '100000' } } });
const ROUNDS = Number(values.rounds);
const REQUESTS = Number(values.requests);
const MONITORS = Number(values.monitors);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const cleanups: Array<() => unknown> = [];
const { deps } = await testApp({ teardown: (fn) => void cleanups.push(fn) }, { metrics: true });
const withMetrics = createApp(deps);
const without = createApp({ ...deps, metrics: undefined });

async function meanMicros(app: typeof without, path: string): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < REQUESTS; i++) await (await app.request(path)).arrayBuffer();
  return ((performance.now() - started) * 1000) / REQUESTS;
}

console.log(`load average at start: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')} (${os.cpus().length} cores)`);
console.log('| request | without metrics µs | with metrics µs | difference µs |');
console.log('|---|---|---|---|');
for (const path of ['/healthz', '/v1/monitors/mon_benchmark00000000000000']) {
  await meanMicros(without, path); // warm-up, both
  await meanMicros(withMetrics, path);
  const a: number[] = [];
  const b: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    a.push(await meanMicros(without, path));
    b.push(await meanMicros(withMetrics, path));
  }
  console.log(`| GET ${path} | ${median(a).toFixed(1)} | ${median(b).toFixed(1)} | ${(median(b) - median(a)).toFixed(1)} |`);
}

const series = new MonitorSeries(MONITORS, 86_400);
const now = Date.now();
for (let i = 0; i < MONITORS; i++) {
  const at = new Date(now - (i % 60) * 1000).toISOString();
  series.record({ monitor_id: `mon_${i.toString(36).padStart(26, '0')}`, node_id: `node_${(i % 50).toString(36).padStart(26, '0')}`, success: i % 17 !== 0, scheduled_at: at, started_at: at, finished_at: at });
}
const times: number[] = [];
const cpu: number[] = [];
let bytes = 0;
let gzipped = 0;
for (let r = 0; r < 5; r++) {
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  const text = await series.render();
  const used = process.cpuUsage(cpuStarted);
  times.push(performance.now() - started);
  cpu.push((used.user + used.system) / 1000);
  bytes = Buffer.byteLength(text);
  gzipped = gzipSync(text).length;
}
console.log(`\n| monitor series | pairs | render wall ms | render CPU ms | scrape MB | gzip MB |\n|---|---|---|---|---|---|\n| vantage_monitor_* | ${MONITORS} | ${median(times).toFixed(0)} | ${median(cpu).toFixed(0)} | ${(bytes / 1e6).toFixed(1)} | ${(gzipped / 1e6).toFixed(1)} |`);
console.log(`load average at end: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
for (const fn of cleanups) await fn();
