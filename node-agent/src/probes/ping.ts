import { setTimeout as sleep } from 'node:timers/promises';
import type { FailureClass, PingOutput } from '@vantage/shared-protocol';
import { icmpChannel, type PacketResult } from './icmp/channel.js';
import { buildEchoRequest } from './icmp/packet.js';
import { resolveTarget } from './resolve.js';
import type { Probe } from './types.js';

const round3 = (ms: number) => Math.round(ms * 1000) / 1000;

/**
 * Round-trip statistics as iputils ping prints them: min, avg, max and mdev, the population
 * standard deviation sqrt(mean(rtt²) − mean(rtt)²) (iputils ping_common.c). Input and output in
 * ms, output rounded to the microsecond; all null for an empty list.
 */
export function rttStats(rtts_ms: number[]): { min: number | null; avg: number | null; max: number | null; stddev: number | null } {
  if (rtts_ms.length === 0) return { min: null, avg: null, max: null, stddev: null };
  let sum = 0;
  let sum2 = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const rtt of rtts_ms) {
    sum += rtt;
    sum2 += rtt * rtt;
    if (rtt < min) min = rtt;
    if (rtt > max) max = rtt;
  }
  const avg = sum / rtts_ms.length;
  const stddev = Math.sqrt(Math.max(0, sum2 / rtts_ms.length - avg * avg));
  return { min: round3(min), avg: round3(avg), max: round3(max), stddev: round3(stddev) };
}

/** Fill the statistics of `output` from the per-packet results (sequence numbers from 1, like iputils). */
function summarise(output: PingOutput, results: PacketResult[]): void {
  const rtts: number[] = [];
  output.packets = results.map((r, i) => {
    const answered = r.status === 'reply' && r.rtt_ms !== null;
    if (answered) rtts.push(r.rtt_ms!);
    return { seq: i + 1, rtt_ms: answered ? round3(r.rtt_ms!) : null, ttl: answered ? r.ttl : null };
  });
  output.packets_received = rtts.length;
  output.packet_loss = output.packets_sent === 0 ? 0 : Math.round(((output.packets_sent - rtts.length) / output.packets_sent) * 10000) / 100;
  const stats = rttStats(rtts);
  output.rtt_min_ms = stats.min;
  output.rtt_avg_ms = stats.avg;
  output.rtt_max_ms = stats.max;
  output.rtt_stddev_ms = stats.stddev;
}

/** Why nothing came back: an ICMP unreachable or a failed send says `unreachable`, silence `timeout`. */
function failure(address: string, results: PacketResult[], timeout_ms: number): { error: string; error_class: FailureClass } {
  const unreachable = results.find((r) => r.status === 'unreachable' || r.status === 'time-exceeded');
  if (unreachable) return { error: `${address}: ICMP ${unreachable.status} (code ${unreachable.code}) from ${unreachable.from}`, error_class: 'unreachable' };
  const sendError = results.find((r) => r.status === 'send-error');
  if (sendError) return { error: `cannot send to ${address}: ${sendError.error}`, error_class: 'unreachable' };
  return { error: `no echo reply from ${address}: ${results.length} sent, 0 received within ${timeout_ms} ms each`, error_class: 'timeout' };
}

/**
 * ICMP echo probe (docs/api/probes.md ping; RFC 792 / RFC 4443) over the process's shared raw socket, no
 * ping binary. Sends `count` echo requests of 56 data bytes `interval_ms` apart (each sent on
 * schedule, answered or not, like iputils), each waiting up to `timeout_ms` for its reply.
 * Output: per packet seq (from 1), rtt_ms (µs resolution: hrtime just before sendto → the kernel's
 * receive timestamp of the reply, as iputils reads it; the socket read when the kernel's stamp is
 * unavailable, see icmp/channel.ts) and
 * ttl (IPv4 reply TTL; null over IPv6, whose hop limit raw-socket cannot read); sent/received,
 * loss %, min/avg/max/stddev (iputils mdev). Success: at least one reply. Stops sending when
 * ctx.signal aborts and returns what it measured. Resolves with resolveTarget (policy applies).
 */
export const pingProbe: Probe<'ping'> = {
  type: 'ping',
  async run(target, params, ctx) {
    const output: PingOutput = {
      resolved_address: null, packets_sent: 0, packets_received: 0, packet_loss: 0,
      rtt_min_ms: null, rtt_avg_ms: null, rtt_max_ms: null, rtt_stddev_ms: null, packets: [],
    };
    const resolved = await resolveTarget(target.trim(), params.ip_version, ctx.policy);
    if (!resolved.ok) return { success: false, error: resolved.error, error_class: resolved.error_class, output };
    const { address, family } = resolved;
    output.resolved_address = address;

    let lease;
    try {
      lease = icmpChannel(family).lease();
    } catch (err) {
      const error = `cannot open a raw ICMP${family === 6 ? 'v6' : ''} socket: ${(err as Error).message} (ping needs root or CAP_NET_RAW)`;
      return { success: false, error, error_class: 'internal', output };
    }
    const pending: Promise<PacketResult>[] = [];
    try {
      for (let seq = 1; seq <= params.count && !ctx.signal.aborted; seq++) {
        if (seq > 1) {
          try {
            await sleep(params.interval_ms, undefined, { signal: ctx.signal });
          } catch {
            break; // aborted between packets
          }
        }
        output.packets_sent++;
        pending.push(lease.echo(address, seq, buildEchoRequest(family, lease.id, seq), null, params.timeout_ms, ctx.signal));
      }
      const results = await Promise.all(pending);
      summarise(output, results);
      if (output.packets_received > 0) return { success: true, error: null, error_class: null, output };
      if (ctx.signal.aborted) return { success: false, error: 'ping aborted before any reply', error_class: 'timeout', output };
      return { success: false, ...failure(address, results, params.timeout_ms), output };
    } finally {
      lease.release();
    }
  },
};
