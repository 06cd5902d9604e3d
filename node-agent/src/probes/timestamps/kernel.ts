import dgram from 'node:dgram';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { realtimeOffsetNs } from './realtime.js';

/**
 * Kernel receive timestamps for datagram and raw sockets, the way iputils ping and traceroute(8)
 * time replies: the kernel stamps every packet when it arrives (net_timestamp_check), and
 * SIOCGSTAMPNS (socket(7), sockios.h) returns the stamp of the last packet read from a socket.
 * Read right after the read, it excludes everything user space adds before the read: the
 * process's wake-up, the event loop busy with other work, the callback chain.
 *
 * Node exposes neither recvmsg control messages nor ioctl(2); the `ioctl` npm addon provides the
 * call. Without it (not built, not Linux x64/arm64), or whenever a stamp is implausible, the
 * callers keep their user-space hrtime, so nothing depends on this working.
 */

/** SIOCGSTAMPNS (0x8907): struct timespec of the last packet received, CLOCK_REALTIME. */
const SIOCGSTAMPNS = 0x8907;
/** A kernel stamp may sit this far outside [sent, read] before it is judged wrong (calibration error). */
const SLACK_NS = 20_000n;

type IoctlFn = (fd: number, request: number, arg?: Buffer | number) => number;

let ioctlFn: IoctlFn | null | undefined;

function loadIoctl(): IoctlFn | null {
  if (ioctlFn !== undefined) return ioctlFn;
  ioctlFn = null;
  // struct timespec is two 64-bit little-endian words only on these.
  if (process.platform !== 'linux' || !['x64', 'arm64'].includes(process.arch)) return null;
  try {
    ioctlFn = createRequire(import.meta.url)('ioctl') as IoctlFn;
  } catch {
    ioctlFn = null; // addon missing or not built: user-space timestamps only
  }
  return ioctlFn;
}

/** Reads the kernel receive time of the packet last read from one socket. */
export interface RxStamps {
  /**
   * The kernel receive time of the datagram just read, as a process.hrtime.bigint() value, or
   * null (no stamp, no clock offset). Call it synchronously in the read's callback, before the
   * next read of that socket.
   */
  last(): bigint | null;
}

let keeper: dgram.Socket | null = null;

/**
 * Keep the kernel stamping packets for the life of the process. The first socket that asks for
 * timestamps turns stamping on through deferred work (net_enable_timestamp), so a reply arriving
 * right after would carry none; once one socket holds it on, later sockets get it at once. The
 * holder is an unreferenced UDP socket on 127.0.0.1 that never receives anything.
 */
function keepStampingOn(ioctl: IoctlFn): void {
  if (keeper) return;
  const socket = dgram.createSocket('udp4');
  keeper = socket;
  socket.on('error', () => {}); // cannot bind here (no loopback address): the first replies go unstamped
  socket.bind(0, '127.0.0.1', () => {
    const fd = dgramFd(socket);
    try {
      if (fd !== null) ioctl(fd, SIOCGSTAMPNS, Buffer.alloc(16));
    } catch {
      // ENOENT: nothing received, which is expected; stamping is on
    }
  });
  socket.unref();
}

/**
 * Turn the kernel's receive stamping on and measure the realtime/hrtime offset now, at agent
 * start, rather than at the first probe: stamping is turned on through deferred work, so a
 * reply arriving right after the first socket asked for it carries none, and that first probe
 * would be timed from its read. Does nothing where stamps are unavailable; idempotent.
 */
export function prepareKernelStamps(): void {
  const ioctl = loadIoctl();
  if (!ioctl) return;
  keepStampingOn(ioctl);
  realtimeOffsetNs();
}

/**
 * Timestamps for the socket `fd`: turns them on at once (the first SIOCGSTAMPNS sets
 * SOCK_TIMESTAMP, so packets arriving from then on are stamped; call before sending). Null when
 * the ioctl addon is unavailable or the socket refuses.
 */
export function rxStamps(fd: number | null): RxStamps | null {
  const ioctl = loadIoctl();
  if (!ioctl || fd === null || fd < 0) return null;
  keepStampingOn(ioctl);
  const buf = Buffer.alloc(16);
  try {
    ioctl(fd, SIOCGSTAMPNS, buf);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return null; // ENOENT: nothing received yet
  }
  if (realtimeOffsetNs() === null) return null;
  return {
    last() {
      try {
        ioctl(fd, SIOCGSTAMPNS, buf);
      } catch {
        return null;
      }
      const offset = realtimeOffsetNs();
      if (offset === null) return null;
      const realtime = buf.readBigInt64LE(0) * 1_000_000_000n + buf.readBigInt64LE(8);
      return realtime - offset;
    },
  };
}

/**
 * The receive time to use for a reply: the kernel's stamp when it lies between the send (minus
 * a little calibration slack) and our read, else our own read time. hrtime ns.
 */
export function receiveTime(kernel_ns: bigint | null, sent_ns: bigint, read_ns: bigint): bigint {
  if (kernel_ns === null || kernel_ns < sent_ns - SLACK_NS || kernel_ns > read_ns + SLACK_NS) return read_ns;
  if (kernel_ns < sent_ns) return sent_ns;
  return kernel_ns > read_ns ? read_ns : kernel_ns;
}

/**
 * The file descriptor of a bound or connected dgram socket (Node keeps it on the handle in its
 * internal state; the public `_handle` getter is deprecated and warns). Null when not found.
 */
export function dgramFd(socket: dgram.Socket): number | null {
  const state = Object.getOwnPropertySymbols(socket).find((s) => s.description === 'state symbol');
  const handle = state ? (socket as unknown as Record<symbol, { handle?: { fd?: number } }>)[state]?.handle : undefined;
  return typeof handle?.fd === 'number' && handle.fd >= 0 ? handle.fd : null;
}

/**
 * The descriptors of this process's raw ICMP (family 4) or ICMPv6 (6) sockets: socket inodes
 * of /proc/self/fd that /proc/self/net/raw{,6} lists with that protocol (its "port" field).
 * raw-socket does not expose its descriptor; comparing this set before and after opening one
 * finds it. Empty when /proc is unreadable.
 */
export function rawIcmpFds(family: 4 | 6): Set<number> {
  const fds = new Set<number>();
  try {
    const proto = family === 4 ? 1 : 58;
    const inodes = new Set<string>();
    for (const line of readFileSync(`/proc/self/net/raw${family === 6 ? '6' : ''}`, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10) continue;
      if (parseInt(cols[1]!.split(':')[1] ?? '', 16) === proto) inodes.add(cols[9]!);
    }
    if (inodes.size === 0) return fds;
    for (const name of readdirSync('/proc/self/fd')) {
      let link: string;
      try {
        link = readlinkSync(`/proc/self/fd/${name}`);
      } catch {
        continue; // closed meanwhile
      }
      const m = /^socket:\[(\d+)\]$/.exec(link);
      if (m && inodes.has(m[1]!)) fds.add(Number(name));
    }
  } catch {
    // no /proc: no kernel timestamps
  }
  return fds;
}
