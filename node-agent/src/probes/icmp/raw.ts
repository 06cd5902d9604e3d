import { createRequire } from 'node:module';

/**
 * The part of raw-socket 1.8.1 (a CommonJS native addon without type declarations) that the ICMP
 * channel uses. See node_modules/raw-socket/README.md for the semantics: `send` queues the buffer
 * and calls `before` right before sendto(2), `after(error, bytes)` right after it.
 */
export interface RawSocket {
  on(event: 'message', listener: (buffer: Buffer, source: string) => void): this;
  on(event: 'error', listener: (error: Error) => void): this;
  on(event: 'close', listener: () => void): this;
  send(buffer: Buffer, offset: number, length: number, address: string, before: () => void, after: (error: Error | null, bytes: number) => void): this;
  setOption(level: number, option: number, value: Buffer, length: number): void;
  setOption(level: number, option: number, value: number): void;
  close(): this;
}

interface RawModule {
  createSocket(options: { protocol: number; addressFamily?: number; bufferSize?: number }): RawSocket;
  Protocol: { ICMP: number; ICMPv6: number };
  AddressFamily: { IPv4: number; IPv6: number };
  SocketLevel: { SOL_SOCKET: number; IPPROTO_IP: number; IPPROTO_IPV6: number };
  SocketOption: { IP_TTL: number; IPV6_UNICAST_HOPS: number; SO_RCVBUF: number };
}

const raw = createRequire(import.meta.url)('raw-socket') as RawModule;

/**
 * Open a raw ICMP (family 4) or ICMPv6 (family 6) socket in the calling process's network
 * namespace. Throws (EPERM, "Operation not permitted") without root or CAP_NET_RAW.
 * IPv4 reads include the IP header; IPv6 reads start at the ICMPv6 header and the kernel fills
 * in the ICMPv6 checksum on send (RFC 3542 section 3.1).
 */
export function openRawIcmp(family: 4 | 6): RawSocket {
  const socket = raw.createSocket(family === 4
    ? { protocol: raw.Protocol.ICMP, addressFamily: raw.AddressFamily.IPv4, bufferSize: 2048 }
    : { protocol: raw.Protocol.ICMPv6, addressFamily: raw.AddressFamily.IPv6, bufferSize: 2048 });
  // A larger kernel queue so a burst of replies (50 concurrent pings) is not dropped before we read it.
  try {
    socket.setOption(raw.SocketLevel.SOL_SOCKET, raw.SocketOption.SO_RCVBUF, 1 << 20);
  } catch {
    // the default queue still works; only bursts suffer
  }
  return socket;
}

/** IPPROTO_TCP (RFC 9293; the IANA protocol number, the same for IPv4 and IPv6). */
const PROTO_TCP = 6;

/**
 * Open a raw TCP socket for `family` (mtr TCP mode): sends SYN segments we build ourselves (the
 * kernel adds the IP header) and receives a copy of every TCP segment arriving at this host,
 * IPv4 ones with their IP header. Throws (EPERM) without root or CAP_NET_RAW.
 */
export function openRawTcp(family: 4 | 6): RawSocket {
  return raw.createSocket({ protocol: PROTO_TCP, addressFamily: family === 4 ? raw.AddressFamily.IPv4 : raw.AddressFamily.IPv6, bufferSize: 2048 });
}

const DEFAULT_HOPS = Buffer.alloc(4);
DEFAULT_HOPS.writeInt32LE(-1);

/**
 * Set the IPv4 TTL (IP_TTL) or IPv6 hop limit (IPV6_UNICAST_HOPS) of the next packets sent on
 * `socket`; `null` restores the system default (-1, ip(7) and ipv6(7)). Throws on a bad value.
 */
export function setHopLimit(socket: RawSocket, family: 4 | 6, ttl: number | null): void {
  const level = family === 4 ? raw.SocketLevel.IPPROTO_IP : raw.SocketLevel.IPPROTO_IPV6;
  const option = family === 4 ? raw.SocketOption.IP_TTL : raw.SocketOption.IPV6_UNICAST_HOPS;
  if (ttl === null) socket.setOption(level, option, DEFAULT_HOPS, 4);
  else socket.setOption(level, option, ttl);
}
