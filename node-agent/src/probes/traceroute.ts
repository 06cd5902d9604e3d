import type dgram from 'node:dgram';
import type { FailureClass, TracerouteOutput } from '@vantage/shared-protocol';
import { resolveAndLease } from './icmp/lease.js';
import { fromDestination, icmpSender, openUdp, round3, udpSender, type SendProbe } from './icmp/senders.js';
import type { Probe } from './types.js';

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
    const got = await resolveAndLease(target, params.ip_version, ctx.policy, 'traceroute');
    output.resolved_address = got.address;
    if (!got.ok) return { success: false, error: got.error, error_class: got.error_class, output };
    const { address, family, lease } = got;
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
