import { Resolver } from 'node:dns/promises';
import { setMaxListeners } from 'node:events';
import { MTR_TCP_PORT_DEFAULT, type FailureClass, type MtrOutput, type MtrParams } from '@vantage/shared-protocol';
import type { PacketResult } from './icmp/channel.js';
import { resolveAndLease } from './icmp/lease.js';
import type { IcmpLease } from './icmp/channel.js';
import { fromDestination, icmpSender, openUdp, tcpSender, udpSender, type SendProbe } from './icmp/senders.js';
import { sourceAddressFor, tcpSynSocket } from './icmp/tcp-socket.js';
import { HopStats } from './mtr-stats.js';
import type { Probe } from './types.js';

/** How long a hop's reverse DNS look-up may take, ms. */
const REVERSE_TIMEOUT_MS = 1000;

/** A hop's reverse DNS name, or null (no PTR, no answer within REVERSE_TIMEOUT_MS, or aborted). */
async function reverseName(address: string, signal: AbortSignal): Promise<string | null> {
  const resolver = new Resolver({ timeout: REVERSE_TIMEOUT_MS, tries: 1 });
  const stop = () => resolver.cancel();
  signal.addEventListener('abort', stop, { once: true });
  try {
    const [name] = await resolver.reverse(address);
    return name && name.length <= 253 ? name : null;
  } catch {
    return null;
  } finally {
    signal.removeEventListener('abort', stop);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (ms <= 0 || signal.aborted) return resolve();
    const done = () => { clearTimeout(timer); signal.removeEventListener('abort', done); resolve(); };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

interface Walk {
  stats: HopStats[];
  /** TTL at which the destination answered (smallest seen), null while not reached. */
  dest_ttl: number | null;
  /** TTL of a router that answered Destination Unreachable: the path ends there. */
  end_ttl: number | null;
  stopped: { error: string; error_class: FailureClass } | null;
}

/** Record one round's answers (index i = TTL i + 1) and move the path's end. */
function record(walk: Walk, results: PacketResult[], address: string): void {
  results.forEach((r, i) => {
    const ttl = i + 1;
    const stats = (walk.stats[i] ??= new HopStats(ttl));
    stats.add(r.from, r.rtt_ms);
    if (fromDestination(r, address)) walk.dest_ttl = Math.min(walk.dest_ttl ?? ttl, ttl);
    else if (r.status === 'unreachable') walk.end_ttl = Math.min(walk.end_ttl ?? ttl, ttl);
  });
  if (results.length > 0 && results.every((r) => r.status === 'send-error')) {
    walk.stopped = { error: `cannot send to ${address}: ${results[0]!.error}`, error_class: 'unreachable' };
  }
}

/**
 * Run `count` rounds, one starting every interval_ms whether or not the previous ones were
 * answered (as mtr paces its probes; a silent hop does not slow the rounds down), then wait for
 * the last answers (up to timeout_ms). Round 1 probes TTL 1..max_hops at once; a round starts with
 * TTLs only up to the destination's (or the router that said unreachable) once an earlier round
 * found it, as mtr narrows to the path it found.
 */
async function rounds(send: SendProbe, address: string, params: MtrParams, signal: AbortSignal, output: MtrOutput): Promise<Walk> {
  const walk: Walk = { stats: [], dest_ttl: null, end_ttl: null, stopped: null };
  const inFlight: Promise<void>[] = [];
  let n = 0;
  for (let round = 0; round < params.count && !signal.aborted && !walk.stopped; round++) {
    const top = walk.dest_ttl ?? walk.end_ttl ?? params.max_hops;
    inFlight.push(Promise.all(Array.from({ length: top }, (_, i) => send(i + 1, n++))).then((results) => {
      if (signal.aborted && results.some((r) => r.status === 'aborted')) return; // an unfinished round is not counted
      record(walk, results, address);
      output.rounds++;
    }));
    if (round + 1 < params.count) await sleep(params.interval_ms, signal);
  }
  await Promise.all(inFlight);
  return walk;
}

/**
 * The sender for `params.protocol` and what to close after the run. Throws when the UDP socket or
 * the raw TCP socket cannot be opened, or (error_class `unreachable`) when no route leads to `address`.
 */
async function openSender(lease: IcmpLease, family: 4 | 6, address: string, params: MtrParams, signal: AbortSignal): Promise<{ send: SendProbe; close: () => void }> {
  if (params.protocol === 'udp') {
    const udp = await openUdp(family);
    return { send: udpSender(lease, udp, address, params.timeout_ms, signal), close: () => udp.close() };
  }
  if (params.protocol === 'tcp') {
    const local = await sourceAddressFor(address, family).catch((err: Error) => {
      throw Object.assign(new Error(`no route to ${address}: ${err.message}`), { error_class: 'unreachable' as FailureClass });
    });
    const tcp = tcpSynSocket(family);
    tcp.acquire();
    return { send: tcpSender(lease, tcp, local, address, params.port ?? MTR_TCP_PORT_DEFAULT, params.timeout_ms, signal), close: () => tcp.release() };
  }
  return { send: icmpSender(lease, family, address, params.timeout_ms, signal), close: () => {} };
}

/** The hops to report: up to the destination (or the unreachable router), else up to the last that answered. */
function hopsToReport(walk: Walk): HopStats[] {
  const last = walk.dest_ttl ?? walk.end_ttl ?? walk.stats.reduce((m, s) => (s.received > 0 ? s.hop : m), 0);
  return walk.stats.slice(0, last);
}

/**
 * mtr probe (docs/api/probes.md "mtr"): traceroute repeated over `count` rounds with per-hop loss
 * and rtt statistics, the columns of `mtr --report` (Loss%, Snt, Last, Avg, Best, Wrst, StDev).
 * Native, no mtr binary: ICMP mode sends echo requests, UDP mode datagrams to ports 33434+, TCP
 * mode SYNs to `params.port` (default 80) from a raw TCP socket, with the senders of
 * icmp/senders.ts; routers' answers are read on the shared raw ICMP socket, the target's SYN-ACK
 * or RST on the raw TCP one. A hop's `address` is the first that answered at its TTL; `hostname`
 * its PTR name when `params.hostnames`; `asn` is null here (the control plane fills it in from
 * its offline ASN data when it stores the result). Success: the destination answered in some
 * round. On ctx.signal the rounds finished so far are returned.
 */
export const mtrProbe: Probe<'mtr'> = {
  type: 'mtr',
  async run(target, params, ctx) {
    const output: MtrOutput = { resolved_address: null, protocol: params.protocol, destination_reached: false, rounds: 0, hops: [] };
    const got = await resolveAndLease(target, params.ip_version, ctx.policy, 'mtr');
    output.resolved_address = got.address;
    if (!got.ok) return { success: false, error: got.error, error_class: got.error_class, output };
    const { address, family, lease } = got;
    // Every probe in flight listens for the abort: up to max_hops per round, rounds overlapping while unanswered.
    setMaxListeners(params.max_hops * (Math.ceil(params.timeout_ms / params.interval_ms) + 1) + 10, ctx.signal);
    let walk: Walk;
    try {
      let sender: Awaited<ReturnType<typeof openSender>>;
      try {
        sender = await openSender(lease, family, address, params, ctx.signal);
      } catch (err) {
        // No route is the target's class; a socket that cannot be opened (EPERM) is the node's.
        const error_class = (err as { error_class?: FailureClass }).error_class ?? 'internal';
        return { success: false, error: `cannot start ${params.protocol} probes to ${address}: ${(err as Error).message}`, error_class, output };
      }
      try {
        walk = await rounds(sender.send, address, params, ctx.signal, output);
      } finally {
        sender.close();
      }
    } finally {
      lease.release();
    }
    const hops = hopsToReport(walk);
    const names = await Promise.all(hops.map((h) => (params.hostnames && h.address ? reverseName(h.address, ctx.signal) : null)));
    output.hops = hops.map((h, i) => h.report(names[i] ?? null, null));
    output.destination_reached = walk.dest_ttl !== null;
    if (output.destination_reached) return { success: true, error: null, error_class: null, output };
    if (walk.stopped) return { success: false, ...walk.stopped, output };
    if (ctx.signal.aborted) return { success: false, error: `mtr aborted after ${output.rounds} rounds`, error_class: 'timeout', output };
    const error = walk.end_ttl !== null ? `destination unreachable from hop ${walk.end_ttl}` : `${address} not reached within ${params.max_hops} hops`;
    return { success: false, error, error_class: 'unreachable', output };
  },
};
