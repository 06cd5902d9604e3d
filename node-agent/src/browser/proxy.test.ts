/**
 * The browser's target proxy on its own (no Chromium): CONNECT tunnels and absolute-URI requests
 * reach only checked addresses, refusals carry the probes' wording, garbage input gets an answer
 * and never takes the proxy down, closing ends every connection.
 */
import net from 'node:net';
import t from 'tap';
import { silentLogger } from '../probes/test-support/logger.js';
import { BrowserProxy, PROXY_ERROR_HEADER, type ProxySession } from './proxy.js';
import { startPageServer } from './test-support/pages.js';
import { connectTunnel, portOf, rawExchange } from './test-support/raw-proxy-client.js';

const ONLY_127_0_0_1 = { allow_private: false, allow_cidrs: ['127.0.0.1/32'] };
const headEnd = (text: string) => text.includes('\r\n\r\n');

/** A TCP server on `host` that echoes and counts its connections. */
async function echoServer(host: string): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let connections = 0;
  const open = new Set<net.Socket>();
  const server = net.createServer((c) => { connections++; open.add(c); c.on('close', () => open.delete(c)); c.on('error', () => undefined); c.pipe(c); });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => { for (const c of open) c.destroy(); server.close(() => resolve()); }),
  };
}

t.test('target proxy', async (t) => {
  const proxy = await BrowserProxy.start(silentLogger());
  const allowed = await echoServer('127.0.0.1');
  const other = await echoServer('127.0.0.2');
  const pages = await startPageServer('127.0.0.1');
  const otherPages = await startPageServer('127.0.0.2');
  t.teardown(async () => { await proxy.close(); await allowed.close(); await other.close(); await pages.close(); await otherPages.close(); });
  const session = async (): Promise<ProxySession> => {
    const s = await proxy.openSession();
    s.setPolicy(ONLY_127_0_0_1);
    t.teardown(() => proxy.closeSession(s));
    return s;
  };

  t.test('CONNECT to a checked address tunnels both ways; the route records the address', async (t) => {
    const s = await session();
    const tunnel = await connectTunnel(portOf(s.server), `localhost:${allowed.port}`);
    const echoed = new Promise<string>((resolve) => tunnel.once('data', (d) => resolve(d.toString())));
    tunnel.resume();
    tunnel.write('ping');
    t.equal(await echoed, 'ping');
    tunnel.destroy();
    t.same(s.routes, [{ target: `localhost:${allowed.port}`, address: '127.0.0.1' }], 'localhost resolved once, to the checked address');
  });

  t.test('a target that sends its last bytes and closes at once: the client gets them all', async (t) => {
    const s = await session();
    const body = Buffer.alloc(4 * 1024 * 1024, 'x');
    const burst = net.createServer((c) => { c.on('error', () => undefined); c.end(body); });
    await new Promise<void>((resolve) => burst.listen(0, '127.0.0.1', resolve));
    t.teardown(() => new Promise<void>((resolve) => burst.close(() => resolve())));
    const tunnel = await connectTunnel(portOf(s.server), `127.0.0.1:${(burst.address() as net.AddressInfo).port}`);
    let received = 0;
    tunnel.on('data', (d: Buffer) => { received += d.length; });
    tunnel.resume();
    await new Promise<void>((resolve) => tunnel.once('end', () => resolve()));
    tunnel.destroy();
    t.equal(received, body.length, 'nothing cut off by the close');
  });

  t.test('CONNECT to a refused address: 403 with the probes\' reason, nothing reaches it', async (t) => {
    const s = await session();
    const before = other.connections();
    for (const target of [`127.0.0.2:${other.port}`, `0x7f000002:${other.port}`, `[::ffff:127.0.0.2]:${other.port}`]) {
      const r = await rawExchange(portOf(s.server), `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
      t.match(r.text, /^HTTP\/1\.1 403 Forbidden\r\n/, `${target}: 403`);
      t.match(r.text, new RegExp(`${PROXY_ERROR_HEADER}: target (127\\.0\\.0\\.2|::ffff:7f00:2) \\(loopback\\), which this check may not reach`), `${target}: the reason`);
    }
    t.equal(other.connections(), before, 'the refused address saw no connection');
    t.equal(s.failures.length, 3);
    t.ok(s.failures.every((f) => f.refused), 'recorded as policy refusals');
  });

  t.test('fail closed: a session without a policy, and the browser-wide port, refuse everything', async (t) => {
    const bare = await proxy.openSession();
    t.teardown(() => proxy.closeSession(bare));
    const before = allowed.connections();
    const r = await rawExchange(portOf(bare.server), `CONNECT 127.0.0.1:${allowed.port} HTTP/1.1\r\n\r\n`);
    t.match(r.text, /^HTTP\/1\.1 403 .*\r\n[^]*no target policy is set/);
    const wide = await rawExchange(portOf(proxy.server), `GET ${pages.url('/ok')} HTTP/1.1\r\nHost: x\r\n\r\n`);
    t.match(wide.text, /^HTTP\/1\.1 403 [^]*no browser check owns this connection/);
    t.equal(allowed.connections(), before);
  });

  t.test('absolute-URI requests: forwarded to the checked address with their Host, hop-by-hop fields dropped', async (t) => {
    const s = await session();
    const url = pages.url('/ok');
    const r = await rawExchange(portOf(s.server), `GET ${url} HTTP/1.1\r\nHost: ${new URL(url).host}\r\nProxy-Connection: keep-alive\r\nConnection: close\r\n\r\n`);
    t.match(r.text, /^HTTP\/1\.1 200 OK\r\n/);
    t.match(r.text, /Hello Vantage/);
    t.notMatch(r.text, /proxy-connection/i);
    const refused = await rawExchange(portOf(s.server), `GET ${otherPages.url('/ok')} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    t.match(refused.text, /^HTTP\/1\.1 403 Forbidden\r\n[^]*target 127\.0\.0\.2 \(loopback\), which this check may not reach/);
    t.same(otherPages.hits, [], 'the refused address saw no request');
  });

  t.test('a target that cannot be reached: 502 to CONNECT, a reset to a plain request', async (t) => {
    const s = await session();
    const closed = await echoServer('127.0.0.1');
    await closed.close();
    const tunnel = await rawExchange(portOf(s.server), `CONNECT 127.0.0.1:${closed.port} HTTP/1.1\r\n\r\n`);
    t.match(tunnel.text, new RegExp(`^HTTP/1\\.1 502 Bad Gateway\\r\\n[^]*cannot connect to 127\\.0\\.0\\.1:${closed.port} \\(127\\.0\\.0\\.1\\): ECONNREFUSED`));
    const plain = await rawExchange(portOf(s.server), `GET http://127.0.0.1:${closed.port}/ HTTP/1.1\r\nHost: x\r\n\r\n`);
    t.equal(plain.text, '', 'no HTTP status the target never sent');
    t.equal(plain.reset, true, 'the connection is reset');
    t.match(s.failures, [{ refused: false, reason: /ECONNREFUSED/ }, { refused: false, reason: /ECONNREFUSED/ }]);
    // A 64-character label: the resolver fails it at once, without asking a server (RFC 1035 2.3.4).
    const nowhere = `${'a'.repeat(64)}.test`;
    const unknown = await rawExchange(portOf(s.server), `CONNECT ${nowhere}:443 HTTP/1.1\r\n\r\n`, { bound_ms: 60_000 });
    t.match(unknown.text, new RegExp(`^HTTP/1\\.1 502 Bad Gateway\\r\\n[^]*cannot resolve ${nowhere}`), 'a name that does not resolve: 502, not a refusal');
    const unknownPlain = await rawExchange(portOf(s.server), `GET http://${nowhere}/ HTTP/1.1\r\nHost: x\r\n\r\n`, { bound_ms: 60_000 });
    t.equal(unknownPlain.reset, true, 'and a reset to a plain request');
    t.match(s.failures.slice(2), [{ refused: false, reason: /cannot resolve/ }, { refused: false, reason: /cannot resolve/ }]);
  });

  t.test('garbage input gets an answer and the proxy keeps serving', async (t) => {
    const s = await session();
    const port = portOf(s.server);
    const cases: [string, string | Buffer, RegExp][] = [
      ['CONNECT without a port', 'CONNECT example.test HTTP/1.1\r\n\r\n', /^HTTP\/1\.1 400 /],
      ['CONNECT with an empty host', `CONNECT :${allowed.port} HTTP/1.1\r\n\r\n`, /^HTTP\/1\.1 400 /],
      ['CONNECT with userinfo', `CONNECT a@127.0.0.1:${allowed.port} HTTP/1.1\r\n\r\n`, /^HTTP\/1\.1 400 /],
      ['CONNECT to port 0', 'CONNECT 127.0.0.1:0 HTTP/1.1\r\n\r\n', /^HTTP\/1\.1 400 /],
      ['CONNECT to port 99999', 'CONNECT 127.0.0.1:99999 HTTP/1.1\r\n\r\n', /^HTTP\/1\.1 400 /],
      ['CONNECT with a broken IPv6 literal', 'CONNECT [::1:443 HTTP/1.1\r\n\r\n', /^HTTP\/1\.1 400 /],
      ['CONNECT with a path', `CONNECT 127.0.0.1:${allowed.port}/x HTTP/1.1\r\n\r\n`, /^HTTP\/1\.1 400 /],
      ['an origin-form request', 'GET / HTTP/1.1\r\nHost: x\r\n\r\n', /^HTTP\/1\.1 400 /],
      ['an https absolute URI', 'GET https://127.0.0.1/ HTTP/1.1\r\nHost: x\r\n\r\n', /^HTTP\/1\.1 400 /],
      ['an upgrade without CONNECT', `GET ${pages.url('/ok')} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n`, /^HTTP\/1\.1 400 /],
      ['a broken request line', 'CONNECT\r\n\r\n', /^HTTP\/1\.1 400 /],
      ['binary junk', Buffer.from([0x16, 0x03, 0x01, 0x00, 0xff, 0x00, 0x0d, 0x0a, 0x0d, 0x0a]), /^HTTP\/1\.1 400 /],
      ['a CR in the request line', 'CONNECT 127.0.0.1:80\r HTTP/1.1\r\n\r\n', /^HTTP\/1\.1 400 /],
      ['headers over 16 KiB', `CONNECT 127.0.0.1:${allowed.port} HTTP/1.1\r\nX-Big: ${'a'.repeat(100_000)}\r\n\r\n`, /^HTTP\/1\.1 431 /],
      ['thousands of headers', `GET ${pages.url('/ok')} HTTP/1.1\r\n${'X-A: b\r\n'.repeat(5000)}\r\n`, /^HTTP\/1\.1 431 /],
    ];
    const before = allowed.connections();
    for (const [what, bytes, expected] of cases) {
      const r = await rawExchange(port, bytes, { until: headEnd });
      t.match(r.text, expected, what);
    }
    t.equal(allowed.connections(), before, 'no garbage reached a target');
    const tunnel = await connectTunnel(port, `127.0.0.1:${allowed.port}`);
    tunnel.destroy();
    t.ok(true, 'a good CONNECT still works afterwards');
  });

  t.test('random bytes, abandoned requests and clients that vanish mid-tunnel do not take it down', async (t) => {
    const s = await session();
    const port = portOf(s.server);
    let seed = 0x5eed;
    const random = () => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed; };
    const junk = Array.from({ length: 200 }, (_, i) => {
      const bytes = Buffer.from(Array.from({ length: 1 + (random() % 4096) }, () => random() & 255));
      // Every other one starts like a request, so the parser gets past the method.
      return i % 2 ? Buffer.concat([Buffer.from(`CONNECT 127.0.0.1:${allowed.port} HTTP/1.1\r\n`), bytes]) : bytes;
    });
    const replies = await Promise.all(junk.map((bytes) => rawExchange(port, bytes, { until: headEnd, bound_ms: 20_000 })));
    t.ok(replies.every((r) => r.text === '' || /^HTTP\/1\.1 [2-5]\d\d /.test(r.text)), 'each answered with a status line or closed');
    for (let i = 0; i < 20; i++) {
      const c = net.connect(port, '127.0.0.1', () => { c.write(`CONNECT localhost:${allowed.port} HTTP/1.1\r\n\r\n`); c.destroy(); });
      c.on('error', () => undefined);
    }
    const tunnels = await Promise.all(Array.from({ length: 20 }, () => connectTunnel(port, `127.0.0.1:${allowed.port}`)));
    for (const tunnel of tunnels) tunnel.destroy();
    const tunnel = await connectTunnel(port, `127.0.0.1:${allowed.port}`);
    const echoed = new Promise<string>((resolve) => tunnel.once('data', (d) => resolve(d.toString())));
    tunnel.resume();
    tunnel.write('still here');
    t.equal(await echoed, 'still here', 'the proxy still tunnels');
    tunnel.destroy();
  });

  t.test('one check resolves at most 1000 distinct hosts; each host once', async (t) => {
    const s = await session();
    const first = await s.admit('localhost');
    t.equal(s.admit('LOCALHOST'), s.admit('localhost'), 'one decision per host, whatever its case');
    for (let i = 1; i < 1000; i++) await s.admit(`10.0.${i >> 8}.${i & 255}`);
    t.match(await s.admit('127.0.0.1'), { ok: false, error_class: 'blocked', error: 'more than 1000 distinct hosts in one check: 127.0.0.1 refused' });
    t.equal(await s.admit('localhost'), first, 'hosts already decided keep their answer');
  });

  t.test('closing a session ends its tunnels; closing the proxy closes every port', async (t) => {
    const own = await BrowserProxy.start(silentLogger());
    const s = await own.openSession();
    s.setPolicy(ONLY_127_0_0_1);
    const tunnel = await connectTunnel(portOf(s.server), `127.0.0.1:${allowed.port}`);
    const ended = new Promise<void>((resolve) => tunnel.once('close', () => resolve()));
    tunnel.resume();
    await own.closeSession(s);
    await ended;
    t.ok(tunnel.destroyed, 'the open tunnel was closed with its session');
    const second = await own.openSession();
    await own.close();
    for (const server of [own.server, second.server]) {
      const err = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
        const c = net.connect(portOf(server), '127.0.0.1', () => { c.destroy(); resolve(null); });
        c.on('error', resolve);
      });
      t.equal(err?.code, 'ECONNREFUSED', `${server} closed`);
    }
    await t.rejects(own.openSession(), /the browser proxy is closed/);
  });
});
