import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

/** A running test server; `origin` is `http(s)://host:port`. */
export interface TestHttpServer {
  origin: string;
  port: number;
  /** Requests seen, in order: method, path, headers (lower-case), body. */
  seen: { method: string; path: string; headers: http.IncomingHttpHeaders; body: string }[];
  close(): Promise<void>;
}

export interface TestHttpServerOptions {
  /** Listen address (default 127.0.0.1). */
  host?: string;
  /** Serve HTTPS with this certificate. */
  tls?: { cert: string; key: string };
}

const HUGE_CHUNK = Buffer.alloc(64 * 1024, 0x61);

/**
 * Routes (a real server on port 0, for the probe tests and the benchmark):
 * - `/ok`: 200 "hello", two set-cookie values and `X-Multi` sent twice;
 * - `/slow?ms=N`: waits N ms, then 200 "slow";
 * - `/huge`: streams 64 KiB chunks until the client goes away (respecting backpressure);
 * - `/redirect/N`: 302 to `/redirect/N-1`, `/redirect/0` answers 200 (a chain of N hops);
 * - `/loop`: 302 to itself; `/to?url=U&code=C`: redirect C (default 302) to U;
 * - `/status/N`: answers status N; `/echo`: 200 JSON {method, headers, body} of the request.
 */
export async function startHttpServer(opts: TestHttpServerOptions = {}): Promise<TestHttpServer> {
  const seen: TestHttpServer['seen'] = [];
  const handler: http.RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', 'http://x');
      seen.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      route(url, req, res, body);
    });
  };
  const server = opts.tls ? https.createServer({ cert: opts.tls.cert, key: opts.tls.key }, handler) : http.createServer(handler);
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    origin: `${opts.tls ? 'https' : 'http'}://${host}:${port}`,
    port,
    seen,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

function route(url: URL, req: http.IncomingMessage, res: http.ServerResponse, body: string): void {
  const p = url.pathname;
  if (p === '/ok') {
    res.setHeader('Set-Cookie', ['a=1', 'b=2']);
    res.setHeader('X-Multi', ['one', 'two']);
    res.end('hello');
  } else if (p === '/slow') {
    const ms = Number(url.searchParams.get('ms') ?? '50');
    const timer = setTimeout(() => res.end('slow'), ms);
    res.on('close', () => clearTimeout(timer));
  } else if (p === '/huge') {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    const pump = () => {
      while (!res.destroyed && res.write(HUGE_CHUNK));
    };
    res.on('drain', pump);
    pump();
  } else if (p.startsWith('/redirect/')) {
    const n = Number(p.slice('/redirect/'.length));
    if (n > 0) {
      res.writeHead(302, { location: `/redirect/${n - 1}` });
      res.end();
    } else res.end('arrived');
  } else if (p === '/loop') {
    res.writeHead(302, { location: '/loop' });
    res.end();
  } else if (p === '/to') {
    res.writeHead(Number(url.searchParams.get('code') ?? '302'), { location: url.searchParams.get('url') ?? '/' });
    res.end();
  } else if (p.startsWith('/status/')) {
    res.writeHead(Number(p.slice('/status/'.length)));
    res.end('status');
  } else if (p === '/echo') {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ method: req.method, headers: req.headers, body }));
  } else {
    res.writeHead(404);
    res.end('not found');
  }
}
