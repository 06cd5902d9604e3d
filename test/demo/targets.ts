import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startDnsServer, ZONE, type DnsTestServer } from '@vantage/node-agent/test-support/dns-server';

/** Local probe targets the demo's nodes measure: an HTTP server (also the TCP target) and a DNS server. */
export interface Targets {
  http_url: string;
  tcp_target: string;
  dns: { zone: string; server: string };
  /** What the HTTP server waits before answering (ms), so ttfb is visible in the table. */
  http_delay_ms: number;
  close(): Promise<void>;
}

/** Start the targets on 127.0.0.1 (ephemeral ports). */
export async function startTargets(http_delay_ms = 20): Promise<Targets> {
  const http: Server = createServer((req, res) => {
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', server: 'vantage-demo-target' });
      res.end(`<!doctype html><title>Vantage demo target</title><p>${req.method} ${req.url} answered after ${http_delay_ms} ms</p>\n`);
    }, http_delay_ms);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const port = (http.address() as AddressInfo).port;
  const dns: DnsTestServer = await startDnsServer({ host: '127.0.0.1' });
  return {
    http_url: `http://127.0.0.1:${port}/`,
    tcp_target: `127.0.0.1:${port}`,
    dns: { zone: ZONE, server: dns.server },
    http_delay_ms,
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await dns.close();
    },
  };
}
