import dgram from 'node:dgram';
import { createRequire } from 'node:module';
import net from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFramer } from '../../node-agent/src/probes/dns/tcp.js';

/**
 * An authoritative DNS server (UDP and TCP on one port) whose A/AAAA answers may depend on the
 * asking address: the e2e network's stand-in for a polluted resolver (docs/api/probes.md DNS
 * `pollution_detected`). Rules are data, so tests read what the server will say.
 */

/** The part of dns-packet used here (a node-agent dependency, loaded from there: the test package does not depend on it). */
interface Question { name: string; type: string; class?: string }
interface Answer { name: string; type: string; ttl: number; data: string }
interface Packet { type: 'query' | 'response'; id?: number; flags?: number; questions?: Question[]; answers?: Answer[] }
interface DnsPacket {
  decode(buf: Buffer): Packet;
  encode(packet: Packet): Buffer;
  streamEncode(packet: Packet): Buffer;
  AUTHORITATIVE_ANSWER: number;
  RECURSION_DESIRED: number;
}
const dnsPacket = createRequire(join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'node-agent', 'package.json'))('dns-packet') as DnsPacket;

/**
 * One name: `answer` for everyone, `views[]` override it for sources inside `cidr`. The server
 * reads `names` at every query, so a test may change the list while it runs (setAnswer).
 */
export interface SplitName {
  name: string;
  type: 'A' | 'AAAA' | 'TXT';
  answer: string;
  views?: Array<{ cidr: string; answer: string }>;
}

export interface SplitDnsOptions {
  names: SplitName[];
  /** Listen addresses (one UDP and one TCP socket each); port 53 unless `port`. */
  hosts: string[];
  port?: number;
  ttl_s?: number;
}

export interface SplitDnsServer {
  /** Queries answered, per source address (as the server saw it). */
  seen: Map<string, number>;
  close(): Promise<void>;
}

/** The address `source` gets for `entry` (first matching view, else the common answer). Pure. */
export function answerFor(entry: SplitName, source: string): string {
  // A dual-stack socket reports IPv4 senders as ::ffff:a.b.c.d.
  const address = source.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
  const family = net.isIPv6(address) ? 'ipv6' : 'ipv4';
  if (!net.isIP(address)) return entry.answer;
  for (const view of entry.views ?? []) {
    const [prefix, bits] = view.cidr.split('/');
    const list = new net.BlockList();
    list.addSubnet(prefix!, Number(bits), net.isIPv6(prefix!) ? 'ipv6' : 'ipv4');
    if (list.check(address, family)) return view.answer;
  }
  return entry.answer;
}

/** The reply to `query` from `source`: NOERROR with the answer, NODATA for other types, else NXDOMAIN. */
function reply(query: Packet, source: string, opts: SplitDnsOptions): Packet {
  const q = query.questions?.[0];
  const base = { type: 'response' as const, id: query.id, flags: dnsPacket.AUTHORITATIVE_ANSWER | ((query.flags ?? 0) & dnsPacket.RECURSION_DESIRED), questions: query.questions ?? [] };
  if (!q) return { ...base, flags: base.flags | 1 /* FORMERR */ };
  const matches = opts.names.filter((n) => n.name.toLowerCase() === q.name.toLowerCase());
  if (matches.length === 0) return { ...base, flags: base.flags | 3 /* NXDOMAIN */ };
  const answers = matches.filter((n) => n.type === q.type)
    .map((n): Answer => ({ name: q.name, type: n.type, ttl: opts.ttl_s ?? 60, data: answerFor(n, source) }));
  return { ...base, answers };
}

/**
 * Give `name` (type `type`) the single answer `answer` for everyone, adding it when missing; with
 * `answer` null, remove it (the name answers NXDOMAIN once it has no record left). Mutates `names`.
 */
export function setAnswer(names: SplitName[], name: string, type: SplitName['type'], answer: string | null): void {
  const at = names.findIndex((n) => n.name.toLowerCase() === name.toLowerCase() && n.type === type);
  if (answer === null) {
    if (at >= 0) names.splice(at, 1);
  } else if (at >= 0) {
    names[at] = { name, type, answer };
  } else {
    names.push({ name, type, answer });
  }
}

/** Start the server on every address of `opts.hosts`; a malformed query is dropped, never fatal. */
export async function startSplitDns(opts: SplitDnsOptions): Promise<SplitDnsServer> {
  const port = opts.port ?? 53;
  const seen = new Map<string, number>();
  const count = (source: string) => seen.set(source, (seen.get(source) ?? 0) + 1);
  const udps: dgram.Socket[] = [];
  const tcps: net.Server[] = [];
  const sockets = new Set<net.Socket>();
  for (const host of opts.hosts) {
    const udp = dgram.createSocket({ type: net.isIPv6(host) ? 'udp6' : 'udp4', ipv6Only: net.isIPv6(host) });
    udp.on('error', () => {});
    udp.on('message', (msg, rinfo) => {
      let query: Packet;
      try { query = dnsPacket.decode(msg); } catch { return; }
      count(rinfo.address);
      udp.send(dnsPacket.encode(reply(query, rinfo.address, opts)), rinfo.port, rinfo.address);
    });
    await new Promise<void>((resolve, reject) => { udp.once('error', reject); udp.bind(port, host, () => { udp.off('error', reject); resolve(); }); });
    udps.push(udp);
    const tcp = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
      const messages = createFramer();
      socket.on('data', (chunk: Buffer) => {
        for (const message of messages(chunk)) {
          let query: Packet;
          try { query = dnsPacket.decode(message); } catch { socket.destroy(); return; }
          const source = socket.remoteAddress ?? '';
          count(source);
          socket.write(dnsPacket.streamEncode(reply(query, source, opts)));
        }
      });
    });
    await new Promise<void>((resolve, reject) => { tcp.once('error', reject); tcp.listen({ port, host, ipv6Only: net.isIPv6(host) }, () => resolve()); });
    tcps.push(tcp);
  }
  return {
    seen,
    close: async () => {
      for (const s of sockets) s.destroy();
      await Promise.all([
        ...udps.map((u) => new Promise<void>((resolve) => u.close(() => resolve()))),
        ...tcps.map((t) => new Promise<void>((resolve) => t.close(() => resolve()))),
      ]);
    },
  };
}
