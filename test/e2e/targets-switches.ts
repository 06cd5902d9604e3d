import http from 'node:http';
import type https from 'node:https';
import net from 'node:net';
import { setAnswer, type SplitName } from './split-dns.js';

/**
 * The targets host's switches: what a monitoring test breaks and mends (docs/architecture/test-network.md
 * "Switches"). A small HTTP server on the namespace's loopback only (so no agent and no monitor
 * can reach it); network.ts drives it with curl inside the namespace.
 *
 *   POST /http/stop, /http/start          close / reopen the plain HTTP listeners (port 80): connects are refused meanwhile
 *   POST /http/deny?cidr=C, /http/allow   plain HTTP answers 503 to sources inside C (one subnet: some nodes fail) / to nobody
 *   POST /tls/expired, /tls/valid         the switchable HTTPS port serves the expired leaf / the valid one
 *   POST /dns?name=N&type=A&answer=X      N answers X for everyone (no `answer`: N is removed, NXDOMAIN)
 *   POST /dnsbl/list?address=IP           IP is listed in the test DNSBL zone (A 127.0.0.2 and a TXT reason, RFC 5782)
 *   POST /dnsbl/unlist?address=IP         and no longer
 *
 * Each answers 200 `{"ok":true}`, or 400 `{"ok":false,"error":…}`.
 */

export interface Switches {
  /** The plain HTTP listeners (one per host address), to close and reopen. */
  http: { servers: http.Server[]; port: number; hosts: string[]; make(): http.Server; deny: string[] };
  /** The switchable HTTPS servers and the two certificates they may serve. */
  tls: { servers: https.Server[]; valid: { cert: string; key: string }; expired: { cert: string; key: string } };
  /** The DNS server's live name list, and the DNSBL zone under it. */
  dns_names: SplitName[];
  dnsbl_zone: string;
}

/** The RFC 5782 query name of an IPv4 `address` in `zone`: reversed octets under the zone. */
export function dnsblName(address: string, zone: string): string {
  if (!net.isIPv4(address)) throw new Error(`not an IPv4 address: ${address}`);
  return `${address.split('.').reverse().join('.')}.${zone}`;
}

/** `listener`, except that sources inside any CIDR of `deny` (read at every request) get 503. */
export function denyGate(listener: http.RequestListener, deny: string[]): http.RequestListener {
  return (req, res) => {
    const source = (req.socket.remoteAddress ?? '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
    const family = net.isIPv6(source) ? 'ipv6' : 'ipv4';
    const blocked = net.isIP(source) > 0 && deny.some((cidr) => {
      const [prefix, bits] = cidr.split('/');
      const list = new net.BlockList();
      list.addSubnet(prefix!, Number(bits), net.isIPv6(prefix!) ? 'ipv6' : 'ipv4');
      return list.check(source, family);
    });
    if (!blocked) return listener(req, res);
    req.resume();
    res.writeHead(503, { server: 'vantage-e2e', 'content-type': 'text/plain' }).end('denied by the test\n');
  };
}

function listen(server: net.Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, ipv6Only: net.isIPv6(host) }, () => { server.off('error', reject); resolve(); });
  });
}

async function apply(op: string, q: URLSearchParams, s: Switches): Promise<void> {
  switch (op) {
    case '/http/stop': {
      const closing = s.http.servers.splice(0).map((server) => new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }));
      await Promise.all(closing);
      return;
    }
    case '/http/start': {
      if (s.http.servers.length > 0) return;
      for (const host of s.http.hosts) {
        const server = s.http.make();
        await listen(server, s.http.port, host);
        s.http.servers.push(server);
      }
      return;
    }
    case '/http/deny': {
      const cidr = q.get('cidr') ?? '';
      const [prefix, bits] = cidr.split('/');
      if (!net.isIP(prefix ?? '') || !/^\d+$/.test(bits ?? '')) throw new Error('cidr required (198.18.12.0/24)');
      s.http.deny.push(cidr);
      return;
    }
    case '/http/allow':
      s.http.deny.splice(0);
      return;
    case '/tls/expired':
    case '/tls/valid': {
      const pair = op === '/tls/expired' ? s.tls.expired : s.tls.valid;
      for (const server of s.tls.servers) {
        server.setSecureContext(pair);
        // Kept-alive connections would go on with the old certificate.
        server.closeAllConnections();
      }
      return;
    }
    case '/dns': {
      const name = q.get('name');
      const type = (q.get('type') ?? 'A') as SplitName['type'];
      if (!name || !['A', 'AAAA', 'TXT'].includes(type)) throw new Error('name and type (A, AAAA, TXT) required');
      setAnswer(s.dns_names, name, type, q.get('answer') || null);
      return;
    }
    case '/dnsbl/list':
    case '/dnsbl/unlist': {
      const name = dnsblName(q.get('address') ?? '', s.dnsbl_zone);
      const listed = op === '/dnsbl/list';
      setAnswer(s.dns_names, name, 'A', listed ? '127.0.0.2' : null);
      setAnswer(s.dns_names, name, 'TXT', listed ? 'listed by the vantage e2e test' : null);
      return;
    }
    default:
      throw new Error(`unknown switch ${op}`);
  }
}

/** Start the switch server on 127.0.0.1:`port`. @returns the server (closed by the caller) */
export async function startSwitches(port: number, s: Switches): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const done = (status: number, body: object) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.method !== 'POST') return done(405, { ok: false, error: 'POST only' });
    apply(url.pathname, url.searchParams, s).then(() => done(200, { ok: true }), (err: Error) => done(400, { ok: false, error: err.message }));
  });
  await listen(server, port, '127.0.0.1');
  return server;
}
