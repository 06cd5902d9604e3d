import ipaddr from 'ipaddr.js';

/** ICMP type numbers (RFC 792 for IPv4, RFC 4443 for IPv6). */
export const ICMP4 = { ECHO_REPLY: 0, UNREACHABLE: 3, ECHO_REQUEST: 8, TIME_EXCEEDED: 11, PORT_UNREACHABLE_CODE: 3 } as const;
export const ICMP6 = { UNREACHABLE: 1, TIME_EXCEEDED: 3, ECHO_REQUEST: 128, ECHO_REPLY: 129, PORT_UNREACHABLE_CODE: 4 } as const;

const PROTO_ICMP = 1;
const PROTO_TCP = 6;
const PROTO_UDP = 17;
const PROTO_ICMPV6 = 58;

/** The echo data length iputils ping sends by default (56 bytes, 64 with the ICMP header). */
export const ECHO_DATA_BYTES = 56;

/**
 * The Internet checksum (RFC 1071): one's complement of the one's complement sum of 16-bit words,
 * an odd last byte padded with zero. Returns a 16-bit number.
 */
export function internetChecksum(buf: Uint8Array): number {
  let sum = 0;
  const even = buf.length & ~1;
  for (let i = 0; i < even; i += 2) sum += (buf[i]! << 8) | buf[i + 1]!;
  if (buf.length & 1) sum += buf[buf.length - 1]! << 8;
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return ~sum & 0xffff;
}

/**
 * An ICMP echo request (RFC 792 / RFC 4443 4.1): type, code 0, checksum, identifier, sequence and
 * `data_bytes` of pattern data. The IPv4 checksum is computed here; for IPv6 it is left zero
 * because the kernel computes it over the pseudo-header (RFC 3542 3.1).
 * @param id 16-bit identifier; @param seq 16-bit sequence number (taken modulo 65536).
 */
export function buildEchoRequest(family: 4 | 6, id: number, seq: number, data_bytes = ECHO_DATA_BYTES): Buffer {
  const buf = Buffer.alloc(8 + data_bytes);
  buf[0] = family === 4 ? ICMP4.ECHO_REQUEST : ICMP6.ECHO_REQUEST;
  buf.writeUInt16BE(id & 0xffff, 4);
  buf.writeUInt16BE(seq & 0xffff, 6);
  for (let i = 0; i < data_bytes; i++) buf[8 + i] = 0x10 + (i & 0x3f);
  if (family === 4) buf.writeUInt16BE(internetChecksum(buf), 2);
  return buf;
}

/** What a quoted (offending) packet inside an ICMP error says about the probe it answers. */
export type Quoted =
  | { proto: 'icmp'; dst: string; id: number; seq: number }
  | { proto: 'udp'; dst: string; src_port: number; dst_port: number }
  | { proto: 'tcp'; dst: string; src_port: number; dst_port: number; seq: number };

/**
 * One received ICMP message the probes care about. `from` is the sender (normalised address
 * text), `ttl` the IPv4 TTL of the reply (null for IPv6: raw-socket does not expose the hop
 * limit ancillary data). Errors carry the quoted probe so it can be matched to its sender.
 */
export type IcmpMessage =
  | { kind: 'echo-reply'; ttl: number | null; id: number; seq: number }
  | { kind: 'time-exceeded' | 'unreachable'; ttl: number | null; code: number; port_unreachable: boolean; quoted: Quoted };

/** Normalise an address literal (compressed IPv6, dotted IPv4) so string comparison works. */
export function normaliseAddress(address: string): string {
  return ipaddr.parse(address).toString();
}

function parseQuoted(family: 4 | 6, q: Buffer): Quoted | null {
  let proto: number;
  let dst: string;
  let inner: Buffer;
  if (family === 4) {
    if (q.length < 20 || q[0]! >> 4 !== 4) return null;
    const ihl = (q[0]! & 0x0f) * 4;
    proto = q[9]!;
    dst = ipaddr.fromByteArray([...q.subarray(16, 20)]).toString();
    inner = q.subarray(ihl);
  } else {
    if (q.length < 40 || q[0]! >> 4 !== 6) return null;
    proto = q[6]!;
    dst = ipaddr.fromByteArray([...q.subarray(24, 40)]).toString();
    inner = q.subarray(40);
  }
  if (inner.length < 8) return null; // RFC 792 quotes at least 8 bytes of the original datagram
  const echoType = family === 4 ? ICMP4.ECHO_REQUEST : ICMP6.ECHO_REQUEST;
  if ((proto === PROTO_ICMP || proto === PROTO_ICMPV6) && inner[0] === echoType) {
    return { proto: 'icmp', dst, id: inner.readUInt16BE(4), seq: inner.readUInt16BE(6) };
  }
  if (proto === PROTO_UDP) return { proto: 'udp', dst, src_port: inner.readUInt16BE(0), dst_port: inner.readUInt16BE(2) };
  // The first 8 bytes of a TCP header: ports and sequence number (RFC 9293 3.1).
  if (proto === PROTO_TCP) return { proto: 'tcp', dst, src_port: inner.readUInt16BE(0), dst_port: inner.readUInt16BE(2), seq: inner.readUInt32BE(4) };
  return null;
}

/**
 * Parse what a raw ICMP socket read: for IPv4 an IP header (IHL words) then ICMP, for IPv6 the
 * ICMPv6 message alone. Returns null for anything that is not an echo reply, Time Exceeded or
 * Destination Unreachable quoting an echo request, UDP datagram or TCP segment (our own echo requests on
 * loopback, neighbour discovery, truncated or malformed packets). Never throws.
 */
export function parseIcmp(family: 4 | 6, buf: Buffer): IcmpMessage | null {
  let ttl: number | null = null;
  let icmp = buf;
  if (family === 4) {
    if (buf.length < 20 || buf[0]! >> 4 !== 4) return null;
    ttl = buf[8]!;
    icmp = buf.subarray((buf[0]! & 0x0f) * 4);
  }
  if (icmp.length < 8) return null;
  const type = icmp[0]!;
  const code = icmp[1]!;
  const T = family === 4 ? ICMP4 : ICMP6;
  if (type === T.ECHO_REPLY) return { kind: 'echo-reply', ttl, id: icmp.readUInt16BE(4), seq: icmp.readUInt16BE(6) };
  if (type !== T.TIME_EXCEEDED && type !== T.UNREACHABLE) return null;
  const quoted = parseQuoted(family, icmp.subarray(8));
  if (!quoted) return null;
  const kind = type === T.TIME_EXCEEDED ? 'time-exceeded' : 'unreachable';
  return { kind, ttl, code, port_unreachable: kind === 'unreachable' && code === T.PORT_UNREACHABLE_CODE, quoted };
}
