/**
 * Benchmark (not a test): the offline lookups GET /v1/info/ip and GET /v1/ip/reputation through a
 * real listening control plane on 127.0.0.1 (every middleware, the Postgres rate-limit counters
 * and, for reputation, its own limit; a scratch database at TEST_DATABASE_URL, dropped afterwards),
 * each request for another random public IPv4 address (the GeoLite2 and ASN tables are searched
 * cold for each). For each lookup: the most lookups/s `--connections` keep-alive connections get
 * (autocannon), then p50/p99 latency at a fixed 1,000 lookups/s: autocannon's `overallRate` (whole
 * milliseconds, its client in the server's own thread) and the paced client of lib/paced-client.ts
 * (a worker thread of its own, µs clock, latency from each request's due time); the goal is p99
 * under 5 ms at 1,000/s. Then the lookup alone in process (p50/p99 µs per address, no HTTP).
 * Prints a Markdown table (measure | ours | peer | difference | goal).
 *
 *   npx tsx test/bench/lookups-bench.ts [--connections 10] [--duration 10] [--rate 1000]
 */
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { lookupGeo, specialRange } from '../../control-plane/src/lookups/geo.js';
import { ipInfo } from '../../control-plane/src/lookups/ip-info.js';
import { ipReputation, reputationLists } from '../../control-plane/src/lookups/ip-reputation.js';
import { pacedLatency } from './lib/paced-client.js';
import { quantile } from './lib/stats.js';
import { call, testApp } from '../../control-plane/src/test-support/app.js';

// autocannon is a dev dependency of the control plane (no type declarations are installed).
const autocannon = createRequire(new URL('../../control-plane/package.json', import.meta.url))('autocannon') as (opts: Record<string, unknown>) => Promise<any>;

const { values } = parseArgs({ options: { connections: { type: 'string', default: '10' }, duration: { type: 'string', default: '10' }, rate: { type: 'string', default: '1000' } } });
const connections = Number(values.connections);
const duration_s = Number(values.duration);
const rate = Number(values.rate);

/** `n` random globally routable unicast IPv4 addresses (no special-purpose range, RFC 6890). */
function publicAddresses(n: number): string[] {
  const out: string[] = [];
  while (out.length < n) {
    const a = Array.from({ length: 4 }, () => Math.floor(Math.random() * 256)).join('.');
    if (specialRange(a) === null) out.push(a);
  }
  return out;
}

const teardowns: Array<() => unknown> = [];
const t = { teardown: (fn: () => unknown) => void teardowns.unshift(fn) };
try {
  const { app, url } = await testApp(t, { config: { rate_limit_keyed: 100_000_000, rate_limit_anonymous: 100_000_000, reputation_rate_limit_anonymous: 1_000_000 } });
  const ips = publicAddresses(20_000);
  const rows: string[] = [];
  for (const [name, path] of [['IP info', '/v1/info/ip'], ['IP reputation', '/v1/ip/reputation']] as const) {
    // Warm-up: the first lookup loads the tables (≈45 MB mmdb, the ASN CSVs).
    const first = await call(app, 'GET', `${path}?q=8.8.8.8`);
    if (first.status !== 200) throw new Error(`${name} warm-up: ${first.status} ${JSON.stringify(first.body)}`);
    let i = 0;
    const requests = [{ setupRequest: (req: { path: string }) => ({ ...req, path: `${path}?q=${ips[i++ % ips.length]}` }) }];
    const run = (extra: Record<string, unknown>) => autocannon({ url, connections, duration: duration_s, requests, ...extra });
    await run({}); // as long as a measured run: JIT, the HTTP path and the tables' load garbage out of the way (the first run measured slower)
    const max = await run({});
    const paced = await run({ overallRate: rate });
    const failed = (r: any) => r.non2xx + r.errors + r.timeouts;
    rows.push(`| ${name}: lookups/s, ${connections} connections | ${Math.round(max.requests.average)} | — | ${failed(max)} failed | ≥ ${rate} |`);
    rows.push(`| ${name}: p50 latency at ${rate}/s, ms | ${paced.latency.p50} | — | ${Math.round(paced.requests.average)}/s achieved, ${failed(paced)} failed | |`);
    rows.push(`| ${name}: p99 latency at ${rate}/s, ms | ${paced.latency.p99} | — | max ${paced.latency.max} ms | < 5 |`);
    const fine = await pacedLatency({ url, paths: ips.map((ip) => `${path}?q=${ip}`), rate_per_s: rate, duration_s, connections });
    rows.push(`| ${name}: p50 / p99 / p99.9 latency at ${rate}/s, ms (paced client in its own thread, µs clock) | ${fine.p50_ms.toFixed(2)} / ${fine.p99_ms.toFixed(2)} / ${fine.p999_ms.toFixed(2)} | — | max ${fine.max_ms.toFixed(2)} ms, ${Math.round(fine.achieved_per_s)}/s achieved, ${fine.failed} failed | p99 < 5 |`);
  }
  // The lookup alone, in process (no HTTP, no middleware): what the tables cost per address.
  const geo = lookupGeo({});
  const lists = reputationLists({ reputation_vpn_files: [], reputation_proxy_files: [] });
  for (const [name, once] of [['IP info', (ip: string) => ipInfo(geo, ip)], ['IP reputation', (ip: string) => ipReputation(geo, lists, ip)]] as const) {
    const us: number[] = [];
    for (const ip of ips) {
      const t0 = process.hrtime.bigint();
      await once(ip);
      us.push(Number(process.hrtime.bigint() - t0) / 1000);
    }
    rows.push(`| ${name}: one lookup in process (no HTTP), p50 / p99 µs | ${quantile(us, 0.5).toFixed(1)} / ${quantile(us, 0.99).toFixed(1)} | — | ${ips.length} addresses | |`);
  }
  console.log(['| measure | ours | peer | difference | goal |', '|---|---|---|---|---|', ...rows].join('\n'));
} finally {
  for (const fn of teardowns) await fn();
}
