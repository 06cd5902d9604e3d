/*
 * A DNS block list for tests: UDP on 127.0.0.1, authoritative for `zone` (default bl.test) the
 * way RFC 5782 lists answer. `listed` maps an address to its A code and TXT reason; every other
 * name under the zone is NXDOMAIN. `refusing: true` answers 127.255.255.254 for everything, as
 * Spamhaus answers a public resolver.
 */
import dgram from 'node:dgram';
import dnsPacket, { type Answer, type DecodedPacket } from 'dns-packet';
import { rblQueryName } from '../rbl.js';

export interface DnsblServer {
  /** `127.0.0.1:port`, ready for an rbl config's `server`. */
  server: string;
  /** Queries received so far. */
  readonly queries: number;
  close(): Promise<void>;
}

export async function startDnsblServer(opts: { zone?: string; listed: Record<string, { code: string; reason: string }>; refusing?: boolean }): Promise<DnsblServer> {
  const zone = opts.zone ?? 'bl.test';
  const byName = new Map(Object.entries(opts.listed).map(([address, entry]) => [rblQueryName(address, zone), entry]));
  const socket = dgram.createSocket('udp4');
  let queries = 0;
  socket.on('message', (msg, rinfo) => {
    queries++;
    let query: DecodedPacket;
    try { query = dnsPacket.decode(msg); } catch { return; }
    const q = query.questions?.[0];
    if (!q) return;
    const name = q.name.toLowerCase();
    const entry = opts.refusing ? { code: '127.255.255.254', reason: 'public resolver refused' } : byName.get(name);
    const base = { type: 'response' as const, id: query.id, flags: dnsPacket.AUTHORITATIVE_ANSWER, questions: query.questions };
    const answers: Answer[] = [];
    if (entry && q.type === 'A') answers.push({ name: q.name, type: 'A', ttl: 60, data: entry.code });
    if (entry && q.type === 'TXT') answers.push({ name: q.name, type: 'TXT', ttl: 60, data: [entry.reason] });
    const reply = entry || !name.endsWith(`.${zone}`) ? { ...base, answers } : { ...base, flags: base.flags | 3, answers };
    socket.send(dnsPacket.encode(reply), rinfo.port, rinfo.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    server: `127.0.0.1:${socket.address().port}`,
    get queries() { return queries; },
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
