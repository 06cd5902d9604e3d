import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Secret } from '../secret.js';
import type { AgentMetrics } from './agent-metrics.js';

/** The Prometheus text exposition format written (version 0.0.4). */
const EXPOSITION_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** A running metrics listener. */
export interface MetricsListener {
  /** The bound address (port chosen by the kernel when 0 was asked). */
  address: AddressInfo;
  close(): Promise<void>;
}

/**
 * Serve `metrics` at GET /metrics on `host:port` (docs/operators/metrics.md "Node agent"). With a
 * token, a request must carry `Authorization: Bearer <token>` (constant-time compare) or gets 401;
 * other paths 404, other methods 405. Resolves once listening; rejects when the address cannot
 * be bound (the caller logs it and runs on without metrics).
 */
export async function startMetricsListener(opts: { metrics: AgentMetrics; host: string; port: number; token?: Secret; log: Logger }): Promise<MetricsListener> {
  const expected = opts.token ? digest(opts.token.reveal()) : null;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') return void res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found: the metrics are at /metrics\n');
    if (req.method !== 'GET' && req.method !== 'HEAD') return void res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain' }).end('method not allowed\n');
    if (expected) {
      const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
      if (!m || !timingSafeEqual(digest(m[1]!), expected)) {
        return void res.writeHead(401, { 'WWW-Authenticate': 'Bearer', 'Content-Type': 'text/plain' }).end('send the metrics token as Authorization: Bearer <token>\n');
      }
    }
    opts.metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'Content-Type': EXPOSITION_TYPE, 'Cache-Control': 'no-store' }).end(req.method === 'HEAD' ? undefined : text),
      (err: unknown) => {
        opts.log.error({ err }, 'metrics could not be collected');
        res.writeHead(500, { 'Content-Type': 'text/plain' }).end('metrics could not be collected\n');
      },
    );
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: opts.host, port: opts.port }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    address: server.address() as AddressInfo,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
