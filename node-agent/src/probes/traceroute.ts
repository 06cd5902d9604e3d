import dgram from 'node:dgram';
import type { FailureClass, TracerouteOutput } from '@vantage/shared-protocol';
import { icmpChannel, type IcmpLease, type PacketResult } from './icmp/channel.js';
import { buildEchoRequest } from './icmp/packet.js';
import { resolveTarget } from './resolve.js';
import type { Probe } from './types.js';

/** traceroute(8)'s first UDP destination port; probe n (from 0) goes to 33434 + n. */
export const UDP_BASE_PORT = 33434;
/** traceroute(8)'s default UDP payload: 32 bytes (60-byte IPv4 packets). */
const UDP_PAYLOAD = Buffer.alloc(32);
/** ICMP mode payload: 32 data bytes, the same packet size as UDP mode. */
const ICMP_DATA_BYTES = 32;

const round3 = (ms: number) => Math.round(ms * 1000) / 1000;

type SendProbe = (ttl: number, n: number) => Promise<PacketResult>;

/**
 * dgram's address lookup for a literal, answered synchronously: the default one answers on the
 * next tick, so sendto(2) ran after whatever else the tick did (the hop's other probes being
 * set up), all of it counted in the rtt. With this, send() reaches sendto at once.
 */
function literalLookup(address: string, family: unknown, callback: (err: Error | null, address: string, family: number) => void): void {
  callback(null, address, typeof family === 'number' && family ? family : address.includes(':') ? 6 : 4);
}

/** Open a UDP socket on an ephemeral port; its port identifies this traceroute's probes. */
function openUdp(family: 4 | 6): Promise<dgram.Socket> {
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
function udpSender(lease: IcmpLease, socket: dgram.Socket, address: string, timeout_ms: number, signal: AbortSignal): SendProbe {
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
function icmpSender(lease: IcmpLease, family: 4 | 6, address: string, timeout_ms: number, signal: AbortSignal): SendProbe {
  return (ttl, n) => lease.echo(address, n + 1, buildEchoRequest(family, lease.id, n + 1, ICMP_DATA_BYTES), ttl, timeout_ms, signal);
}

/** Whether `r` came from the destination itself: an echo reply, or any unreachable it sent (port unreachable in UDP mode). */
function fromDestination(r: PacketResult, address: string): boolean {
  return r.status === 'reply' || (r.status === 'unreachable' && r.from === address);
}

/**
 * Walk TTL 1..max_hops: send `probes_per_hop` probes with that TTL at once, wait for each answer
 * (up to timeout_ms), record the hop, and stop when the destination answered, a router said
 * unreachable (traceroute's !H/!N), a send failed, or `signal` aborted. Returns why it stopped.
 */
async function walk(send: SendProbe, address: string, params: { max_hops: number; probes_per_hop: number }, signal: AbortSignal, output: TracerouteOutput): Promise<{ error: string; error_class: FailureClass } | null> {
  for (let ttl = 1; ttl <= params.max_hops; ttl++) {
    if (signal.aborted) return { error: 'traceroute aborted', error_class: 'timeout' };
    const base = (ttl - 1) * params.probes_per_hop;
    const results = await Promise.all(Array.from({ length: params.probes_per_hop }, (_, i) => send(ttl, base + i)));
    const answered = results.find((r) => r.from !== null);
    output.hops.push({
      hop: ttl,
      address: answered?.from ?? null,
      rtts_ms: results.map((r) => (r.from !== null && r.rtt_ms !== null ? round3(r.rtt_ms) : null)),
    });
    if (results.some((r) => fromDestination(r, address))) {
      output.destination_reached = true;
      return null;
    }
    const unreachable = results.find((r) => r.status === 'unreachable');
    if (unreachable) return { error: `ICMP unreachable (code ${unreachable.code}) from ${unreachable.from} at hop ${ttl}`, error_class: 'unreachable' };
    const sendError = results.find((r) => r.status === 'send-error');
    if (sendError) return { error: `cannot send to ${address}: ${sendError.error}`, error_class: 'unreachable' };
  }
  return { error: `${address} not reached within ${params.max_hops} hops`, error_class: 'unreachable' };
}

/**
 * Traceroute probe (docs/api/probes.md) without a traceroute binary: ICMP mode sends echo requests (like
 * `traceroute -I`), UDP mode datagrams to ports 33434+ (like traceroute(8)); both read the Time
 * Exceeded / Destination Unreachable answers on the process's shared raw ICMP socket, matched by
 * the quoted probe (echo id/seq, or UDP ports) and the quoted destination. Per hop: the first
 * answering address and one rtt_ms (float, µs resolution) per probe, null for no answer; a silent
 * hop is `address: null` with all rtts null (`*`). Success: the destination answered
 * (`destination_reached`). Partial hops are returned when ctx.signal aborts.
 */
export const tracerouteProbe: Probe<'traceroute'> = {
  type: 'traceroute',
  async run(target, params, ctx) {
    const output: TracerouteOutput = { resolved_address: null, protocol: params.protocol, destination_reached: false, hops: [] };
    const resolved = await resolveTarget(target.trim(), params.ip_version, ctx.policy);
    if (!resolved.ok) return { success: false, error: resolved.error, error_class: resolved.error_class, output };
    const { address, family } = resolved;
    output.resolved_address = address;

    let lease: IcmpLease;
    try {
      lease = icmpChannel(family).lease();
    } catch (err) {
      const error = `cannot open a raw ICMP${family === 6 ? 'v6' : ''} socket: ${(err as Error).message} (traceroute needs root or CAP_NET_RAW)`;
      return { success: false, error, error_class: 'internal', output };
    }
    let udp: dgram.Socket | null = null;
    try {
      let send: SendProbe;
      if (params.protocol === 'udp') {
        udp = await openUdp(family);
        send = udpSender(lease, udp, address, params.timeout_ms, ctx.signal);
      } else {
        send = icmpSender(lease, family, address, params.timeout_ms, ctx.signal);
      }
      const stopped = await walk(send, address, params, ctx.signal, output);
      if (!stopped) return { success: true, error: null, error_class: null, output };
      return { success: false, ...stopped, output };
    } finally {
      udp?.close();
      lease.release();
    }
  },
};
