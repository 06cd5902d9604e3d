import { createServer, type Server } from 'node:http';
import { deflateSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';

/** A 1x1 PNG (valid: signature, IHDR, IDAT, IEND). */
export function tinyPng(): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const out = Buffer.alloc(8 + data.length + 4);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), 8 + data.length);
    return out;
  };
  const ihdr = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0]);
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(Buffer.from([0, 0, 0, 0, 255]))), chunk('IEND', Buffer.alloc(0))]);
}

/** Width and height of a PNG from its IHDR chunk, or null when `buf` is not a PNG. */
export function pngSize(buf: Buffer): { width: number; height: number } | null {
  if (buf.length < 24 || !buf.subarray(0, 8).equals(Buffer.from([137, 80, 78, 71, 13, 10, 26, 10])) || buf.toString('ascii', 12, 16) !== 'IHDR') return null;
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}

export interface PageServer {
  url: (path: string) => string;
  /** Paths requested so far, in order. */
  hits: string[];
  /** Resolves when `path` is first requested. */
  requested: (path: string) => Promise<void>;
  close: () => Promise<void>;
}

const html = (body: string) => `<!doctype html><html><head><title>t</title><link rel="stylesheet" href="/style.css"></head><body>${body}</body></html>`;

/**
 * Local test pages on `host`:0: `/ok` (text, an image, a stylesheet, a script), `/slow?ms=N`
 * (an image answered after N ms), `/missing-image` (a 404 image), `/console` (console.error and an
 * uncaught exception), `/hang` (an image that never answers), `/empty` (an empty body),
 * `/error` (HTTP 500), `/cross?to=URL` (an image from another origin). `/delay?ms=N` waits N ms.
 */
export async function startPageServer(host = '127.0.0.1'): Promise<PageServer> {
  const hits: string[] = [];
  const waiters = new Map<string, (() => void)[]>();
  const open = new Set<import('node:http').ServerResponse>();
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    hits.push(url.pathname);
    for (const w of waiters.get(url.pathname) ?? []) w();
    waiters.delete(url.pathname);
    const send = (status: number, type: string, body: string | Buffer) => { res.writeHead(status, { 'content-type': type }); res.end(body); };
    switch (url.pathname) {
      case '/ok': return send(200, 'text/html', html('<h1 id="title">Hello Vantage</h1><img src="/img.png" width="20" height="20"><script src="/app.js"></script>'));
      case '/slow': return send(200, 'text/html', html(`<h1>Slow</h1><img src="/delay.png?ms=${Number(url.searchParams.get('ms') ?? 1000)}">`));
      case '/missing-image': return send(200, 'text/html', html('<h1>Missing</h1><img src="/missing.png">'));
      case '/console': return send(200, 'text/html', html('<h1>Console</h1><script>console.error("boom from the page"); throw new Error("kaput");</script>'));
      case '/hang': return send(200, 'text/html', html('<h1>Hang</h1><img src="/never.png">'));
      case '/empty': return send(200, 'text/html', '<!doctype html><html><body></body></html>');
      case '/error': return send(500, 'text/html', html('<h1>Internal error</h1>'));
      case '/cross': return send(200, 'text/html', html(`<h1>Cross</h1><img src="${url.searchParams.get('to') ?? ''}">`));
      case '/style.css': return send(200, 'text/css', 'h1 { color: #123456; }');
      case '/app.js': return send(200, 'application/javascript', 'document.title = "ready";');
      case '/img.png': return send(200, 'image/png', tinyPng());
      case '/delay.png': { const t = setTimeout(() => send(200, 'image/png', tinyPng()), Number(url.searchParams.get('ms') ?? 1000)); res.on('close', () => clearTimeout(t)); return; }
      case '/never.png': open.add(res); res.on('close', () => open.delete(res)); return;
      default: return send(404, 'text/plain', 'not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://${host}:${port}${path}`,
    hits,
    requested: (path) => (hits.includes(path) ? Promise.resolve() : new Promise<void>((resolve) => { waiters.set(path, [...(waiters.get(path) ?? []), resolve]); })),
    close: () => new Promise<void>((resolve) => { for (const r of open) r.destroy(); server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
