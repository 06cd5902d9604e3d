/*
 * A real DNS server for tests and benchmarks: UDP and TCP on the same 127.0.0.1 port, built with
 * dns-packet, authoritative for a small `example.test` zone. Names with behaviour:
 *   example.test          A, AAAA, MX, TXT, NS, SOA, CAA (and ANY: all of them)
 *   www.example.test      CNAME example.test (plus the target's records, as a recursive resolver answers)
 *   big.example.test      40 long TXT records: larger than the advertised UDP size, so TC over UDP
 *   tc.example.test       A, but every UDP reply is truncated (TC, no answers) whatever its size
 *   empty.example.test    A only: other types give NOERROR with no answers (NODATA) and the SOA
 *   servfail.example.test SERVFAIL;  refused.example.test REFUSED
 *   silent.example.test   never answered (UDP dropped, TCP held open): for timeouts
 *   spoof.example.test    A, but over UDP three forged datagrams come first (wrong id, wrong
 *                         question, QR bit clear) carrying SPOOFED_ADDRESS; a client must skip them
 *   anything else         NXDOMAIN with the zone SOA in the authority section
 * `silent: true` makes the whole server silent; `delay_ms` delays every reply (benchmarks).
 */
import dgram from 'node:dgram';
import net from 'node:net';
import dnsPacket, { type Answer, type DecodedPacket, type Packet } from 'dns-packet';
import { createFramer } from '../dns/tcp.js';

export const ZONE = 'example.test';
/** The address in the forged replies for spoof.example.test; a client that returns it accepted a forgery. */
export const SPOOFED_ADDRESS = '198.18.0.66';
const TTL = 300;
const SOA: Answer = { name: ZONE, type: 'SOA', ttl: 3600, data: { mname: `ns1.${ZONE}`, rname: `hostmaster.${ZONE}`, serial: 2026112201, refresh: 7200, retry: 3600, expire: 1209600, minimum: 300 } };

const rr = (name: string, type: string, data: unknown, ttl = TTL): Answer => ({ name, type, ttl, data }) as Answer;

/** The zone's records by lower-case name. */
export const RECORDS: Record<string, Answer[]> = {
  [ZONE]: [
    rr(ZONE, 'A', '198.18.0.10'),
    rr(ZONE, 'A', '198.18.0.11'),
    rr(ZONE, 'AAAA', 'fd00:7661::10'),
    rr(ZONE, 'MX', { preference: 10, exchange: `mail.${ZONE}` }),
    rr(ZONE, 'MX', { preference: 20, exchange: `backup.${ZONE}` }),
    rr(ZONE, 'TXT', ['v=spf1 -all']),
    rr(ZONE, 'TXT', ['hello', 'world "quoted"']),
    rr(ZONE, 'NS', `ns1.${ZONE}`),
    rr(ZONE, 'NS', `ns2.${ZONE}`),
    SOA,
    rr(ZONE, 'CAA', { flags: 0, tag: 'issue', value: 'letsencrypt.org' }),
  ],
  [`www.${ZONE}`]: [rr(`www.${ZONE}`, 'CNAME', ZONE)],
  [`big.${ZONE}`]: Array.from({ length: 40 }, (_, i) => rr(`big.${ZONE}`, 'TXT', [`${String(i).padStart(2, '0')}-${'x'.repeat(200)}`])),
  [`tc.${ZONE}`]: [rr(`tc.${ZONE}`, 'A', '198.18.0.12')],
  [`empty.${ZONE}`]: [rr(`empty.${ZONE}`, 'A', '198.18.0.13')],
  [`spoof.${ZONE}`]: [rr(`spoof.${ZONE}`, 'A', '198.18.0.14')],
};

export interface DnsTestServerOptions {
  host?: string;
  /** A fixed port (53 inside a test namespace); default a free one. */
  port?: number;
  /** Wait this long (ms) before every reply. */
  delay_ms?: number;
  /** Answer nothing at all. */
  silent?: boolean;
}

export interface DnsTestServer {
  host: string;
  port: number;
  /** `host:port` (IPv6 bracketed), ready for `params.server`. */
  server: string;
  /** Queries received per transport. */
  stats: { udp: number; tcp: number };
  close(): Promise<void>;
}

/** Build the reply for one query (null: stay silent). Pure: exported for reading, used by both transports. */
export function answerQuery(query: DecodedPacket): Packet | null {
  const q = query.questions?.[0];
  const base = { type: 'response' as const, id: query.id, flags: dnsPacket.AUTHORITATIVE_ANSWER | ((query.flags ?? 0) & dnsPacket.RECURSION_DESIRED), questions: query.questions ?? [] };
  if (!q) return { ...base, flags: base.flags | 1 /* FORMERR */ };
  const name = q.name.toLowerCase();
  if (name === `silent.${ZONE}`) return null;
  if (name === `servfail.${ZONE}`) return { ...base, flags: base.flags | 2 };
  if (name === `refused.${ZONE}`) return { ...base, flags: base.flags | 5 };
  const records = RECORDS[name];
  if (!records) return { ...base, flags: base.flags | 3, authorities: [SOA] };
  const qtype: string = q.type;
  const pick = (list: Answer[]) => list.filter((a) => qtype === 'ANY' || a.type === qtype);
  let answers = pick(records);
  const cname = records.find((a) => a.type === 'CNAME');
  if (cname && qtype !== 'CNAME' && qtype !== 'ANY') answers = [cname, ...pick(RECORDS[String((cname as { data: string }).data)] ?? [])];
  return { ...base, answers, authorities: answers.length === 0 ? [SOA] : [] };
}

/** The UDP size the client advertised (EDNS OPT, RFC 6891) or 512 (RFC 1035 4.2.1). */
function udpLimit(query: DecodedPacket): number {
  const opt = query.additionals?.find((a) => a.type === 'OPT') as { udpPayloadSize?: number } | undefined;
  return Math.max(512, opt?.udpPayloadSize ?? 512);
}

/** Start the server on `host` (default 127.0.0.1), a free port shared by UDP and TCP. */
export async function startDnsServer(options: DnsTestServerOptions = {}): Promise<DnsTestServer> {
  const host = options.host ?? '127.0.0.1';
  const delay_ms = options.delay_ms ?? 0;
  const stats = { udp: 0, tcp: 0 };
  // Timers tick in whole ms (libuv), so a plain setTimeout would add up to 1 ms of jitter; sleep
  // to within 1 ms and then spin with setImmediate to the exact delay (benchmarks compare medians).
  const later = (fn: () => void) => {
    if (delay_ms <= 0) return fn();
    const due = performance.now() + delay_ms;
    const spin = () => (performance.now() >= due ? fn() : setImmediate(spin));
    setTimeout(spin, Math.max(0, delay_ms - 1.5));
  };
  const connections = new Set<net.Socket>();

  const onDatagram = (udp: dgram.Socket, msg: Buffer, rinfo: dgram.RemoteInfo) => {
    stats.udp++;
    let query: DecodedPacket;
    try { query = dnsPacket.decode(msg); } catch { return; }
    const reply = options.silent ? null : answerQuery(query);
    if (!reply) return;
    const send = (p: Packet) => udp.send(dnsPacket.encode(p), rinfo.port, rinfo.address);
    later(() => {
      if (query.questions?.[0]?.name.toLowerCase() === `spoof.${ZONE}`) {
        const forged = [rr(`spoof.${ZONE}`, 'A', SPOOFED_ADDRESS)];
        send({ ...reply, answers: forged, id: (query.id! + 1) & 0xffff });
        send({ ...reply, answers: forged, questions: [{ name: `other.${ZONE}`, type: 'A', class: 'IN' }] });
        send({ ...reply, answers: forged, type: 'query' });
      }
      let wire = dnsPacket.encode(reply);
      if (wire.length > udpLimit(query) || query.questions?.[0]?.name.toLowerCase() === `tc.${ZONE}`) {
        wire = dnsPacket.encode({ ...reply, flags: (reply.flags ?? 0) | dnsPacket.TRUNCATED_RESPONSE, answers: [], authorities: [] });
      }
      udp.send(wire, rinfo.port, rinfo.address);
    });
  };
  const makeUdp = () => {
    const socket = dgram.createSocket(net.isIPv6(host) ? 'udp6' : 'udp4');
    socket.on('message', (msg, rinfo) => onDatagram(socket, msg, rinfo));
    return socket;
  };

  const tcp = net.createServer((socket) => {
    connections.add(socket);
    socket.on('close', () => connections.delete(socket));
    socket.on('error', () => {});
    const messages = createFramer();
    socket.on('data', (chunk: Buffer) => {
      for (const message of messages(chunk)) {
        stats.tcp++;
        let query: DecodedPacket;
        try { query = dnsPacket.decode(message); } catch { socket.destroy(); return; }
        const reply = options.silent ? null : answerQuery(query);
        if (reply) later(() => { if (!socket.destroyed) socket.write(dnsPacket.streamEncode(reply)); });
      }
    });
  });

  // Bind UDP to a free port, then TCP to the same number; retry if TCP finds it taken.
  let port = 0;
  let udp = makeUdp();
  for (let attempt = 0; ; attempt++) {
    await new Promise<void>((resolve, reject) => { udp.once('error', reject); udp.bind(options.port ?? 0, host, () => { udp.off('error', reject); resolve(); }); });
    port = udp.address().port;
    const ok = await new Promise<boolean>((resolve) => {
      tcp.once('error', () => resolve(false));
      tcp.listen(port, host, () => resolve(true));
    });
    if (ok) break;
    if (attempt > 20 || options.port !== undefined) throw new Error('no free port for UDP and TCP');
    await new Promise<void>((resolve) => udp.close(() => resolve()));
    udp = makeUdp();
  }
  udp.on('error', () => {});

  return {
    host,
    port,
    server: net.isIPv6(host) ? `[${host}]:${port}` : `${host}:${port}`,
    stats,
    close: async () => {
      for (const c of connections) c.destroy();
      await Promise.all([
        new Promise<void>((resolve) => udp.close(() => resolve())),
        new Promise<void>((resolve) => tcp.close(() => resolve())),
      ]);
    },
  };
}
