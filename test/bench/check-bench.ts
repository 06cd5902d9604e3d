/*
 * Benchmark of the node's monitor checks. A script, not a test: it prints figures.
 *
 *   npx tsx test/bench/check-bench.ts [--seconds 5] [--concurrency 20]
 *
 * Servers (HTTP, HTTPS with a test-CA certificate, TCP, DNS) run in a child process pinned to
 * CPU 1, the checks in this process pinned to CPU 0, so the figures are checks per second on one
 * core, each run the way the agent runs it (config parsed with its schema, through the check
 * runner, assertions evaluated). Ping goes to 127.0.0.1 (needs root or CAP_NET_RAW). Then the
 * cost of a catastrophic regular expression: JavaScript's backtracking RegExp against RE2 (re2js).
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import { MONITOR_CONFIGS, compileRegex, httpParamsSchema, newId, type NodeCheckType } from '@vantage/shared-protocol';
import { createPatternSandbox } from '../../node-agent/src/checks/assertions/sandbox.js';
import { createChecks } from '../../node-agent/src/checks/registry.js';
import { runMonitorCheckWith } from '../../node-agent/src/checks/runner.js';
import { createDnsProbe } from '../../node-agent/src/probes/dns.js';
import { httpProbe } from '../../node-agent/src/probes/http.js';
import { makeTestPki } from '../../node-agent/src/probes/test-support/certs.js';
import { startDnsServer } from '../../node-agent/src/probes/test-support/dns-server.js';
import { startHttpServer } from '../../node-agent/src/probes/test-support/http-server.js';
import { silentLogger } from '../../node-agent/src/probes/test-support/logger.js';
import { throughput } from './lib/throughput.js';

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};

async function serve(): Promise<void> {
  const pki = await makeTestPki();
  const httpSrv = await startHttpServer();
  const httpsSrv = await startHttpServer({ tls: pki.leaf });
  const dns = await startDnsServer();
  const tcpSrv = net.createServer((c) => c.destroy());
  tcpSrv.listen(0, '127.0.0.1');
  await once(tcpSrv, 'listening');
  process.stdout.write(`${JSON.stringify({ http: httpSrv.origin, https_port: httpsSrv.port, dns_port: dns.port, tcp_port: (tcpSrv.address() as net.AddressInfo).port, ca: pki.ca.cert })}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0)); // parent gone: stop
}

function timeIt(fn: () => unknown): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

async function main(): Promise<void> {
  if (process.argv[2] === 'serve') return serve();
  const seconds = arg('seconds', 5);
  const concurrency = arg('concurrency', 20);
  const self = fileURLToPath(import.meta.url);
  execFileSync('taskset', ['-a', '-pc', '0', String(process.pid)], { stdio: 'ignore' });
  const child = spawn('taskset', ['-c', '1', process.execPath, ...process.execArgv, self, 'serve'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  const s = JSON.parse(line.toString()) as { http: string; https_port: number; dns_port: number; tcp_port: number; ca: string };
  const sandbox = createPatternSandbox();
  const checks = createChecks({ ca: s.ca, sandbox, dns: createDnsProbe({ systemServer: async () => ({ address: '127.0.0.1', port: s.dns_port }) }) });
  const log = silentLogger();
  const policy = { allow_private: true, allow_cidrs: [] };
  const cases: Array<[string, NodeCheckType, string, unknown]> = [
    ['http GET /echo, 3 assertions (status, json_path, header)', 'http', `${s.http}/echo`, {
      assertions: [{ type: 'status_code', op: 'eq', value: 200 }, { type: 'json_path', path: '$.method', op: 'eq', value: 'GET' }, { type: 'header_value', header: 'content-type', op: 'contains', value: 'json' }],
    }],
    ['ping 127.0.0.1, count 1', 'ping', '127.0.0.1', { count: 1 }],
    ['dns A example.test, 2 expected values', 'dns', 'example.test', { server: `127.0.0.1:${s.dns_port}`, expected_values: ['198.18.0.10', '198.18.0.11'] }],
    ['tcp connect', 'tcp', `127.0.0.1:${s.tcp_port}`, {}],
    ['ssl_expiry (TLS 1.3 handshake, chain and name)', 'ssl_expiry', `localhost:${s.https_port}`, {}],
  ];
  const rows: string[][] = [];
  const loadBefore = os.loadavg().map((x) => x.toFixed(2)).join(' ');
  try {
    for (const [what, type, target, raw] of cases) {
      const run = { monitor_id: newId('monitor'), check: { type, target, config: MONITOR_CONFIGS[type].parse(raw) } as never };
      const one = async () => (await runMonitorCheckWith(checks, run, new Date().toISOString(), { timeout_ms: 10_000, policy, log })).success;
      await throughput(1, concurrency, one); // warm-up (JIT, TLS session setup), not counted
      const got = await throughput(seconds, concurrency, one);
      rows.push([type, what, got.per_s.toFixed(0), String(got.failed), got.peak_rss_mib.toFixed(0)]);
    }
    // Reference under the same load: the bare HTTP probe (no body kept, no assertions, no runner).
    const params = httpParamsSchema.parse({});
    const probeCtx = () => ({ signal: new AbortController().signal, policy, log });
    const probeOnce = async () => (await httpProbe.run(`${s.http}/echo`, params, probeCtx())).success;
    await throughput(1, concurrency, probeOnce);
    const ref = await throughput(seconds, concurrency, probeOnce);
    rows.push(['(reference)', 'the HTTP probe alone, same request', ref.per_s.toFixed(0), String(ref.failed), ref.peak_rss_mib.toFixed(0)]);
  } finally {
    child.stdin!.end();
    child.kill();
  }
  console.log(`load average before: ${loadBefore}`);
  console.log(`\nCheck benchmark: checks per second on one core (node ${process.version}, ${concurrency} concurrent, ${seconds} s each)\n`);
  console.log('| check | what | checks/s | failed | peak RSS MiB |');
  console.log('|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);

  // Catastrophic backtracking: `(a+)+$` on n a's followed by '!'.
  const bad = /(a+)+$/;
  const re2 = compileRegex('(a+)+$');
  const js = [22, 24, 26].map((n) => [n, timeIt(() => bad.test(`${'a'.repeat(n)}!`))] as const);
  const mib = `${'a'.repeat(1024 * 1024)}!`;
  console.log('\n| `(a+)+$` on n a\'s + "!" | JavaScript RegExp (ms) | RE2 / re2js (ms) |');
  console.log('|---|---|---|');
  for (const [n, ms] of js) console.log(`| n = ${n} | ${ms.toFixed(1)} | ${timeIt(() => re2.test(`${'a'.repeat(n)}!`)).toFixed(3)} |`);
  console.log(`| n = 1 MiB | (does not finish) | ${timeIt(() => re2.test(mib)).toFixed(1)} |`);
  const worst = await (async () => {
    let body = '';
    for (let i = 0; i < 1024 * 1024; i++) body += Math.random() < 0.5 ? 'a' : 'b';
    const t0 = performance.now();
    const r = await sandbox.regex('[ab]*a[ab]{100}[^ab]', body);
    return { ms: performance.now() - t0, r };
  })();
  console.log(`| RE2 worst case (DFA gives way to NFA): \`[ab]*a[ab]{100}[^ab]\` on 1 MiB of a/b, in the worker | | ${worst.ms.toFixed(0)} (${worst.r.ok ? 'finished' : worst.r.error}) |`);
  await sandbox.close();
}

await main();
