import { normaliseAddress, parseIcmp, type IcmpMessage } from './packet.js';
import { openRawIcmp, setHopLimit, type RawSocket } from './raw.js';
import { rawIcmpFds, receiveTime, rxStamps, type RxStamps } from '../timestamps/kernel.js';

/**
 * How one probe packet ended. `reply` is an echo reply from the target; `time-exceeded` and
 * `unreachable` are ICMP errors (from a router, or the target's port unreachable) quoting the
 * packet; `timeout` means nothing matched within timeout_ms; `send-error` that sendto(2) failed
 * (no route, say); `aborted` that the probe's signal fired first. rtt_ms is a float in ms from
 * hrtime just before sendto(2) to the kernel's receive timestamp of the answer (SIOCGSTAMPNS, as
 * iputils ping and traceroute(8) use), or to hrtime at the socket read when the kernel's stamp is
 * unavailable; null when no answer.
 */
export interface PacketResult {
  status: 'reply' | 'time-exceeded' | 'unreachable' | 'timeout' | 'send-error' | 'aborted';
  from: string | null;
  ttl: number | null;
  code: number | null;
  port_unreachable: boolean;
  rtt_ms: number | null;
  error: string | null;
}

interface Waiter {
  /** Normalised target address: the echo reply's source or the quoted packet's destination. */
  address: string;
  sent_ns: bigint | null;
  finish(result: PacketResult): void;
}

const miss = (status: PacketResult['status'], error: string | null = null): PacketResult =>
  ({ status, from: null, ttl: null, code: null, port_unreachable: false, rtt_ms: null, error });

/**
 * One raw ICMP socket per address family per process, shared by every ping and traceroute
 * running at the same time. The kernel hands every ICMP message to every raw socket, so replies
 * are demultiplexed here: echo replies and errors quoting an echo by (identifier, sequence),
 * errors quoting a UDP datagram by (source port, destination port), and in both cases the
 * address must be the one probed. Identifiers are leased, unique among active probes.
 * The socket opens with the first lease and closes with the last, so an idle process can exit.
 */
export class IcmpChannel {
  private socket: RawSocket | null = null;
  /** Kernel receive timestamps of `socket`, null when unavailable (user-space read time then). */
  private stamps: RxStamps | null = null;
  /** The TTL last set on the socket (undefined: unknown), so a run of equal TTLs costs no setsockopt. */
  private socketTtl: number | null | undefined = undefined;
  private readonly ids = new Set<number>();
  private readonly waiters = new Map<string, Waiter>();

  constructor(readonly family: 4 | 6) {}

  /**
   * Reserve a random 16-bit identifier not used by another active probe and make sure the socket
   * is open. Throws when the raw socket cannot be opened (EPERM without root / CAP_NET_RAW) or
   * when all 65536 identifiers are taken.
   */
  lease(): IcmpLease {
    if (this.ids.size >= 0x10000) throw new Error('no free ICMP identifier');
    this.open();
    let id: number;
    do id = Math.floor(Math.random() * 0x10000); while (this.ids.has(id));
    this.ids.add(id);
    return new IcmpLease(this, id);
  }

  /** @internal Release an identifier; the last release closes the socket. */
  release(id: number): void {
    if (!this.ids.delete(id)) return;
    if (this.ids.size === 0 && this.socket) {
      const socket = this.socket;
      this.socket = null;
      socket.close();
    }
  }

  private open(): void {
    if (this.socket) return;
    const before = rawIcmpFds(this.family);
    const socket = openRawIcmp(this.family);
    // raw-socket hides its descriptor: it is the one raw ICMP socket that was not there before.
    const added = [...rawIcmpFds(this.family)].filter((fd) => !before.has(fd));
    this.stamps = added.length === 1 ? rxStamps(added[0]!) : null;
    this.socketTtl = undefined;
    socket.on('message', (buf, source) => this.onMessage(buf, source));
    socket.on('error', (err) => this.onSocketError(socket, err));
    socket.on('close', () => { if (this.socket === socket) this.socket = null; });
    this.socket = socket;
  }

  private onSocketError(socket: RawSocket, err: Error): void {
    // raw-socket closes the socket after an error: fail what was waiting on it; the next lease reopens.
    if (this.socket === socket) this.socket = null;
    for (const [key, waiter] of this.waiters) {
      this.waiters.delete(key);
      waiter.finish(miss('send-error', `raw socket error: ${err.message}`));
    }
  }

  private onMessage(buf: Buffer, source: string): void {
    const recv_ns = process.hrtime.bigint();
    const msg = parseIcmp(this.family, buf);
    if (!msg) return;
    const key = messageKey(msg);
    const waiter = this.waiters.get(key);
    if (!waiter) return;
    let from: string;
    try {
      from = normaliseAddress(source);
    } catch {
      return;
    }
    const address = msg.kind === 'echo-reply' ? from : msg.quoted.dst;
    if (address !== waiter.address) return; // another host answering with a colliding key
    this.waiters.delete(key);
    // Still inside raw-socket's read callback: the kernel's stamp is this packet's.
    const sent_ns = waiter.sent_ns ?? recv_ns;
    const rtt_ms = Number(receiveTime(this.stamps?.last() ?? null, sent_ns, recv_ns) - sent_ns) / 1e6;
    waiter.finish(msg.kind === 'echo-reply'
      ? { status: 'reply', from, ttl: msg.ttl, code: 0, port_unreachable: false, rtt_ms, error: null }
      : { status: msg.kind, from, ttl: msg.ttl, code: msg.code, port_unreachable: msg.port_unreachable, rtt_ms, error: null });
  }

  /**
   * @internal Register a waiter under `key`, run `send(mark)` (which must call `mark()` right
   * before the packet leaves), and resolve with the match, a timeout after `timeout_ms`, or an abort.
   */
  expect(key: string, address: string, timeout_ms: number, signal: AbortSignal, send: (waiter: Waiter) => void): Promise<PacketResult> {
    if (this.waiters.has(key)) return Promise.resolve(miss('send-error', `probe key ${key} already in flight`));
    if (signal.aborted) return Promise.resolve(miss('aborted'));
    let normalised: string;
    try {
      normalised = normaliseAddress(address);
    } catch {
      return Promise.resolve(miss('send-error', `not an address this socket can use: ${address}`));
    }
    return new Promise((resolve) => {
      const onAbort = () => waiter.finish(miss('aborted'));
      const timer = setTimeout(() => waiter.finish(miss('timeout')), timeout_ms);
      let done = false;
      const waiter: Waiter = {
        address: normalised,
        sent_ns: null,
        finish: (result) => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          if (this.waiters.get(key) === waiter) this.waiters.delete(key);
          resolve(result);
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.set(key, waiter);
      send(waiter);
    });
  }

  /**
   * @internal Finish the waiter under `key` with an answer read on another socket: the target's
   * SYN-ACK or RST to a TCP SYN probe (tcp-socket.ts), from `from` (normalised) at hrtime `recv_ns`.
   * Ignored when nothing waits under `key` or `from` is not the address probed.
   */
  answer(key: string, from: string, recv_ns: bigint): void {
    const waiter = this.waiters.get(key);
    if (!waiter || waiter.address !== from) return;
    this.waiters.delete(key);
    const rtt_ms = Number(recv_ns - (waiter.sent_ns ?? recv_ns)) / 1e6;
    waiter.finish({ status: 'reply', from, ttl: null, code: 0, port_unreachable: false, rtt_ms, error: null });
  }

  /** @internal Queue `packet` on the raw socket with the given TTL (null: system default). */
  sendRaw(packet: Buffer, address: string, ttl: number | null, waiter: Waiter): void {
    if (!this.socket) {
      // The socket died (raw-socket closes it after an error) while this probe still holds a lease.
      try {
        this.open();
      } catch (err) {
        waiter.finish(miss('send-error', `cannot reopen raw ICMP socket: ${(err as Error).message}`));
        return;
      }
    }
    const socket = this.socket!;
    socket.send(packet, 0, packet.length, address, () => {
      if (this.socketTtl !== ttl || this.socket !== socket) {
        this.socketTtl = undefined; // stays unknown if setsockopt throws
        setHopLimit(socket, this.family, ttl);
        this.socketTtl = ttl;
      }
      waiter.sent_ns = process.hrtime.bigint();
    }, (err) => {
      if (err) waiter.finish(miss('send-error', err.message));
    });
  }
}

/** The key of a TCP SYN probe: its ports and sequence number, quoted by an ICMP error and acknowledged (seq + 1) by the target. */
export function tcpKey(src_port: number, dst_port: number, seq: number): string {
  return `t:${src_port}:${dst_port}:${seq >>> 0}`;
}

/** The demultiplexing key of a received message (see IcmpChannel). */
function messageKey(msg: IcmpMessage): string {
  if (msg.kind === 'echo-reply') return `e:${msg.id}:${msg.seq}`;
  const q = msg.quoted;
  if (q.proto === 'icmp') return `e:${q.id}:${q.seq}`;
  return q.proto === 'udp' ? `u:${q.src_port}:${q.dst_port}` : tcpKey(q.src_port, q.dst_port, q.seq);
}

/** Sends one probe on a socket other than the raw ICMP one (UDP, raw TCP): calls `mark()` just before it leaves, `fail(message)` when it cannot be sent. */
export type SendWith = (mark: () => void, fail: (error: string) => void) => void;

/** A probe's hold on an identifier of a shared channel; call release() when the probe ends. */
export class IcmpLease {
  constructor(private readonly channel: IcmpChannel, readonly id: number) {}

  /**
   * Send one echo request with sequence `seq` (taken modulo 65536; keep it unique within this
   * lease while in flight) to `address` with IP TTL / hop limit `ttl` (null: system default),
   * and wait up to `timeout_ms` for the echo reply or an ICMP error quoting it.
   */
  echo(address: string, seq: number, packet: Buffer, ttl: number | null, timeout_ms: number, signal: AbortSignal): Promise<PacketResult> {
    return this.channel.expect(`e:${this.id}:${seq & 0xffff}`, address, timeout_ms, signal, (waiter) => {
      this.channel.sendRaw(packet, address, ttl, waiter);
    });
  }

  /**
   * Wait for an ICMP error quoting a UDP datagram `src_port` → `address`:`dst_port` that
   * `send(mark)` sends (traceroute UDP mode); `send` calls `mark()` just before the datagram leaves
   * and reports a send failure by calling `fail(message)`.
   */
  udp(address: string, src_port: number, dst_port: number, timeout_ms: number, signal: AbortSignal, send: SendWith): Promise<PacketResult> {
    return this.sendWith(`u:${src_port}:${dst_port}`, address, timeout_ms, signal, send);
  }

  /**
   * Wait for the answer to a TCP SYN `src_port` → `address`:`dst_port` with sequence number `seq`
   * that `send(mark, fail)` sends (mtr TCP mode): an ICMP error quoting it, or the target's SYN-ACK
   * or RST acknowledging seq + 1 (status `reply`, handed over by tcp-socket.ts).
   */
  tcp(address: string, src_port: number, dst_port: number, seq: number, timeout_ms: number, signal: AbortSignal, send: SendWith): Promise<PacketResult> {
    return this.sendWith(tcpKey(src_port, dst_port, seq), address, timeout_ms, signal, send);
  }

  private sendWith(key: string, address: string, timeout_ms: number, signal: AbortSignal, send: SendWith): Promise<PacketResult> {
    return this.channel.expect(key, address, timeout_ms, signal, (waiter) => {
      send(() => { waiter.sent_ns = process.hrtime.bigint(); }, (error) => waiter.finish(miss('send-error', error)));
    });
  }

  release(): void {
    this.channel.release(this.id);
  }
}

const channels = new Map<4 | 6, IcmpChannel>();

/** The process-wide ICMP channel for an address family (created on first use). */
export function icmpChannel(family: 4 | 6): IcmpChannel {
  let channel = channels.get(family);
  if (!channel) {
    channel = new IcmpChannel(family);
    channels.set(family, channel);
  }
  return channel;
}
