/**
 * What the browser's target proxy (node-agent/src/browser/proxy.ts) costs, on loopback:
 * 1. the hop: a fresh connection and one GET of a small image, straight to the page server, through
 *    a CONNECT tunnel, and as an absolute-URI request (each includes the proxy's look-up of
 *    `localhost`, as a check would for its host), interleaved, `--hops` times each;
 * 2. a page load in Chromium (the /ok page: document, stylesheet, script, image; request
 *    interception on in both): load time (Navigation Timing loadEventEnd) and the document's
 *    duration, without a proxy and through the pool's proxy, `--loads` times each.
 * Prints medians and p99 in ms.
 *
 *   cd /work/main && npx tsx test/bench/browser-proxy-bench.ts [--hops 300] [--loads 30]
 */
import { existsSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { parseArgs } from 'node:util';
import { silentLogger } from '../../node-agent/src/probes/test-support/logger.js';
import { guardRequests } from '../../node-agent/src/browser/guard.js';
import { BrowserProxy } from '../../node-agent/src/browser/proxy.js';
import { CHROMIUM_PATH, testPool } from '../../node-agent/src/browser/test-support/harness.js';
import { startPageServer } from '../../node-agent/src/browser/test-support/pages.js';
import { connectTunnel, portOf } from '../../node-agent/src/browser/test-support/raw-proxy-client.js';
import { launchUnproxied } from '../../node-agent/src/browser/test-support/unproxied-browser.js';

type BrowserContext = Parameters<Parameters<ReturnType<typeof testPool>['use']>[2]>[0];

const { values } = parseArgs({ options: { hops: { type: 'string', default: '300' }, loads: { type: 'string', default: '30' } } });
const HOPS = Number(values.hops);
const LOADS = Number(values.loads);
const LOOPBACK = { allow_private: true, allow_cidrs: [] };

const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]!; };
const line = (label: string, xs: number[]) => console.log(`${label.padEnd(34)} median ${pct(xs, 0.5).toFixed(3)} ms  p99 ${pct(xs, 0.99).toFixed(3)} ms  (n=${xs.length})`);

/** One `Connection: close` request on the socket `open` makes, timed from before the connect to the server's close. */
function get(request: string, open: () => Promise<net.Socket>): Promise<number> {
  const started = performance.now();
  return open().then((socket) => new Promise<number>((resolve, reject) => {
    let text = '';
    socket.on('data', (d) => { text += d.toString('latin1'); });
    socket.on('end', () => {
      socket.destroy();
      if (text.startsWith('HTTP/1.1 200')) resolve(performance.now() - started);
      else reject(new Error(`unexpected answer: ${text.split('\r\n')[0]}`));
    });
    socket.on('error', reject);
    socket.resume();
    socket.write(request);
  }));
}

const pages = await startPageServer('127.0.0.1');
const port = Number(new URL(pages.url('/')).port);
const proxy = await BrowserProxy.start(silentLogger());
const direct: number[] = [];
const tunnel: number[] = [];
const absolute: number[] = [];
const plainConnect = (p: number) => () => new Promise<net.Socket>((resolve, reject) => { const s = net.connect(p, '127.0.0.1', () => resolve(s)); s.on('error', reject); });
for (let i = 0; i < HOPS; i++) {
  // A fresh session per round, as each check has its own: no look-up is cached across rounds.
  const session = await proxy.openSession();
  session.setPolicy(LOOPBACK);
  direct.push(await get('GET /img.png HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n', plainConnect(port)));
  tunnel.push(await get('GET /img.png HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n', () => connectTunnel(portOf(session.server), `localhost:${port}`)));
  await proxy.closeSession(session);
  const again = await proxy.openSession();
  again.setPolicy(LOOPBACK);
  absolute.push(await get(`GET http://localhost:${port}/img.png HTTP/1.1\r\nHost: localhost:${port}\r\nConnection: close\r\n\r\n`, plainConnect(portOf(again.server))));
  await proxy.closeSession(again);
}
await proxy.close();
console.log(`browser-proxy-bench: hop, fresh connection + GET /img.png on loopback, ${HOPS} rounds`);
line('direct', direct);
line('through a CONNECT tunnel', tunnel);
line('as an absolute-URI request', absolute);

if (LOADS <= 0) {
  console.log('page loads: none asked (--loads 0)');
} else if (!existsSync(CHROMIUM_PATH)) {
  console.log(`page loads: skipped, no Chromium at ${CHROMIUM_PATH}`);
} else {
  const facts = async (ctx: BrowserContext) => {
    const page = await ctx.newPage();
    await page.goto(pages.url('/ok'), { waitUntil: 'load' });
    const t = await page.evaluate<{ load: number; doc: number }>(`(() => { const n = performance.getEntriesByType('navigation')[0]; return { load: n.loadEventEnd, doc: n.responseEnd - n.startTime }; })()`);
    await page.close();
    return t;
  };
  const browser = await launchUnproxied();
  const pool = testPool();
  const rows = { direct: { load: [] as number[], doc: [] as number[] }, proxied: { load: [] as number[], doc: [] as number[] } };
  for (let i = 0; i < LOADS + 2; i++) {
    const ctx = await browser.newContext();
    await ctx.route('**/*', (r) => r.continue());
    const d = await facts(ctx);
    await ctx.close();
    const p = await pool.use({}, AbortSignal.timeout(60_000), async (c) => { await guardRequests(c, LOOPBACK); return facts(c); });
    if (i < 2) continue; // warm-up: launches, first compilations
    rows.direct.load.push(d.load); rows.direct.doc.push(d.doc);
    rows.proxied.load.push(p.load); rows.proxied.doc.push(p.doc);
  }
  await browser.close();
  await pool.close();
  console.log(`page loads in Chromium (/ok: 4 requests, fresh context each), ${LOADS} each, interleaved`);
  line('load, no proxy', rows.direct.load);
  line('load, through the target proxy', rows.proxied.load);
  line('document, no proxy', rows.direct.doc);
  line('document, through the target proxy', rows.proxied.doc);
}
await pages.close();
