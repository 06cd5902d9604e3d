/*
 * mtr accuracy against Debian's mtr. A script, not a test: it prints Markdown figures.
 *
 *   npx tsx test/bench/probe-bench-mtr.ts [--n 3] [--cycles 10] [--tcp 443]
 *
 * On the routed test line (test/netns/routed-line.ts: hostA, router1, silent router2, hostB) with
 * router1 rate-limiting its ICMP errors (net.ipv4.icmp_ratelimit=2000: a lossy hop), `n` times and
 * alternating which goes first: our mtr probe (ICMP, `cycles` rounds 200 ms apart) in a probe worker
 * on hostA, and `mtr --report --json -n -c <cycles> -i 0.2` in hostA's namespace, each after 13 s
 * of quiet so router1's rate limiter starts every run full. Compared: hops
 * reported (addresses), loss at each hop and avg at hostB (medians over the runs). `--tcp PORT`
 * compares TCP mode instead: SYNs to hostB's PORT (closed: hostB answers RST) against
 * `mtr --tcp -P PORT`. Needs root,
 * iproute2 and mtr (Debian mtr-tiny). Traffic stays inside the test namespaces.
 */
import { mtrParamsSchema } from '@vantage/shared-protocol';
import { createTopology } from '../netns/topology.js';
import { LINE, routedLineSpec } from '../netns/routed-line.js';
import { startProbeWorker } from '../netns/probe-worker-client.js';
import { median } from './lib/stats.js';

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
/** Time for router1's ICMP rate limiter to refill its burst (6 × 2000 ms) and a margin, ms. */
const REFILL_MS = 13_000;
const MTR = { module: new URL('../../node-agent/src/probes/mtr.ts', import.meta.url).pathname, export: 'mtrProbe' };

interface Hop { address: string | null; loss: number; avg: number | null }

async function main(): Promise<void> {
  const n = arg('n', 3);
  const cycles = arg('cycles', 10);
  const tcp_port = arg('tcp', 0);
  const spec = routedLineSpec();
  spec.commands = { ...spec.commands, router1: ['sysctl -qw net.ipv4.icmp_ratelimit=2000'] };
  const topo = await createTopology(spec);
  try {
    const worker = await startProbeWorker(topo, 'hostA');
    const mode = tcp_port ? { protocol: 'tcp', port: tcp_port } : {};
    const params = mtrParamsSchema.parse({ count: cycles, interval_ms: 200, timeout_ms: 1000, hostnames: false, ...mode });
    const mtrMode = tcp_port ? ['--tcp', '-P', String(tcp_port)] : [];
    const ours: Hop[][] = [];
    const theirs: Hop[][] = [];
    const runOurs = async () => {
      const r = await worker.run(MTR, LINE.hostB.v4, params, { allow_private: true, allow_cidrs: [] });
      ours.push(r.output.hops.map((h: { address: string | null; loss_pct: number; avg_ms: number | null }) => ({ address: h.address, loss: h.loss_pct, avg: h.avg_ms })));
    };
    const runMtr = async () => {
      const r = await topo.exec('hostA', ['mtr', '--report', '--json', '-n', ...mtrMode, '-c', String(cycles), '-i', '0.2', LINE.hostB.v4], { timeout_ms: 120_000 });
      if (r.code !== 0) throw new Error(`mtr failed: ${r.stderr}`);
      const hubs = JSON.parse(r.stdout).report.hubs as Array<{ host: string; 'Loss%': number; Avg: number; Rcv?: number }>;
      theirs.push(hubs.map((h) => ({ address: h.host === '???' ? null : h.host, loss: h['Loss%'], avg: h['Loss%'] >= 100 ? null : h.Avg })));
    };
    // router1's limiter is a token bucket per destination (burst 6, one token per 2 s): let it
    // refill before every run, so neither tool inherits the other's spent tokens.
    const refill = () => new Promise((resolve) => setTimeout(resolve, REFILL_MS));
    for (let i = 0; i < n; i++) {
      const order = i % 2 === 0 ? [runOurs, runMtr] : [runMtr, runOurs];
      for (const run of order) { await refill(); await run(); }
    }
    const path = (hops: Hop[]) => hops.map((h) => h.address ?? '???').join(' → ');
    const at = (runs: Hop[][], i: number, k: 'loss' | 'avg') => median(runs.map((hops) => hops[i]?.[k]).filter((v): v is number => typeof v === 'number'));
    const f = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '–');
    process.stdout.write(`\n### mtr${tcp_port ? ` TCP mode (port ${tcp_port})` : ''}: ${cycles} rounds 200 ms apart on the routed test line, lossy router1, ${n} interleaved runs each\n\n`);
    process.stdout.write(`| figure | ours | mtr --report${tcp_port ? ' --tcp' : ''} (same run) | difference | goal |\n|---|---|---|---|---|\n`);
    process.stdout.write(`| hops (last run) | ${path(ours.at(-1)!)} | ${path(theirs.at(-1)!)} | ${path(ours.at(-1)!) === path(theirs.at(-1)!) ? 'same' : 'differ'} | same hops |\n`);
    for (let i = 0; i < 3; i++) {
      const o = at(ours, i, 'loss');
      const m = at(theirs, i, 'loss');
      process.stdout.write(`| hop ${i + 1} loss %, median | ${f(o)} | ${f(m)} | ${f(o - m)} points | close to mtr's |\n`);
    }
    const oa = at(ours, 2, 'avg');
    const ma = at(theirs, 2, 'avg');
    process.stdout.write(`| hop 3 (hostB) avg ms, median | ${f(oa)} | ${f(ma)} | ${f(oa - ma)} ms | within 0.1 ms |\n`);
  } finally {
    await topo.cleanup();
  }
}

await main();
