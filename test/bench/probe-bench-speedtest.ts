/*
 * Accuracy of the node's speed test against curl. A script, not a test: it prints Markdown figures.
 *
 *   npx tsx test/bench/probe-bench-speedtest.ts [--mb 100] [--n 5] [--rate-mbit 1000]
 *
 * A child process serves `mb` MB (10^6 bytes) from memory (plain HTTP, content-length set); this
 * process runs, `n` times and alternating which goes first, our speed test probe (download only,
 * caps raised to 1 GiB and 120 s) and `curl -s -o /dev/null -w %{speed_download}` (bytes per
 * second over curl's total time, connect included, as ours). Medians of each, in Mbit/s (10^6
 * bit/s). Goal: within 2 % of curl on a 100 MB transfer. Needs curl.
 *
 * Two links, one row each:
 * - loopback (127.0.0.1): nothing limits the transfer but the CPU, so the figure compares how fast
 *   each client reads (on 2 shared cores the runs spread widely);
 * - a shaped link (root and --rate-mbit > 0 only; 0 skips it): the server runs in a network
 *   namespace of its own behind a veth pair whose namespace end sends through a token bucket
 *   (`tc qdisc … tbf rate <rate-mbit>mbit`), so the link, not the CPU, sets the rate, and the
 *   difference between the two clients is the measurement's own error: the accuracy the goal means.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import http from 'node:http';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { speedtestParamsSchema } from '@vantage/shared-protocol';
import { createSpeedtestProbe } from '../../node-agent/src/probes/speedtest.js';
import type { TargetPolicy } from '../../node-agent/src/probes/target-policy.js';
import { silentLogger } from '../../node-agent/src/probes/test-support/logger.js';
import { median } from './lib/stats.js';

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const ALLOW: TargetPolicy = { allow_private: true, allow_cidrs: [] };

/** Child mode: serve `bytes` bytes for any GET on `host`; print the port. */
async function serve(bytes: number, host: string): Promise<void> {
  const body = Buffer.alloc(bytes, 0x61);
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(bytes) });
    res.end(body);
  });
  server.listen(0, host);
  await once(server, 'listening');
  process.stdout.write(`${JSON.stringify({ port: (server.address() as { port: number }).port })}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0));
}

const NS = 'vspeed';
const ROOT_END = { dev: 'vsp0', address: '198.19.250.1' };
const NS_END = { dev: 'vsp1', address: '198.19.250.2' };

/** The shaped link: namespace NS with veth NS_END, its egress limited to `rate_mbit`; returns the teardown. */
function shapedLink(rate_mbit: number): () => void {
  const ip = (...argv: string[]) => execFileSync('ip', argv, { stdio: 'ignore' });
  const teardown = () => { try { ip('netns', 'del', NS); } catch { /* already gone */ } };
  teardown();
  ip('netns', 'add', NS);
  ip('link', 'add', ROOT_END.dev, 'type', 'veth', 'peer', 'name', NS_END.dev, 'netns', NS);
  ip('addr', 'add', `${ROOT_END.address}/30`, 'dev', ROOT_END.dev);
  ip('link', 'set', ROOT_END.dev, 'up');
  ip('-n', NS, 'addr', 'add', `${NS_END.address}/30`, 'dev', NS_END.dev);
  ip('-n', NS, 'link', 'set', NS_END.dev, 'up');
  ip('-n', NS, 'link', 'set', 'lo', 'up');
  execFileSync('ip', ['netns', 'exec', NS, 'tc', 'qdisc', 'add', 'dev', NS_END.dev, 'root', 'tbf', 'rate', `${rate_mbit}mbit`, 'burst', '1mb', 'latency', '50ms'], { stdio: 'inherit' });
  return teardown;
}

/** Our probe and curl, `n` interleaved runs each after one warm-up of both, against `bytes` served at `host` (in namespace `ns` when given). */
async function pair(bytes: number, n: number, host: string, ns?: string): Promise<{ ours: number[]; curl: number[] }> {
  const serve_argv = [process.execPath, ...process.execArgv, fileURLToPath(import.meta.url), '--serve', String(bytes), host];
  const child = ns ? spawn('ip', ['netns', 'exec', ns, ...serve_argv], { stdio: ['pipe', 'pipe', 'inherit'] }) : spawn(serve_argv[0]!, serve_argv.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  const { port } = JSON.parse(line.toString()) as { port: number };
  const url = `http://${host}:${port}/file`;
  const probe = createSpeedtestProbe({ max_bytes: 1024 ** 3, max_duration_ms: 120_000 });
  const params = speedtestParamsSchema.parse({ timeout_ms: 120_000 });
  const ctx = { signal: new AbortController().signal, policy: ALLOW, log: silentLogger() };

  const ours: number[] = [];
  const curl: number[] = [];
  const runOurs = async () => {
    const r = await probe.run(url, params, ctx);
    if (!r.success || r.output.bytes !== bytes) throw new Error(`speed test failed: ${r.error} (${r.output.bytes} bytes)`);
    ours.push(r.output.download_mbps!);
  };
  const runCurl = async () => {
    const { stdout } = await promisify(execFile)('curl', ['-s', '-o', '/dev/null', '-w', '%{speed_download}', url]);
    curl.push((Number(stdout) * 8) / 1e6);
  };
  await runOurs(); // warm-up of both, not counted
  await runCurl();
  ours.length = 0;
  curl.length = 0;
  for (let i = 0; i < n; i++) {
    if (i % 2 === 0) { await runOurs(); await runCurl(); } else { await runCurl(); await runOurs(); }
  }
  child.stdin!.end();
  return { ours, curl };
}

function row(what: string, r: { ours: number[]; curl: number[] }): string {
  const o = median(r.ours);
  const c = median(r.curl);
  const diff = ((o - c) / c) * 100;
  return `| ${what}, download Mbit/s, median (runs: ours ${r.ours.map((x) => x.toFixed(0)).join(' ')}; curl ${r.curl.map((x) => x.toFixed(0)).join(' ')}) | ${o.toFixed(1)} | ${c.toFixed(1)} | ${diff >= 0 ? '+' : ''}${diff.toFixed(2)} % | within 2 % of curl |\n`;
}

async function main(): Promise<void> {
  const mb = arg('mb', 100);
  const n = arg('n', 5);
  const rate_mbit = arg('rate-mbit', 1000);
  const bytes = mb * 1_000_000;
  const rows = [row('loopback (CPU-bound)', await pair(bytes, n, '127.0.0.1'))];
  const can_shape = rate_mbit > 0 && process.getuid?.() === 0;
  if (can_shape) {
    const teardown = shapedLink(rate_mbit);
    try {
      rows.push(row(`link shaped to ${rate_mbit} Mbit/s (network namespace, tc tbf)`, await pair(bytes, n, NS_END.address, NS)));
    } finally {
      teardown();
    }
  }
  process.stdout.write(`\n### Speed test: ${mb} MB over HTTP, ${n} interleaved runs each\n\n`);
  process.stdout.write('| figure | ours | curl (same run) | difference | goal |\n|---|---|---|---|---|\n');
  for (const r of rows) process.stdout.write(r);
  if (!can_shape) process.stdout.write(`\nThe shaped link was skipped (${rate_mbit > 0 ? 'needs root for network namespaces' : '--rate-mbit 0'}).\n`);
}

if (process.argv[2] === '--serve') await serve(Number(process.argv[3]), process.argv[4] ?? '127.0.0.1');
else await main();
