/**
 * The target proxy with the real Chromium: every request of a check (documents, subresources,
 * fetch, WebSockets, redirects) leaves the browser through the check's proxy session and reaches
 * only checked addresses, with or without the request guard in front.
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { WebSocketServer } from 'ws';
import { makeTestPki } from '../probes/test-support/certs.js';
import { guardRequests } from './guard.js';
import { proxySessionOf } from './proxy.js';
import { SKIP_WITHOUT_CHROMIUM, testPool } from './test-support/harness.js';
import { startPageServer } from './test-support/pages.js';
import { portOf } from './test-support/raw-proxy-client.js';

const ONLY_127_0_0_1 = { allow_private: false, allow_cidrs: ['127.0.0.1/32'] };

/** A WebSocket echo server on `host` that counts its connections. */
async function wsServer(host: string): Promise<{ url: string; connections: () => number; close: () => Promise<void> }> {
  const server = http.createServer();
  const wss = new WebSocketServer({ server });
  let connections = 0;
  wss.on('connection', (ws) => { connections++; ws.on('message', (m) => ws.send(`echo:${m.toString()}`)); });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    url: `ws://${host}:${(server.address() as AddressInfo).port}/`,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => { for (const c of wss.clients) c.terminate(); wss.close(); server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** An HTTP server on 127.0.0.1 answering every request with a 302 to `to` (set later). */
async function redirector(): Promise<{ url: string; to: (url: string) => void; close: () => Promise<void> }> {
  let target = '';
  const server = http.createServer((_req, res) => { res.writeHead(302, { location: target }); res.end(); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/img.png`,
    to: (url) => { target = url; },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

t.test('the target proxy with Chromium', { skip: SKIP_WITHOUT_CHROMIUM }, async (t) => {
  const pages = await startPageServer('127.0.0.1');
  const other = await startPageServer('127.0.0.2');
  const ws = await wsServer('127.0.0.1');
  const wsOther = await wsServer('127.0.0.2');
  const redirect = await redirector();
  const pool = testPool();
  t.teardown(async () => { await pool.close(); await pages.close(); await other.close(); await ws.close(); await wsOther.close(); await redirect.close(); });
  const signal = () => AbortSignal.timeout(60_000);

  t.test('documents, subresources, fetch and WebSockets go through the session; refused ones reach nothing', async (t) => {
    await pool.use({}, signal(), async (ctx) => {
      const refused = await guardRequests(ctx, ONLY_127_0_0_1);
      const session = proxySessionOf(ctx)!;
      const page = await ctx.newPage();
      const response = await page.goto(pages.url('/ok'), { waitUntil: 'load' });
      t.equal(response?.status(), 200);
      t.equal((await response!.serverAddr())?.port, portOf(session.server), 'Chromium talked to the proxy session, not to the page server');
      const images = await page.evaluate('Array.from(document.images).every((i) => i.complete && i.naturalWidth > 0)');
      t.equal(images, true, 'the page loaded fully');
      t.ok(session.routes.every((r) => r.address === '127.0.0.1') && session.routes.length >= 1, 'routes to the checked address');

      const fetched = await page.evaluate(`fetch(${JSON.stringify(pages.url('/style.css'))}).then((r) => r.text())`);
      t.match(fetched, /color/, 'fetch from the page');
      const echoed = await page.evaluate(`new Promise((resolve, reject) => {
        const s = new WebSocket(${JSON.stringify(ws.url)});
        s.onopen = () => s.send('hi'); s.onmessage = (m) => { resolve(m.data); s.close(); }; s.onerror = () => reject(new Error('ws failed'));
      })`);
      t.equal(echoed, 'echo:hi', 'a WebSocket from the page');
      t.ok(session.routes.some((r) => r.target === new URL(ws.url).host), 'the WebSocket went through the proxy (CONNECT)');

      const blockedFetch = await page.evaluate(`fetch(${JSON.stringify(other.url('/style.css'))}).then(() => 'ok', (e) => 'failed')`);
      t.equal(blockedFetch, 'failed', 'fetch to a refused address fails');
      const blockedWs = await page.evaluate(`new Promise((resolve) => {
        const s = new WebSocket(${JSON.stringify(wsOther.url)});
        s.onopen = () => resolve('open'); s.onclose = () => resolve('closed');
      })`);
      t.equal(blockedWs, 'closed', 'a WebSocket to a refused address is closed');
      t.ok(refused.some((r) => r.url.startsWith(other.url('/'))) && refused.some((r) => r.url.startsWith(wsOther.url)), 'the guard reports both with their reason');
    });
    t.same(other.hits, [], 'the refused HTTP server saw nothing');
    t.equal(wsOther.connections(), 0, 'the refused WebSocket server saw nothing');
    t.equal(ws.connections(), 1);
  });

  t.test('https goes through a CONNECT tunnel to the checked address; TLS stays end to end', async (t) => {
    const pki = await makeTestPki();
    const tls = https.createServer({ key: pki.leaf.key, cert: pki.leaf.cert }, (_req, res) => { res.writeHead(200, { 'content-type': 'text/html' }); res.end('<h1>over tls</h1>'); });
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    t.teardown(() => new Promise<void>((resolve) => { tls.closeAllConnections(); tls.close(() => resolve()); }));
    const port = (tls.address() as AddressInfo).port;
    // Chromium does not know the test CA: the certificate check is waived here, in the test only.
    await pool.use({ ignoreHTTPSErrors: true }, signal(), async (ctx) => {
      await guardRequests(ctx, ONLY_127_0_0_1);
      const session = proxySessionOf(ctx)!;
      const page = await ctx.newPage();
      const response = await page.goto(`https://localhost:${port}/`);
      t.equal(response?.status(), 200);
      t.equal(await page.textContent('h1'), 'over tls');
      t.equal((await response!.serverAddr())?.port, portOf(session.server), 'through the proxy session');
      t.ok(session.routes.length >= 1 && session.routes.every((r) => r.target === `localhost:${port}` && r.address === '127.0.0.1'), 'tunnels to the checked address only');
      t.equal((await response!.securityDetails())?.subjectName, 'localhost', 'the target\'s own certificate: the proxy only tunnels');
    });
  });

  t.test('without the guard the proxy alone refuses, with the probes\' reason', async (t) => {
    await pool.use({}, signal(), async (ctx) => {
      const session = proxySessionOf(ctx)!;
      session.setPolicy(ONLY_127_0_0_1);
      const page = await ctx.newPage();
      const failed: string[] = [];
      page.on('response', (r) => { if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`); });
      await page.goto(pages.url(`/cross?to=${encodeURIComponent(other.url('/img.png'))}`), { waitUntil: 'load' });
      t.same(failed, [`403 ${other.url('/img.png')}`], 'the refused image answered 403 by the proxy');
      t.match(session.failures, [{ target: new URL(other.url('/')).host, refused: true, reason: /target 127\.0\.0\.2 \(loopback\), which this check may not reach/ }]);
      const nav = await page.goto(`https://127.0.0.2:${new URL(other.url('/')).port}/`).then(() => 'loaded', (e: Error) => e.message);
      t.match(nav, /ERR_TUNNEL_CONNECTION_FAILED/, 'an https navigation to a refused address fails at CONNECT');
    });
    t.same(other.hits, [], 'the refused address saw nothing');
  });

  t.test('a redirect to a refused address is refused by the proxy (request interception never sees redirect hops)', async (t) => {
    redirect.to(other.url('/img.png'));
    await pool.use({}, signal(), async (ctx) => {
      const refused = await guardRequests(ctx, ONLY_127_0_0_1);
      const page = await ctx.newPage();
      const statuses: string[] = [];
      page.on('response', (r) => statuses.push(`${r.status()} ${r.url()}`));
      await page.goto(pages.url(`/cross?to=${encodeURIComponent(redirect.url)}`), { waitUntil: 'load' });
      t.ok(statuses.includes(`302 ${redirect.url}`) && statuses.includes(`403 ${other.url('/img.png')}`), `redirected, then refused by the proxy (${statuses.join(', ')})`);
      t.same(refused, [], 'the guard was not asked about the redirect hop');
      t.match(proxySessionOf(ctx)!.failures, [{ refused: true, reason: /127\.0\.0\.2 \(loopback\)/ }]);
    });
    t.same(other.hits, [], 'the refused address saw nothing');
  });
});
