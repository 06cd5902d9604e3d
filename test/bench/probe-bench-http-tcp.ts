/*
 * Benchmark of the node's HTTP and TCP probes. A script, not a test: it prints figures.
 *
 *   npx tsx test/bench/probe-bench-http-tcp.ts [--n 50] [--seconds 5] [--concurrency 50]
 *
 * The servers run in a child process pinned to CPU 1 (taskset), the probes in this process pinned
 * to CPU 0, so "one core" means the probe side. Traffic stays on 127.0.0.1.
 * 1. Accuracy: our HTTP first-byte time (dns+tcp+tls+ttfb) and total against
 *    `curl -w '%{time_starttransfer} %{time_total}'` on a server that waits 50 ms; N each,
 *    interleaved, medians and the difference.
 * 2. Throughput: small HTTP GETs and TCP connects per second with `concurrency` tasks running
 *    the probes in-process for `seconds` each, and the peak RSS.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { httpParamsSchema, tcpParamsSchema } from '@vantage/shared-protocol';
import { httpProbe } from '../../node-agent/src/probes/http.js';
import { measureHttp } from '../../node-agent/src/probes/http/measure.js';
import { tcpProbe } from '../../node-agent/src/probes/tcp.js';
import type { TargetPolicy } from '../../node-agent/src/probes/target-policy.js';
import { startHttpServer } from '../../node-agent/src/probes/test-support/http-server.js';
import { silentLogger } from '../../node-agent/src/probes/test-support/logger.js';
import { throughput } from './lib/throughput.js';
import { median } from './lib/stats.js';

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const ALLOW: TargetPolicy = { allow_private: true, allow_cidrs: [] };

async function serve(): Promise<void> {
  const httpSrv = await startHttpServer();
  const tcpSrv = net.createServer((c) => c.destroy());
  tcpSrv.listen(0, '127.0.0.1');
  await once(tcpSrv, 'listening');
  process.stdout.write(`${JSON.stringify({ http: httpSrv.origin, tcp_port: (tcpSrv.address() as net.AddressInfo).port })}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0)); // parent gone: stop
}

const f2 = (x: number) => x.toFixed(2);
const f3 = (x: number) => x.toFixed(3);

async function accuracy(origin: string, n: number) {
  const run = promisify(execFile);
  const url = `${origin}/slow?ms=50`;
  const params = httpParamsSchema.parse({});
  const signal = new AbortController().signal;
  const ours = { fb: [] as number[], total: [] as number[] };
  const curl = { fb: [] as number[], total: [] as number[] };
  const raw = { fb: [] as number[], total: [] as number[] };
  const target = new URL(url);
  for (let i = 0; i < n; i++) {
    const m = await measureHttp(url, params, ALLOW, signal);
    if (m.failure || !m.phases) throw new Error(`probe failed: ${m.failure?.error}`);
    ours.fb.push(m.phases.dns_ms + m.phases.tcp_ms + m.phases.tls_ms + m.phases.ttfb_ms);
    ours.total.push(m.total_ms);
    const { stdout } = await run('curl', ['-s', '-o', '/dev/null', '-w', '%{time_starttransfer} %{time_total}', url]);
    const [fb, total] = stdout.trim().split(' ').map((s) => Number(s) * 1000);
    curl.fb.push(fb!);
    curl.total.push(total!);
    const r = await rawGet(target);
    raw.fb.push(r.fb);
    raw.total.push(r.total);
  }
  const med = (x: { fb: number[]; total: number[] }) => ({ fb: median(x.fb), total: median(x.total) });
  return { ours: med(ours), curl: med(curl), raw: med(raw) };
}

/** Node's floor: the same GET on a bare net.Socket (connect, write, first data, end). */
function rawGet(url: URL): Promise<{ fb: number; total: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let fb = 0;
    const s = net.connect({ host: url.hostname, port: Number(url.port) }, () => {
      s.write(`GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nConnection: close\r\n\r\n`);
    });
    s.on('data', () => { fb ||= performance.now() - t0; });
    s.on('end', () => { resolve({ fb, total: performance.now() - t0 }); s.destroy(); });
    s.on('error', reject);
  });
}

async function main(): Promise<void> {
  if (process.argv[2] === 'serve') return serve();
  const n = arg('n', 50);
  const seconds = arg('seconds', 5);
  const concurrency = arg('concurrency', 50);
  const self = fileURLToPath(import.meta.url);
  execFileSync('taskset', ['-a', '-pc', '0', String(process.pid)], { stdio: 'ignore' }); // all threads of this process
  const child = spawn('taskset', ['-c', '1', process.execPath, ...process.execArgv, self, 'serve'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  const { http, tcp_port } = JSON.parse(line.toString()) as { http: string; tcp_port: number };
  try {
    const acc = await accuracy(http, n);
    const log = silentLogger();
    const ctx = () => ({ signal: new AbortController().signal, policy: ALLOW, log }); // one signal per check, as the runner does
    const hp = httpParamsSchema.parse({});
    const tp = tcpParamsSchema.parse({});
    const rssBefore = process.memoryUsage().rss / 1048576;
    const httpRun = await throughput(seconds, concurrency, async () => (await httpProbe.run(`${http}/ok`, hp, ctx())).success);
    const tcpRun = await throughput(seconds, concurrency, async () => (await tcpProbe.run(`127.0.0.1:${tcp_port}`, tp, ctx())).success);
    const rows = [
      ['HTTP first byte vs curl time_starttransfer (ms, median)', f3(acc.ours.fb), f3(acc.curl.fb), f3(acc.ours.fb - acc.curl.fb), '|diff| < 1'],
      ['HTTP total vs curl time_total (ms, median)', f3(acc.ours.total), f3(acc.curl.total), f3(acc.ours.total - acc.curl.total), '|diff| < 1'],
      ['reference: bare net.Socket GET first byte / total vs curl (ms, median)', `${f3(acc.raw.fb)} / ${f3(acc.raw.total)}`, `${f3(acc.curl.fb)} / ${f3(acc.curl.total)}`, `${f3(acc.raw.fb - acc.curl.fb)} / ${f3(acc.raw.total - acc.curl.total)}`, ''],
      [`HTTP GET /ok per second (${concurrency} tasks, ${seconds} s)`, f2(httpRun.per_s), '', `${httpRun.failed} failed`, '≥ 1000'],
      [`TCP connects per second (${concurrency} tasks, ${seconds} s)`, f2(tcpRun.per_s), '', `${tcpRun.failed} failed`, '≥ 2000'],
      ['RSS before / peak during throughput (MiB)', f2(rssBefore), f2(Math.max(httpRun.peak_rss_mib, tcpRun.peak_rss_mib)), '', ''],
      ['process maxRSS (MiB)', f2(process.resourceUsage().maxRSS / 1024), '', '', ''],
    ];
    console.log(`\nProbe benchmark: HTTP and TCP (node ${process.version}, N=${n}, server waits 50 ms for accuracy)\n`);
    console.log('| measure | ours | curl / peak | difference | goal |');
    console.log('|---|---|---|---|---|');
    for (const r of rows) console.log(`| ${r.join(' | ')} |`);
  } finally {
    child.stdin!.end();
    child.kill();
  }
}

await main();
