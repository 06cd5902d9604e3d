/*
 * Accuracy of the node's speed test against curl. A script, not a test: it prints Markdown figures.
 *
 *   npx tsx test/bench/probe-bench-speedtest.ts [--mb 100] [--n 5]
 *
 * A child process serves `mb` MB (10^6 bytes) from memory on 127.0.0.1 (plain HTTP, content-length
 * set); this process runs, `n` times and alternating which goes first, our speed test probe
 * (download only, caps raised to 1 GiB and 120 s) and `curl -s -o /dev/null -w %{speed_download}`
 * (bytes per second over curl's total time, connect included, as ours). Medians of each, in
 * Mbit/s (10^6 bit/s). Goal: within 2 % of curl on a 100 MB transfer. Needs curl.
 */
import { execFile, spawn } from 'node:child_process';
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

/** Child mode: serve `bytes` bytes for any GET; print the port. */
async function serve(bytes: number): Promise<void> {
  const body = Buffer.alloc(bytes, 0x61);
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(bytes) });
    res.end(body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  process.stdout.write(`${JSON.stringify({ port: (server.address() as { port: number }).port })}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0));
}

async function main(): Promise<void> {
  const mb = arg('mb', 100);
  const n = arg('n', 5);
  const bytes = mb * 1_000_000;
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--serve', String(bytes)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  const { port } = JSON.parse(line.toString()) as { port: number };
  const url = `http://127.0.0.1:${port}/file`;
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
  const o = median(ours);
  const c = median(curl);
  const diff = ((o - c) / c) * 100;
  process.stdout.write(`\n### Speed test: ${mb} MB over loopback HTTP, ${n} interleaved runs each\n\n`);
  process.stdout.write('| figure | ours | curl (same run) | difference | goal |\n|---|---|---|---|---|\n');
  process.stdout.write(`| download Mbit/s, median (runs: ours ${ours.map((x) => x.toFixed(0)).join(' ')}; curl ${curl.map((x) => x.toFixed(0)).join(' ')}) | ${o.toFixed(1)} | ${c.toFixed(1)} | ${diff >= 0 ? '+' : ''}${diff.toFixed(2)} % | within 2 % of curl |\n`);
}

if (process.argv[2] === '--serve') await serve(Number(process.argv[3]));
else await main();
