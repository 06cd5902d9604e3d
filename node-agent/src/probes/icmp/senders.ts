import dgram from 'node:dgram';
import { randomInt } from 'node:crypto';
import type { IcmpLease, PacketResult } from './channel.js';
import { buildEchoRequest } from './packet.js';
import { buildSyn } from './tcp-syn.js';
import { reservePort, type TcpSynSocket } from './tcp-socket.js';

/*
 * Probe senders shared by traceroute and mtr: one probe with a chosen TTL, its answer read on the
 * process's shared raw ICMP socket (channel.ts).
 */

/** traceroute(8)'s first UDP destination port; probe n (from 0) goes to 33434 + n. */
export const UDP_BASE_PORT = 33434;
/** traceroute(8)'s default UDP payload: 32 bytes (60-byte IPv4 packets). */
const UDP_PAYLOAD = Buffer.alloc(32);
/** ICMP mode payload: 32 data bytes, the same packet size as UDP mode. */
const ICMP_DATA_BYTES = 32;

/** A time in ms rounded to µs, as the hop rtts are reported. */
export const round3 = (ms: number) => Math.round(ms * 1000) / 1000;

/** Send probe number `n` (unique within the run, from 0) with IP TTL `ttl`; resolves with how it ended. */
export type SendProbe = (ttl: number, n: number) => Promise<PacketResult>;

/**
 * dgram's address lookup for a literal, answered synchronously: the default one answers on the
 * next tick, so sendto(2) ran after whatever else the tick did (the hop's other probes being
 * set up), all of it counted in the rtt. With this, send() reaches sendto at once.
 */
function literalLookup(address: string, family: unknown, callback: (err: Error | null, address: string, family: number) => void): void {
  callback(null, address, typeof family === 'number' && family ? family : address.includes(':') ? 6 : 4);
}

/** Open a UDP socket on an ephemeral port; its port identifies this traceroute's probes. */
export function openUdp(family: 4 | 6): Promise<dgram.Socket> {
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket({ type: family === 4 ? 'udp4' : 'udp6', lookup: literalLookup as never });
    socket.once('error', reject);
    socket.bind(0, () => {
      socket.off('error', reject);
      socket.on('error', () => {}); // unconnected: ICMP errors are read on the raw socket, not here
      resolve(socket);
    });
  });
}

/**
 * UDP probe sender (classic traceroute): datagram to `address`:33434+n from the socket's port with
 * the socket's TTL set to `ttl`; the answer is an ICMP error quoting the datagram, matched on the
 * shared ICMP channel by (source port, destination port).
 */
export function udpSender(lease: IcmpLease, socket: dgram.Socket, address: string, timeout_ms: number, signal: AbortSignal): SendProbe {
  const src_port = socket.address().port;
  return (ttl, n) => {
    const dst_port = UDP_BASE_PORT + n;
    return lease.udp(address, src_port, dst_port, timeout_ms, signal, (mark, fail) => {
      try {
        socket.setTTL(ttl);
      } catch (err) {
        fail((err as Error).message);
        return;
      }
      mark(); // send() below reaches sendto(2) synchronously (literalLookup)
      socket.send(UDP_PAYLOAD, dst_port, address, (err) => { if (err) fail(err.message); });
    });
  };
}

/** ICMP probe sender (traceroute -I): echo request with sequence n+1 and IP TTL `ttl`. */
export function icmpSender(lease: IcmpLease, family: 4 | 6, address: string, timeout_ms: number, signal: AbortSignal): SendProbe {
  return (ttl, n) => lease.echo(address, n + 1, buildEchoRequest(family, lease.id, n + 1, ICMP_DATA_BYTES), ttl, timeout_ms, signal);
}

/**
 * TCP probe sender (traceroute -T, `mtr --tcp`): a SYN to `address`:`port` with IP TTL `ttl` from
 * a port reserved on `local` for this probe (tcp-socket.ts reservePort) with a random sequence
 * number, sent on the raw TCP socket `tcp` (held by the caller). A router's Time Exceeded quotes
 * it; the target answers SYN-ACK (open) or RST (closed), both status `reply`.
 */
export function tcpSender(lease: IcmpLease, tcp: TcpSynSocket, local: string, address: string, port: number, timeout_ms: number, signal: AbortSignal): SendProbe {
  return async (ttl) => {
    let reserved: Awaited<ReturnType<typeof reservePort>>;
    try {
      reserved = await reservePort(local);
    } catch (err) {
      return { status: 'send-error', from: null, ttl: null, code: null, port_unreachable: false, rtt_ms: null, error: `cannot reserve a TCP port: ${(err as Error).message}` };
    }
    try {
      const seq = randomInt(0x100000000);
      const syn = buildSyn(local, address, reserved.port, port, seq);
      return await lease.tcp(address, reserved.port, port, seq, timeout_ms, signal, (mark, fail) => tcp.send(syn, address, ttl, mark, fail));
    } finally {
      reserved.close();
    }
  };
}

/** Whether `r` came from the destination itself: an echo reply (or TCP SYN-ACK/RST), or any unreachable it sent (port unreachable in UDP mode). */
export function fromDestination(r: PacketResult, address: string): boolean {
  return r.status === 'reply' || (r.status === 'unreachable' && r.from === address);
}

