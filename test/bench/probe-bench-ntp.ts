/*
 * NTP offset accuracy against ntpsec's ntpdig. A script, not a test: it prints Markdown figures.
 *
 *   npx tsx test/bench/probe-bench-ntp.ts [--n 5] [--offset 250]
 *
 * Two namespaces on one link (hostA 198.18.7.1, hostB 198.18.7.2). hostB runs the test NTP server
 * (node-agent test-support/ntp-server.ts) on port 123, its clock `offset` ms ahead of the machine's;
 * from hostA, `n` times and alternating which goes first: our NTP probe (4 samples) in a probe
 * worker and `ntpdig -j -p 4 -g 200` (query only: never -S or -s, the machine's clock is not
 * touched). Medians of the offsets; our delay beside ntpdig's error bound (its JSON has no delay). Needs root, iproute2 and ntpdig (Debian ntpsec-ntpdate).
 */
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { ntpParamsSchema } from '@vantage/shared-protocol';
import { createTopology } from '../netns/topology.js';
import { startProbeWorker } from '../netns/probe-worker-client.js';
import { startNtpServer } from '../../node-agent/src/probes/test-support/ntp-server.js';
import { median } from './lib/stats.js';

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const NTP = { module: new URL('../../node-agent/src/probes/ntp.ts', import.meta.url).pathname, export: 'ntpProbe' };
const SERVER = '198.18.7.2';

/** Child mode (inside hostB): the NTP server on port 123, `offset` ms ahead; prints "ready". */
async function serve(offset_ms: number): Promise<void> {
  await startNtpServer({ offset_ms, host: '0.0.0.0', port: 123 });
  process.stdout.write('ready\n');
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0));
}

async function main(): Promise<void> {
  const n = arg('n', 5);
  const offset = arg('offset', 250);
  const topo = await createTopology({
    nodes: { hostA: {}, hostB: {} },
    links: [{ a: 'hostA', b: 'hostB', a_addrs: ['198.18.7.1/24'], b_addrs: [`${SERVER}/24`] }],
  });
  try {
    const server = topo.spawn('hostB', [process.execPath, '--import', 'tsx', new URL(import.meta.url).pathname, '--serve', String(offset)], { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines = createInterface({ input: server.stdout! });
    await once(lines, 'line');
    const worker = await startProbeWorker(topo, 'hostA');
    const params = ntpParamsSchema.parse({ count: 4, interval_ms: 200, timeout_ms: 2000 });
    const ours: Array<{ offset: number; delay: number }> = [];
    const theirs: Array<{ offset: number; delay: number }> = [];
    const runOurs = async () => {
      const r = await worker.run(NTP, SERVER, params, { allow_private: true, allow_cidrs: [] });
      if (!r.success) throw new Error(`ntp probe failed: ${r.error}`);
      ours.push({ offset: r.output.offset_ms, delay: r.output.delay_ms });
    };
    const runDig = async () => {
      const r = await topo.exec('hostA', ['ntpdig', '-j', '-p', '4', '-g', '200', SERVER], { timeout_ms: 30_000 });
      if (r.code !== 0) throw new Error(`ntpdig failed: ${r.stderr}`);
      // ntpdig's JSON has the offset and its error bound ("precision"), not the delay.
      const j = JSON.parse(r.stdout.trim().split('\n').pop()!) as { offset: number; precision: number };
      theirs.push({ offset: j.offset * 1000, delay: j.precision * 1000 });
    };
    for (let i = 0; i < n; i++) {
      if (i % 2 === 0) { await runOurs(); await runDig(); } else { await runDig(); await runOurs(); }
    }
    server.stdin!.end();
    const m = (xs: Array<{ offset: number; delay: number }>, k: 'offset' | 'delay') => median(xs.map((x) => x[k]));
    const f = (x: number) => x.toFixed(3);
    process.stdout.write(`\n### NTP: server ${offset} ms ahead across one veth link, ${n} interleaved runs of 4 samples each\n\n`);
    process.stdout.write('| figure | ours | ntpdig (same run) | difference | goal |\n|---|---|---|---|---|\n');
    process.stdout.write(`| offset ms, median (true: ${offset}) | ${f(m(ours, 'offset'))} | ${f(m(theirs, 'offset'))} | ${f(m(ours, 'offset') - m(theirs, 'offset'))} ms | within 1 ms of ntpdig |\n`);
    process.stdout.write(`| delay ms, median (ntpdig: its ± error bound) | ${f(m(ours, 'delay'))} | ± ${f(m(theirs, 'delay'))} | – | – |\n`);
  } finally {
    await topo.cleanup();
  }
}

if (process.argv[2] === '--serve') await serve(Number(process.argv[3]));
else await main();
