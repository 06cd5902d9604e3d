import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a test receiver got. */
export interface Received {
  at_ms: number;
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** What the receiver answers to the n-th request (1-based): a status and body, or `hang` (never answers). */
export type Answer = { status: number; body?: string } | 'hang';

interface Teardown { teardown(fn: () => unknown): void }

/**
 * A real HTTP receiver on 127.0.0.1 (port `listen_port`, default any free one) for delivery tests (real servers on loopback):
 * records every request and answers with `answer(n, req)` (default 200). `waitFor(n)` resolves
 * once n requests have arrived. Closed at teardown; hanging requests are destroyed then.
 */
export async function startReceiver(t: Teardown, answer: (n: number, req: Received) => Answer = () => ({ status: 200 }), listen_port = 0): Promise<{
  url: string; port: number; received: Received[]; server: Server;
  waitFor(n: number, timeout_ms?: number): Promise<Received[]>;
  setAnswer(fn: (n: number, req: Received) => Answer): void;
  close(): Promise<void>;
}> {
  const received: Received[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const hanging = new Set<ServerResponse>();
  let respond = answer;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = { at_ms: performance.timeOrigin + performance.now(), method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(r);
      for (const w of [...waiters]) if (received.length >= w.n) { waiters.splice(waiters.indexOf(w), 1); w.resolve(); }
      const a = respond(received.length, r);
      if (a === 'hang') {
        hanging.add(res);
        return;
      }
      res.writeHead(a.status, { 'content-type': 'text/plain' }).end(a.body ?? 'ok');
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(listen_port, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  t.teardown(close);
  return {
    url: `http://127.0.0.1:${port}/hook`, port, received, server, close,
    setAnswer(fn) { respond = fn; },
    waitFor(n, timeout_ms = 60_000) {
      if (received.length >= n) return Promise.resolve(received);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`receiver got ${received.length} of ${n} requests within ${timeout_ms} ms`)), timeout_ms);
        waiters.push({ n, resolve: () => { clearTimeout(timer); resolve(received); } });
      });
    },
  };
}

/** Poll `check` every `every_ms` until it returns a value (not null/undefined); throw after `timeout_ms`. */
export async function eventually<T>(what: string, check: () => Promise<T | null | undefined> | T | null | undefined, timeout_ms = 60_000, every_ms = 50): Promise<T> {
  const until = Date.now() + timeout_ms;
  for (;;) {
    const v = await check();
    if (v !== null && v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out after ${timeout_ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, every_ms));
  }
}
