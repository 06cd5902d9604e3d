import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An HTTP target the demo can take down and bring back on the same port: `stop()` closes the
 * listening socket and every open connection (a check then gets "connection refused"), `start()`
 * listens again. Answers every request 200 with a short HTML page.
 */
export interface SwitchableTarget {
  url: string;
  port: number;
  readonly up: boolean;
  stop(): Promise<void>;
  start(): Promise<void>;
}

/** Start the target on 127.0.0.1 (an ephemeral port, kept across stop/start). */
export async function startSwitchableTarget(name: string): Promise<SwitchableTarget> {
  let server: Server | null = null;
  let port = 0;
  const listen = async () => {
    const s = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', server: 'vantage-demo-target' });
      res.end(`<!doctype html><title>${name}</title><p>${name}: ${req.method} ${req.url} ok</p>\n`);
    });
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => resolve());
    });
    port = (s.address() as AddressInfo).port;
    server = s;
  };
  await listen();
  return {
    get url() { return `http://127.0.0.1:${port}/`; },
    get port() { return port; },
    get up() { return server !== null; },
    async stop() {
      const s = server;
      if (!s) return;
      server = null;
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    },
    async start() {
      if (!server) await listen();
    },
  };
}
