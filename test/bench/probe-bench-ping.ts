/*
 * Benchmark of the node's ICMP ping probe. A script, not a test: it prints figures.
 *
 *   npx tsx test/bench/probe-bench-ping.ts [--count 200] [--seconds 5] [--concurrency 50]
 *
 * Needs root and iputils `ping` (Debian package iputils-ping). It builds two namespaces joined
 * by a veth pair (benchA 198.18.20.1 — benchB 198.18.20.2) and runs every measurement inside
 * benchA, pinned to CPU 0 with taskset, so other traffic on the machine stays out of it.
 * 1. Accuracy: our per-packet rtt against iputils `ping -i 0.01` on the same target, `count`
 *    packets each at 10 ms intervals, in two interleaved halves (ours, ping, ours, ping), to
 *    127.0.0.1 inside the namespace and to the veth peer; medians and their difference.
 *    Both read the kernel's receive timestamp of the reply (iputils through SO_TIMESTAMP, ours
 *    through SIOCGSTAMPNS, node-agent/src/probes/timestamps/), so neither includes the wake-up.
 * 2. Throughput: `concurrency` tasks each looping single-packet pings for `seconds`, pings/s on
 *    one core, and the process's peak RSS (getrusage maxrss).
 */
import { fileURLToPath } from 'node:url';
import { pingParamsSchema } from '@vantage/shared-protocol';
import { pingProbe } from '../../node-agent/src/probes/ping.js';
import { silentLogger } from '../../node-agent/src/probes/test-support/logger.js';
import type { ProbeContext } from '../../node-agent/src/probes/types.js';
import { createTopology } from '../netns/topology.js';
import { median } from './lib/stats.js';

const SELF = fileURLToPath(import.meta.url);
const TSX = import.meta.resolve('tsx');
const ALLOW = { allow_private: true, allow_cidrs: [] };
const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const f3 = (x: number) => x.toFixed(3);

const log = silentLogger();
const context = (): ProbeContext => ({ signal: new AbortController().signal, policy: ALLOW, log });

/** Child mode, inside the namespace: one ping run of `count` packets; prints the rtts as JSON. */
async function childPing(target: string, count: number, interval_ms: number): Promise<void> {
  // count goes past the API's 50 on purpose: the engine has no cap of its own, the schema does.
  const params = { ...pingParamsSchema.parse({ interval_ms, timeout_ms: 1000 }), count };
  const r = await pingProbe.run(target, params, context());
  process.stdout.write(JSON.stringify({ rtts: r.output.packets.map((p) => p.rtt_ms).filter((x) => x !== null) }));
}

/** Child mode: `concurrency` tasks looping count-1 pings for `seconds`; prints counts and peak RSS. */
async function childThroughput(target: string, seconds: number, concurrency: number): Promise<void> {
  const params = pingParamsSchema.parse({ count: 1, timeout_ms: 1000 });
  let ok = 0;
  let failed = 0;
  const rss_before_kb = Math.round(process.memoryUsage().rss / 1024);
  const t0 = performance.now();
  const deadline = t0 + seconds * 1000;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < deadline) {
      const r = await pingProbe.run(target, params, context());
      if (r.success) ok++;
      else failed++;
    }
  }));
  const elapsed_s = (performance.now() - t0) / 1000;
  process.stdout.write(JSON.stringify({ ok, failed, elapsed_s, rss_before_kb, peak_rss_kb: process.resourceUsage().maxRSS }));
}

type Topo = Awaited<ReturnType<typeof createTopology>>;

async function inNs(topo: Topo, argv: string[]): Promise<string> {
  return topo.run('benchA', ['taskset', '-c', '0', ...argv]);
}

async function ours(topo: Topo, target: string, count: number): Promise<number[]> {
  const out = await inNs(topo, [process.execPath, '--import', TSX, SELF, '--child', 'ping', target, String(count), '10']);
  return (JSON.parse(out) as { rtts: number[] }).rtts;
}

async function iputils(topo: Topo, target: string, count: number): Promise<number[]> {
  const out = await inNs(topo, ['ping', '-n', '-c', String(count), '-i', '0.01', '-W', '1', target]);
  return [...out.matchAll(/time=([\d.]+) ms/g)].map((m) => Number(m[1]));
}

async function accuracy(topo: Topo, target: string, count: number) {
  const a: number[] = [];
  const b: number[] = [];
  const half = Math.ceil(count / 2);
  for (let i = 0; i < 2; i++) {
    a.push(...(await ours(topo, target, half)));
    b.push(...(await iputils(topo, target, half)));
  }
  return { ours: median(a), ping: median(b), n_ours: a.length, n_ping: b.length };
}

async function main(): Promise<void> {
  const count = arg('count', 200);
  const seconds = arg('seconds', 5);
  const concurrency = arg('concurrency', 50);
  const topo = await createTopology({
    nodes: { benchA: {}, benchB: {} },
    links: [{ a: 'benchA', b: 'benchB', a_addrs: ['198.18.20.1/24'], b_addrs: ['198.18.20.2/24'] }],
  });
  try {
    const rows: string[] = [];
    for (const [label, target] of [['loopback 127.0.0.1', '127.0.0.1'], ['veth peer 198.18.20.2', '198.18.20.2']] as const) {
      const acc = await accuracy(topo, target, count);
      rows.push(`| median rtt, ${label} (${acc.n_ours}/${acc.n_ping} replies, 10 ms interval) | ${f3(acc.ours)} ms | ${f3(acc.ping)} ms | ${f3(acc.ours - acc.ping)} ms | < 0.1 ms |`);
    }
    for (const [label, target] of [['veth peer', '198.18.20.2'], ['loopback', '127.0.0.1']] as const) {
      const out = await inNs(topo, [process.execPath, '--import', TSX, SELF, '--child', 'throughput', target, String(seconds), String(concurrency)]);
      const tp = JSON.parse(out) as { ok: number; failed: number; elapsed_s: number; rss_before_kb: number; peak_rss_kb: number };
      rows.push(`| single-packet pings/s, ${concurrency} concurrent, 1 core, ${label} (${tp.failed} failed) | ${Math.round(tp.ok / tp.elapsed_s)}/s | | | 2000/s |`);
      rows.push(`| peak RSS during that run (RSS before it: ${(tp.rss_before_kb / 1024).toFixed(1)} MB, node + tsx) | ${(tp.peak_rss_kb / 1024).toFixed(1)} MB | | | |`);
    }
    console.log('| measure | ours | iputils ping | difference | goal |');
    console.log('|---|---|---|---|---|');
    for (const row of rows) console.log(row);
  } finally {
    await topo.cleanup();
  }
}

const i = process.argv.indexOf('--child');
if (i > 0) {
  const [mode, target, a, b] = process.argv.slice(i + 1);
  if (mode === 'ping') await childPing(target!, Number(a), Number(b));
  else await childThroughput(target!, Number(a), Number(b));
} else {
  await main();
}
