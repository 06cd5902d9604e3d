import ipaddr from 'ipaddr.js';
import { internetChecksum } from './packet.js';

/** TCP header flags (RFC 9293 3.1). */
export const TCP_FLAG = { SYN: 0x02, RST: 0x04, ACK: 0x10 } as const;

const PROTO_TCP = 6;
/** A SYN's header: 20 bytes and one MSS option (kind 2, length 4), as traceroute -T sends. */
const SYN_BYTES = 24;
/** The advertised window of a SYN probe, Linux's initial 64240 bytes. */
const SYN_WINDOW = 64240;

/** The TCP pseudo-header of RFC 9293 3.1 (IPv4) and RFC 8200 8.1 (IPv6) for a segment of `length` bytes. */
function pseudoHeader(src: string, dst: string, length: number): Buffer {
  const s = ipaddr.parse(src).toByteArray();
  const d = ipaddr.parse(dst).toByteArray();
  if (s.length !== d.length) throw new Error(`source ${src} and destination ${dst} differ in family`);
  if (s.length === 4) {
    const h = Buffer.alloc(12);
    h.set(s, 0);
    h.set(d, 4);
    h[9] = PROTO_TCP;
    h.writeUInt16BE(length, 10);
    return h;
  }
  const h = Buffer.alloc(40);
  h.set(s, 0);
  h.set(d, 16);
  h.writeUInt32BE(length, 32);
  h[39] = PROTO_TCP;
  return h;
}

/**
 * A TCP SYN segment (RFC 9293 3.1) from `src`:`src_port` to `dst`:`dst_port` with sequence
 * number `seq` (32-bit), an MSS option (1460 bytes over IPv4, 1440 over IPv6) and its checksum
 * over the pseudo-header, so a raw socket can send it as is (the kernel adds only the IP header).
 * Throws when the addresses are not literals of one family.
 */
export function buildSyn(src: string, dst: string, src_port: number, dst_port: number, seq: number): Buffer {
  const tcp = Buffer.alloc(SYN_BYTES);
  tcp.writeUInt16BE(src_port, 0);
  tcp.writeUInt16BE(dst_port, 2);
  tcp.writeUInt32BE(seq >>> 0, 4);
  tcp[12] = (SYN_BYTES / 4) << 4;
  tcp[13] = TCP_FLAG.SYN;
  tcp.writeUInt16BE(SYN_WINDOW, 14);
  tcp[20] = 2;
  tcp[21] = 4;
  tcp.writeUInt16BE(src.includes(':') ? 1440 : 1460, 22);
  tcp.writeUInt16BE(internetChecksum(Buffer.concat([pseudoHeader(src, dst, SYN_BYTES), tcp])), 16);
  return tcp;
}

/** What a received TCP segment says about the probe it may answer. */
export interface TcpSegment {
  src_port: number;
  dst_port: number;
  seq: number;
  ack: number;
  flags: number;
}

/**
 * Parse what a raw TCP socket read: for IPv4 an IP header (IHL words) then TCP, for IPv6 the TCP
 * header alone. Returns null for a truncated or malformed read. Never throws.
 */
export function parseTcpSegment(family: 4 | 6, buf: Buffer): TcpSegment | null {
  let tcp = buf;
  if (family === 4) {
    if (buf.length < 20 || buf[0]! >> 4 !== 4 || buf[9] !== PROTO_TCP) return null;
    tcp = buf.subarray((buf[0]! & 0x0f) * 4);
  }
  if (tcp.length < 20) return null;
  return { src_port: tcp.readUInt16BE(0), dst_port: tcp.readUInt16BE(2), seq: tcp.readUInt32BE(4), ack: tcp.readUInt32BE(8), flags: tcp[13]! };
}

/**
 * The sequence number of the SYN `segment` answers, or null when it answers none: the target's
 * SYN-ACK (port open) or RST-ACK (port closed) acknowledges the SYN's sequence number + 1 (RFC
 * 9293 3.5 and 3.10.7.1); a segment without ACK, or with neither SYN nor RST, is not an answer.
 */
export function answeredSeq(segment: TcpSegment): number | null {
  const { flags } = segment;
  if (!(flags & TCP_FLAG.ACK) || !(flags & (TCP_FLAG.SYN | TCP_FLAG.RST))) return null;
  return (segment.ack - 1) >>> 0;
}
