/*
 * Probe timing precision against the reference tools on a routed namespace network. A script,
 * not a test: it prints one Markdown table.
 *
 *   npx tsx test/bench/probe-bench-timing.ts [--n 90] [--warmup 3] [--busy-n 30]
 *
 * Needs root, iproute2, taskset, openssl, curl, iputils ping and traceroute(8). The network is
 * three namespaces, one router between two hosts:
 *
 *   client 198.18.40.2 ── 198.18.40.1 router 198.18.41.1 ── 198.18.41.2 target
 *
 * The target (pinned to CPU 1) serves HTTP on :80 and HTTPS on :443 (`/slow?ms=N` answers after
 * N ms, `/bytes?n=N` sends N bytes with a Content-Length; certificate for the target's IP from a
 * CA made with openssl for this run) and DNS on :53 (test-support/dns-server.ts). In the client
 * (pinned to CPU 0) one long-lived worker process runs our probes, as an agent would, and the
 * reference tools run as separate processes in the same namespace. Every figure is N pairs
 * (ours, reference) run back to back, the order alternating, after `warmup` unrecorded pairs;
 * the figure is the median of the paired differences (lib/paired.ts):
 *
 * - HTTP 1 MB body and a page answered after 50 ms: our `response_ms` before rounding vs curl
 *   `%{time_total}` (the API's integer is printed beside it);
 * - HTTPS `tcp_ms` vs curl `%{time_connect}` (no name to resolve: both are connect only);
 * - DNS `query_ms` vs a bare connected dgram socket in the same worker, timed send → reply;
 * - ping: `rtt_avg_ms` of 5 echoes 20 ms apart vs iputils `ping -c 5 -i 0.02`;
 * - UDP traceroute: mean hop rtt of a run (router and target, 3 probes each) vs traceroute(8)'s.
 *
 * Then the same figures with `busy-n` pairs on a busy node: a second worker whose event loop is
 * kept busy 2 ms out of every 5 (what other checks, the outbox and the connection do to an
 * agent), so the figures show how much of the loop's delay reaches the measurement. 0 skips it.
 */
import { execFile } from 'node:child_process';
import dgram from 'node:dgram';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { dnsParamsSchema, httpParamsSchema, pingParamsSchema, tracerouteParamsSchema } from '@vantage/shared-protocol';
import { createTopology, type Topology } from '../netns/topology.js';
import { pairs, type PairedFigure } from './lib/paired.js';

const SELF = fileURLToPath(import.meta.url);
const TSX = import.meta.resolve('tsx');
const CLIENT = '198.18.40.2';
const TARGET = '198.18.41.2';
const ONE_MB = 1024 * 1024;
const POLICY = { allow_private: true, allow_cidrs: ['198.18.0.0/15'] };

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const argText = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : '';
};

/** Target mode: HTTP :80, HTTPS :443, DNS :53 on TARGET; prints `ready`. */
async function serve(): Promise<void> {
  const { startDnsServer } = await import('../../node-agent/src/probes/test-support/dns-server.js');
  const body = Buffer.alloc(ONE_MB * 4, 0x61);
  const handler: http.RequestListener = (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/slow') {
      const timer = setTimeout(() => res.end('slow'), Number(url.searchParams.get('ms') ?? '50'));
      res.on('close', () => clearTimeout(timer));
    } else if (url.pathname === '/bytes') {
      const n = Math.min(body.length, Number(url.searchParams.get('n') ?? '0'));
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': n });
      res.end(body.subarray(0, n));
    } else {
      res.end('ok');
    }
  };
  const plain = http.createServer(handler);
  const tls = https.createServer({ cert: readFileSync(argText('cert')), key: readFileSync(argText('key')) }, handler);
  plain.listen(80, TARGET);
  tls.listen(443, TARGET);
  await Promise.all([once(plain, 'listening'), once(tls, 'listening'), startDnsServer({ host: TARGET, port: 53 })]);
  process.stdout.write('ready\n');
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0));
}

/** Keep the thread busy for `ms`. */
const block = (ms: number) => { const until = performance.now() + ms; while (performance.now() < until); };

/** Worker mode (client namespace): one JSON request per stdin line, one JSON answer per stdout line. */
async function worker(): Promise<void> {
  if (process.argv.includes('--busy')) setInterval(() => block(2), 5);
  const { measureHttp } = await import('../../node-agent/src/probes/http/measure.js');
  const { toHttpOutput } = await import('../../node-agent/src/probes/http.js');
  const { dnsProbe } = await import('../../node-agent/src/probes/dns.js');
  const { pingProbe } = await import('../../node-agent/src/probes/ping.js');
  const { tracerouteProbe } = await import('../../node-agent/src/probes/traceroute.js');
  const { buildQuery, matchReply } = await import('../../node-agent/src/probes/dns/query.js');
  const { silentLogger } = await import('../../node-agent/src/probes/test-support/logger.js');
  const log = silentLogger();
  const ca = readFileSync(argText('ca'), 'utf8');
  const ctx = () => ({ signal: new AbortController().signal, policy: POLICY, log });
  const rawSocket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => rawSocket.connect(53, TARGET, () => resolve()));

  /** A bare query on a socket connected beforehand: performance.now() before send and at the reply. */
  const rawDns = () => new Promise<number>((resolve) => {
    const query = buildQuery('example.test', 'A');
    let t0 = 0;
    const onMessage = (msg: Buffer) => {
      const ms = performance.now() - t0;
      if (!matchReply(query, msg)) return;
      rawSocket.off('message', onMessage);
      resolve(ms);
    };
    rawSocket.on('message', onMessage);
    t0 = performance.now();
    rawSocket.send(query.wire);
  });

  const ops: Record<string, (req: any) => Promise<unknown>> = {
    async http(req) {
      const m = await measureHttp(req.url, httpParamsSchema.parse({}), POLICY, new AbortController().signal, { ca });
      if (m.failure) throw new Error(m.failure.error);
      const out = toHttpOutput(m);
      return { total_ms: m.total_ms, tcp_ms: m.phases!.tcp_ms, response_ms: out.response_ms, tcp_ms_int: out.timing!.tcp_ms };
    },
    async dns() {
      const r = await dnsProbe.run('example.test', dnsParamsSchema.parse({ server: TARGET }), ctx());
      if (!r.success) throw new Error(r.error ?? 'dns failed');
      return { query_ms: r.output.query_ms };
    },
    async raw_dns() {
      return { query_ms: await rawDns() };
    },
    async ping(req) {
      const r = await pingProbe.run(TARGET, pingParamsSchema.parse({ count: req.count, interval_ms: req.interval_ms, timeout_ms: 1000 }), ctx());
      return { avg_ms: r.output.packets_received === req.count ? r.output.rtt_avg_ms : null };
    },
    async traceroute() {
      const r = await tracerouteProbe.run(TARGET, tracerouteParamsSchema.parse({ protocol: 'udp', timeout_ms: 1000 }), ctx());
      if (!r.output.destination_reached) return { rtts: null };
      return { rtts: r.output.hops.flatMap((h) => h.rtts_ms) };
    },
  };
  const write = (msg: unknown) => process.stdout.write(`${JSON.stringify(msg)}\n`);
  createInterface({ input: process.stdin }).on('line', (line) => {
    const req = JSON.parse(line) as { id: number; op: string };
    ops[req.op]!(req).then((result) => write({ id: req.id, result }), (err: Error) => write({ id: req.id, error: err.message }));
  }).on('close', () => process.exit(0));
  write({ ready: true });
}

/** The client's worker: `call(op, fields)` resolves with its answer. */
async function startWorker(topo: Topology, ca: string, busy: boolean): Promise<{ call: (op: string, fields?: object) => Promise<any>; stop: () => void }> {
  const child = topo.spawn('client', ['taskset', '-c', '0', process.execPath, '--import', TSX, SELF, '--worker', '--ca', ca, ...(busy ? ['--busy'] : [])], { stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting = new Map<number, (msg: { result?: unknown; error?: string }) => void>();
  let ready!: () => void;
  const readyP = new Promise<void>((resolve) => { ready = resolve; });
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const msg = JSON.parse(line) as { ready?: boolean; id?: number; result?: unknown; error?: string };
    if (msg.ready) return ready();
    waiting.get(msg.id!)?.(msg);
    waiting.delete(msg.id!);
  });
  child.once('exit', (code) => { if (waiting.size) process.stderr.write(`worker exited ${code}\n`); });
  await readyP;
  let next = 1;
  return {
    call: (op, fields = {}) => new Promise((resolve, reject) => {
      const id = next++;
      waiting.set(id, (msg) => (msg.error !== undefined ? reject(new Error(`${op}: ${msg.error}`)) : resolve(msg.result)));
      child.stdin!.write(`${JSON.stringify({ id, op, ...fields })}\n`);
    }),
    stop: () => child.stdin!.end(),
  };
}

const run = promisify(execFile);

/** Run a reference tool in the client namespace on CPU 0; resolves its stdout. */
async function tool(topo: Topology, argv: string[]): Promise<string> {
  return (await run('ip', ['netns', 'exec', topo.ns('client'), 'taskset', '-c', '0', ...argv], { maxBuffer: 1 << 20 })).stdout;
}

/** A CA and a leaf for TARGET, made with openssl in `dir`. */
async function makePki(dir: string): Promise<{ ca: string; cert: string; key: string }> {
  const p = (f: string) => join(dir, f);
  const ossl = (args: string[]) => run('openssl', args);
  await ossl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2', '-subj', '/CN=Vantage bench CA', '-keyout', p('ca.key'), '-out', p('ca.pem')]);
  await ossl(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', `/CN=${TARGET}`, '-keyout', p('leaf.key'), '-out', p('leaf.csr')]);
  await run('sh', ['-c', `printf 'subjectAltName=IP:${TARGET}\\nbasicConstraints=CA:FALSE\\n' > ${p('ext.cnf')}`]);
  await ossl(['x509', '-req', '-in', p('leaf.csr'), '-CA', p('ca.pem'), '-CAkey', p('ca.key'), '-CAcreateserial', '-days', '2', '-extfile', p('ext.cnf'), '-out', p('leaf.pem')]);
  return { ca: p('ca.pem'), cert: p('leaf.pem'), key: p('leaf.key') };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const f3 = (x: number) => x.toFixed(3);

/**
 * Every figure of the table, `n` pairs each, through the worker `call`; returns the table rows,
 * labels ending with `tag`.
 */
async function measureAll(call: (op: string, fields?: object) => Promise<any>, curl: (url: string, field: string) => Promise<number>, tool: (argv: string[]) => Promise<string>, n: number, warmup: number, tag: string): Promise<string[]> {
  const ints: Record<string, number[]> = { mb: [], slow: [], tls: [] };
  const httpOurs = (url: string, key: string, pick: 'total_ms' | 'tcp_ms') => async () => {
    const r = await call('http', { url });
    ints[key]!.push(pick === 'total_ms' ? r.response_ms : r.tcp_ms_int);
    return r[pick] as number;
  };
  const mbUrl = `http://${TARGET}/bytes?n=${ONE_MB}`;
  const slowUrl = `http://${TARGET}/slow?ms=50`;
  const tlsUrl = `https://${TARGET}/bytes?n=100`;
  const figures: Array<{ label: string; fig: PairedFigure; reference: string; goal: number; note?: string }> = [];
  const progress = (label: string) => process.stderr.write(`timing bench: ${label}${tag}\n`);

  progress('HTTP 1 MB');
  figures.push({ label: 'HTTP 1 MB body: response_ms vs curl time_total', reference: 'curl', goal: 1,
    fig: await pairs(n, warmup, httpOurs(mbUrl, 'mb', 'total_ms'), () => curl(mbUrl, 'time_total')) });
  progress('HTTP 50 ms page');
  figures.push({ label: 'HTTP 50 ms page: response_ms vs curl time_total', reference: 'curl', goal: 1,
    fig: await pairs(n, warmup, httpOurs(slowUrl, 'slow', 'total_ms'), () => curl(slowUrl, 'time_total')) });
  progress('HTTPS tcp_ms');
  figures.push({ label: 'HTTPS tcp_ms vs curl time_connect', reference: 'curl', goal: 0.3,
    fig: await pairs(n, warmup, httpOurs(tlsUrl, 'tls', 'tcp_ms'), () => curl(tlsUrl, 'time_connect')) });
  progress('DNS');
  figures.push({ label: 'DNS query_ms (UDP, A) vs a bare dgram socket timer', reference: 'bare socket', goal: 0.2,
    fig: await pairs(n, warmup, async () => (await call('dns')).query_ms, async () => (await call('raw_dns')).query_ms) });
  progress('ping');
  figures.push({ label: 'ping rtt avg (5 echoes, 20 ms apart) vs iputils ping', reference: 'iputils ping', goal: 0.03,
    fig: await pairs(n, warmup, async () => (await call('ping', { count: 5, interval_ms: 20 })).avg_ms, async () => {
      const out = await tool(['ping', '-n', '-q', '-c', '5', '-i', '0.02', '-W', '1', TARGET]);
      const m = /= [\d.]+\/([\d.]+)\//.exec(out);
      return m ? Number(m[1]) : null;
    }) });
  progress('traceroute');
  figures.push({ label: 'UDP traceroute hop rtt (mean of a run, 2 hops × 3) vs traceroute(8)', reference: 'traceroute', goal: 0.05,
    fig: await pairs(n, warmup, async () => {
      const { rtts } = await call('traceroute') as { rtts: (number | null)[] | null };
      const got = rtts?.filter((x): x is number => x !== null) ?? [];
      return got.length === 6 ? mean(got) : null;
    }, async () => {
      const out = await tool(['traceroute', '-n', '-w', '1', '-q', '3', TARGET]);
      const got = [...out.matchAll(/([\d.]+) ms/g)].map((m) => Number(m[1]));
      return got.length === 6 ? mean(got) : null;
    }) });

  const medianInt = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  return figures.map(({ label, fig, reference, goal }) => {
    const key = label.startsWith('HTTP 1 MB') ? 'mb' : label.startsWith('HTTP 50') ? 'slow' : label.startsWith('HTTPS') ? 'tls' : null;
    const api = key ? ` (API integer ${medianInt(ints[key]!.slice(warmup))})` : '';
    const ok = Math.abs(fig.diff_median) <= goal ? 'met' : 'NOT met';
    const dropped = fig.dropped.ours + fig.dropped.reference ? ` (pairs without an answer: ours ${fig.dropped.ours}, ${reference} ${fig.dropped.reference})` : '';
    return `| ${label}${tag}, N=${fig.n}${dropped} | ${f3(fig.ours_median)}${api} | ${reference} ${f3(fig.reference_median)} | ${fig.diff_median >= 0 ? '+' : ''}${f3(fig.diff_median)} | within ${goal} (${ok}) |`;
  });
}

async function main(): Promise<void> {
  const n = arg('n', 90);
  const warmup = arg('warmup', 3);
  const busyN = arg('busy-n', 30);
  const dir = mkdtempSync(join(tmpdir(), 'timing-bench-'));
  const topo = await createTopology({
    nodes: { client: {}, router: { router: true }, target: {} },
    links: [
      { a: 'client', b: 'router', a_addrs: [`${CLIENT}/24`], b_addrs: ['198.18.40.1/24'] },
      { a: 'router', b: 'target', a_addrs: ['198.18.41.1/24'], b_addrs: [`${TARGET}/24`] },
    ],
    routes: { client: ['default via 198.18.40.1'], target: ['default via 198.18.41.1'] },
  });
  try {
    const pki = await makePki(dir);
    const server = topo.spawn('target', ['taskset', '-c', '1', process.execPath, '--import', TSX, SELF, '--serve', '--cert', pki.cert, '--key', pki.key], { stdio: ['pipe', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      server.stdout!.on('data', (c: Buffer) => { if (c.toString().includes('ready')) resolve(); });
      server.once('exit', (code) => reject(new Error(`target server exited ${code}`)));
    });
    const curl = async (url: string, field: string) => {
      const out = await tool(topo, ['curl', '-s', '-o', '/dev/null', '--cacert', pki.ca, '-w', `%{${field}}`, url]);
      return Number(out.trim()) * 1000;
    };
    const rows: string[] = [];
    for (const [busy, count] of [[false, n], [true, busyN]] as const) {
      if (count <= 0) continue;
      const worker = await startWorker(topo, pki.ca, busy);
      try {
        rows.push(...await measureAll(worker.call, curl, (argv) => tool(topo, argv), count, warmup, busy ? ' (busy node)' : ''));
      } finally {
        worker.stop();
      }
    }
    console.log(`\nProbe timing vs reference tools (routed namespaces client → router → target; N pairs each, interleaved, ${warmup} warm-up pairs)\n`);
    console.log('| measure | ours (median, ms) | reference (median, ms) | median of paired differences (ms) | goal |');
    console.log('|---|---|---|---|---|');
    for (const row of rows) console.log(row);
  } finally {
    await topo.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv.includes('--serve')) await serve();
else if (process.argv.includes('--worker')) await worker();
else await main();
