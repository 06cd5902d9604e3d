import t from 'tap';
import { buildEchoRequest, internetChecksum, parseIcmp } from './packet.js';
import { buildSyn } from './tcp-syn.js';

/** An IPv4 header (20 bytes, no options) with protocol `proto`, TTL `ttl`, src and dst. */
function ipv4(proto: number, ttl: number, src: number[], dst: number[], payload: Buffer): Buffer {
  const h = Buffer.alloc(20);
  h[0] = 0x45;
  h.writeUInt16BE(20 + payload.length, 2);
  h[8] = ttl;
  h[9] = proto;
  Buffer.from(src).copy(h, 12);
  Buffer.from(dst).copy(h, 16);
  h.writeUInt16BE(internetChecksum(h), 10);
  return Buffer.concat([h, payload]);
}

/** An IPv6 header (40 bytes) with next header `next`, hop limit 64, src and dst (16 bytes each). */
function ipv6(next: number, src: number[], dst: number[], payload: Buffer): Buffer {
  const h = Buffer.alloc(40);
  h[0] = 0x60;
  h.writeUInt16BE(payload.length, 4);
  h[6] = next;
  h[7] = 64;
  Buffer.from(src).copy(h, 8);
  Buffer.from(dst).copy(h, 24);
  return Buffer.concat([h, payload]);
}

const icmpHeader = (type: number, code: number, rest = Buffer.alloc(4)) => Buffer.concat([Buffer.from([type, code, 0, 0]), rest]);
const udpHeader = (sport: number, dport: number) => {
  const u = Buffer.alloc(8);
  u.writeUInt16BE(sport, 0);
  u.writeUInt16BE(dport, 2);
  u.writeUInt16BE(8 + 32, 4);
  return Buffer.concat([u, Buffer.alloc(32)]);
};
const V4_ME = [198, 18, 1, 2];
const V4_HOST = [198, 18, 3, 2];
const V4_ROUTER = [198, 18, 1, 1];
const v6 = (last: number) => [0xfd, 0x00, 0x76, 0x61, 0, 3, ...Array(9).fill(0), last];

t.test('internet checksum (RFC 1071 section 3 example and odd length)', async (t) => {
  // RFC 1071's words 0001 f203 f4f5 f6f7 sum to ddf2 (one's complement add), so the checksum is 220d.
  t.equal(internetChecksum(Buffer.from([0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7])), 0x220d);
  t.equal(internetChecksum(Buffer.from([0xff])), 0x00ff);
  const echo = buildEchoRequest(4, 0x1234, 7);
  t.equal(internetChecksum(echo), 0, 'a packet with its checksum filled in sums to zero');
});

t.test('echo request layout', async (t) => {
  const v4 = buildEchoRequest(4, 0xbeef, 0x10001); // seq wraps modulo 65536
  t.equal(v4.length, 64, '8-byte header + 56 data bytes, like iputils');
  t.equal(v4[0], 8);
  t.equal(v4.readUInt16BE(4), 0xbeef);
  t.equal(v4.readUInt16BE(6), 1);
  const v6echo = buildEchoRequest(6, 1, 2, 32);
  t.equal(v6echo.length, 40);
  t.equal(v6echo[0], 128);
  t.equal(v6echo.readUInt16BE(2), 0, 'ICMPv6 checksum left to the kernel');
});

t.test('parse: table of received messages', async (t) => {
  const echoReq4 = buildEchoRequest(4, 0x4242, 9);
  const echoReq6 = buildEchoRequest(6, 0x4242, 9);
  const cases: { name: string; family: 4 | 6; buf: Buffer; want: unknown }[] = [
    {
      name: 'v4 echo reply with TTL from the IP header',
      family: 4,
      buf: ipv4(1, 62, V4_HOST, V4_ME, Buffer.concat([icmpHeader(0, 0, Buffer.from([0x42, 0x42, 0, 9])), Buffer.alloc(56)])),
      want: { kind: 'echo-reply', ttl: 62, id: 0x4242, seq: 9 },
    },
    {
      name: 'v4 time exceeded quoting our echo',
      family: 4,
      buf: ipv4(1, 64, V4_ROUTER, V4_ME, Buffer.concat([icmpHeader(11, 0), ipv4(1, 1, V4_ME, V4_HOST, echoReq4.subarray(0, 8))])),
      want: { kind: 'time-exceeded', ttl: 64, code: 0, port_unreachable: false, quoted: { proto: 'icmp', dst: '198.18.3.2', id: 0x4242, seq: 9 } },
    },
    {
      name: 'v4 port unreachable quoting a UDP probe',
      family: 4,
      buf: ipv4(1, 63, V4_HOST, V4_ME, Buffer.concat([icmpHeader(3, 3), ipv4(17, 1, V4_ME, V4_HOST, udpHeader(40000, 33436))])),
      want: { kind: 'unreachable', ttl: 63, code: 3, port_unreachable: true, quoted: { proto: 'udp', dst: '198.18.3.2', src_port: 40000, dst_port: 33436 } },
    },
    {
      name: 'v4 host unreachable is not a port unreachable',
      family: 4,
      buf: ipv4(1, 64, V4_ROUTER, V4_ME, Buffer.concat([icmpHeader(3, 1), ipv4(1, 1, V4_ME, V4_HOST, echoReq4)])),
      want: { kind: 'unreachable', ttl: 64, code: 1, port_unreachable: false, quoted: { proto: 'icmp', dst: '198.18.3.2', id: 0x4242, seq: 9 } },
    },
    { name: 'v4 our own echo request (seen on loopback) is ignored', family: 4, buf: ipv4(1, 64, V4_ME, V4_ME, echoReq4), want: null },
    {
      name: 'v4 time exceeded quoting a TCP SYN: ports and sequence number',
      family: 4,
      buf: ipv4(1, 64, V4_ROUTER, V4_ME, Buffer.concat([icmpHeader(11, 0), ipv4(6, 1, V4_ME, V4_HOST, buildSyn('198.18.1.2', '198.18.3.2', 40001, 443, 0xfeedbeef).subarray(0, 8))])),
      want: { kind: 'time-exceeded', ttl: 64, code: 0, port_unreachable: false, quoted: { proto: 'tcp', dst: '198.18.3.2', src_port: 40001, dst_port: 443, seq: 0xfeedbeef } },
    },
    { name: 'v4 error quoting another protocol (GRE) is ignored', family: 4, buf: ipv4(1, 64, V4_ROUTER, V4_ME, Buffer.concat([icmpHeader(11, 0), ipv4(47, 1, V4_ME, V4_HOST, Buffer.alloc(20))])), want: null },
    { name: 'v4 error with a quote shorter than 8 bytes is ignored', family: 4, buf: ipv4(1, 64, V4_ROUTER, V4_ME, Buffer.concat([icmpHeader(11, 0), ipv4(1, 1, V4_ME, V4_HOST, echoReq4.subarray(0, 4))])), want: null },
    { name: 'v4 truncated header', family: 4, buf: Buffer.from([0x45, 0, 0]), want: null },
    { name: 'v4 not an IPv4 packet', family: 4, buf: Buffer.alloc(40, 0x60), want: null },
    {
      name: 'v6 echo reply: no IP header, no hop limit',
      family: 6,
      buf: Buffer.concat([icmpHeader(129, 0, Buffer.from([0x42, 0x42, 0, 9])), Buffer.alloc(56)]),
      want: { kind: 'echo-reply', ttl: null, id: 0x4242, seq: 9 },
    },
    {
      name: 'v6 time exceeded quoting our echo',
      family: 6,
      buf: Buffer.concat([icmpHeader(3, 0), ipv6(58, v6(1), v6(2), echoReq6)]),
      want: { kind: 'time-exceeded', ttl: null, code: 0, port_unreachable: false, quoted: { proto: 'icmp', dst: 'fd00:7661:3::2', id: 0x4242, seq: 9 } },
    },
    {
      name: 'v6 port unreachable (code 4) quoting UDP',
      family: 6,
      buf: Buffer.concat([icmpHeader(1, 4), ipv6(17, v6(1), v6(2), udpHeader(5000, 33434))]),
      want: { kind: 'unreachable', ttl: null, code: 4, port_unreachable: true, quoted: { proto: 'udp', dst: 'fd00:7661:3::2', src_port: 5000, dst_port: 33434 } },
    },
    { name: 'v6 neighbour solicitation is ignored', family: 6, buf: Buffer.concat([icmpHeader(135, 0), Buffer.alloc(16)]), want: null },
    { name: 'v6 empty read', family: 6, buf: Buffer.alloc(0), want: null },
  ];
  for (const c of cases) t.same(parseIcmp(c.family, c.buf), c.want, c.name);
});
