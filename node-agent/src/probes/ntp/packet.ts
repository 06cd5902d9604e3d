/*
 * NTP packets (RFC 5905 7.3; SNTP, RFC 4330 4): the 48-byte header without extensions or MAC.
 * Timestamps are 64-bit: seconds since 1900-01-01 and a 32-bit fraction.
 */

/** Seconds from the NTP epoch (1900) to the Unix epoch (1970). */
export const NTP_UNIX_OFFSET_S = 2_208_988_800;
export const NTP_PACKET_BYTES = 48;
const FRACTION = 2 ** 32;

/** The clock in Unix ms with sub-ms resolution (the same source for T1 and T4). */
export function nowMs(): number {
  return performance.timeOrigin + performance.now();
}

/** Write Unix ms `ms` as an NTP timestamp at `offset` (era 0 up to 2036, then era 1 by wrapping, RFC 4330 3). */
export function writeTimestamp(buf: Buffer, offset: number, ms: number): void {
  const total = ms / 1000 + NTP_UNIX_OFFSET_S;
  const seconds = Math.floor(total);
  buf.writeUInt32BE(seconds % FRACTION, offset);
  buf.writeUInt32BE(Math.min(FRACTION - 1, Math.floor((total - seconds) * FRACTION)), offset + 4);
}

/** Read an NTP timestamp as Unix ms; seconds with the top bit clear are taken as era 1 (after 2036, RFC 4330 3). */
export function readTimestamp(buf: Buffer, offset: number): number {
  let seconds = buf.readUInt32BE(offset);
  if (seconds < 0x80000000) seconds += FRACTION;
  return (seconds - NTP_UNIX_OFFSET_S) * 1000 + (buf.readUInt32BE(offset + 4) / FRACTION) * 1000;
}

/** Leap indicator names (RFC 5905 Figure 9). */
export const LEAP = ['none', 'add_second', 'del_second', 'unsynchronized'] as const;

/** The header fields of a server reply, times as Unix ms or ms. */
export interface NtpHeader {
  leap: (typeof LEAP)[number];
  version: number;
  mode: number;
  stratum: number;
  root_delay_ms: number;
  root_dispersion_ms: number;
  /** The raw 4 bytes; see referenceIdText. */
  reference_id: Buffer;
  /** The origin timestamp's raw 8 bytes (must echo our transmit timestamp). */
  origin: Buffer;
  receive_ms: number;
  transmit_ms: number;
  transmit_zero: boolean;
}

/** A client request (mode 3, version 4) whose transmit timestamp is `t1_ms`. */
export function buildRequest(t1_ms: number): Buffer {
  const buf = Buffer.alloc(NTP_PACKET_BYTES);
  buf[0] = (0 << 6) | (4 << 3) | 3;
  writeTimestamp(buf, 40, t1_ms);
  return buf;
}

/** Parse a reply header; null when shorter than 48 bytes. */
export function parseHeader(buf: Buffer): NtpHeader | null {
  if (buf.length < NTP_PACKET_BYTES) return null;
  const short = (offset: number) => (buf.readUInt32BE(offset) / 65536) * 1000;
  return {
    leap: LEAP[buf[0]! >> 6]!,
    version: (buf[0]! >> 3) & 7,
    mode: buf[0]! & 7,
    stratum: buf[1]!,
    root_delay_ms: short(4),
    root_dispersion_ms: short(8),
    reference_id: buf.subarray(12, 16),
    origin: buf.subarray(24, 32),
    receive_ms: readTimestamp(buf, 32),
    transmit_ms: readTimestamp(buf, 40),
    transmit_zero: buf.readUInt32BE(40) === 0 && buf.readUInt32BE(44) === 0,
  };
}

/**
 * The reference id as ntpq prints it (RFC 5905 7.3 refid): stratum 0 (kiss code) and 1 (source
 * code such as GPS, PPS) as up to four ASCII characters; above, the upstream's IPv4 address (or
 * the hash of its IPv6 one) in dotted form.
 */
export function referenceIdText(stratum: number, id: Buffer): string {
  if (stratum <= 1) return id.toString('latin1').replace(/[^\x20-\x7e]/g, '').trim();
  return Array.from(id).join('.');
}

/**
 * The on-wire offset θ and delay δ of RFC 5905 8 from T1 (request sent), T2 (server received),
 * T3 (server sent) and T4 (reply received), all Unix ms: θ = ((T2 − T1) + (T3 − T4)) / 2,
 * δ = (T4 − T1) − (T3 − T2), δ floored at 0 (a server claiming more processing than the round trip).
 */
export function offsetDelay(t1: number, t2: number, t3: number, t4: number): { offset_ms: number; delay_ms: number } {
  return { offset_ms: ((t2 - t1) + (t3 - t4)) / 2, delay_ms: Math.max(0, (t4 - t1) - (t3 - t2)) };
}
