import dgram from 'node:dgram';
import net from 'node:net';
import { icmpChannel, tcpKey } from './channel.js';
import { normaliseAddress } from './packet.js';
import { openRawTcp, setHopLimit, type RawSocket } from './raw.js';
import { answeredSeq, parseTcpSegment } from './tcp-syn.js';

/**
 * One raw TCP socket per address family per process, shared by the TCP-mode probes running at
 * the same time, opened by the first acquire() and closed by the last release(). It sends SYN
 * probes with a chosen TTL and hands the target's SYN-ACK or RST to the waiter of the probe it
 * acknowledges on the ICMP channel (channel.ts answer(), key tcpKey), where the ICMP errors
 * quoting the same probe are matched too. The kernel, which holds no connection for the SYN,
 * answers the SYN-ACK with a RST, as for traceroute -T.
 */
export class TcpSynSocket {
  private socket: RawSocket | null = null;
  private users = 0;

  constructor(readonly family: 4 | 6) {}

  /** Take a hold on the socket, opening it if needed. Throws (EPERM) without root or CAP_NET_RAW. */
  acquire(): void {
    if (!this.socket) {
      const socket = openRawTcp(this.family);
      socket.on('message', (buf, source) => this.onMessage(buf, source));
      // raw-socket closes the socket after an error; the probes in flight then time out.
      socket.on('error', () => { if (this.socket === socket) this.socket = null; });
      this.socket = socket;
    }
    this.users++;
  }

  /** Drop a hold; the last one closes the socket. */
  release(): void {
    if (this.users === 0 || --this.users > 0 || !this.socket) return;
    this.socket.close();
    this.socket = null;
  }

  /**
   * Send `segment` (tcp-syn.ts buildSyn) to `address` with IP TTL / hop limit `ttl`; `mark()` runs
   * right before sendto(2), `fail(message)` when it cannot be sent.
   */
  send(segment: Buffer, address: string, ttl: number, mark: () => void, fail: (error: string) => void): void {
    const socket = this.socket;
    if (!socket) return fail('raw TCP socket is closed');
    socket.send(segment, 0, segment.length, address, () => {
      setHopLimit(socket, this.family, ttl);
      mark();
    }, (err) => { if (err) fail(err.message); });
  }

  private onMessage(buf: Buffer, source: string): void {
    const recv_ns = process.hrtime.bigint();
    const segment = parseTcpSegment(this.family, buf);
    const seq = segment && answeredSeq(segment);
    if (!segment || seq === null) return;
    let from: string;
    try {
      from = normaliseAddress(source);
    } catch {
      return;
    }
    // The answer goes from the target's port back to the probe's source port.
    icmpChannel(this.family).answer(tcpKey(segment.dst_port, segment.src_port, seq), from, recv_ns);
  }
}

const sockets = new Map<4 | 6, TcpSynSocket>();

/** The process-wide raw TCP socket of an address family (created on first use, opened by acquire()). */
export function tcpSynSocket(family: 4 | 6): TcpSynSocket {
  let socket = sockets.get(family);
  if (!socket) {
    socket = new TcpSynSocket(family);
    sockets.set(family, socket);
  }
  return socket;
}

/**
 * The local address the kernel picks for packets to `address` (a connected UDP socket's name, no
 * packet sent): the source a SYN's checksum must cover. Rejects when there is no route.
 */
export function sourceAddressFor(address: string, family: 4 | 6): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket(family === 4 ? 'udp4' : 'udp6');
    socket.once('error', (err) => { socket.close(); reject(err); });
    socket.connect(9, address, () => {
      const local = socket.address().address;
      socket.close();
      resolve(local);
    });
  });
}

/**
 * Reserve a TCP port on `local` for one SYN probe, as traceroute -T holds a socket per probe: a
 * listener on an ephemeral port, so no connection of this host uses the probe's 4-tuple, and a
 * SYN-ACK reaching it is answered by a RST. Connections it accepts are closed at once.
 * Resolves with the port and a close function; rejects when no port can be bound.
 */
export function reservePort(local: string): Promise<{ port: number; close: () => void }> {
  return new Promise((resolve, reject) => {
    const server = net.createServer((s) => s.destroy());
    server.once('error', reject);
    server.listen({ port: 0, host: local, backlog: 1 }, () => {
      server.off('error', reject);
      resolve({ port: (server.address() as net.AddressInfo).port, close: () => server.close() });
    });
  });
}
