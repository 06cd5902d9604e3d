import { randomInt } from 'node:crypto';
import { isIP } from 'node:net';
import dnsPacket, { type DecodedPacket, type RecordType } from 'dns-packet';

/** EDNS(0) UDP payload size we advertise: 1232 bytes, the DNS Flag Day 2020 value (RFC 6891 6.2.5). */
export const EDNS_UDP_PAYLOAD = 1232;

/** One query ready to send, and what a matching reply must echo (RFC 5452 section 9.1). */
export interface DnsQuery {
  id: number;
  name: string;
  type: RecordType;
  /** The DNS message without a length prefix (UDP payload, RFC 1035 4.2.1). */
  wire: Buffer;
}

/**
 * Check a domain name the way dns-packet will encode it: at most 253 characters without the
 * trailing dot, labels 1-63 octets (RFC 1035 2.3.4). Returns the name without a trailing dot
 * (root stays `.`), or null when it cannot go on the wire.
 */
export function normalizeName(input: string): string | null {
  const text = input.trim();
  if (text === '.') return '.';
  const name = text.endsWith('.') ? text.slice(0, -1) : text;
  if (name.length === 0 || Buffer.byteLength(name) > 253) return null;
  for (const label of name.split('.')) {
    const bytes = Buffer.byteLength(label);
    if (bytes < 1 || bytes > 63 || /[\s\\]/.test(label)) return null;
  }
  return name;
}

/**
 * Build a recursive query (RD set) for `name`/`type` with a random 16-bit id and an EDNS(0) OPT
 * record advertising EDNS_UDP_PAYLOAD, as dig does by default. `name` must pass normalizeName.
 */
export function buildQuery(name: string, type: RecordType): DnsQuery {
  const id = randomInt(0, 65536);
  const wire = dnsPacket.encode({
    type: 'query',
    id,
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ type, name, class: 'IN' }],
    additionals: [{ type: 'OPT', name: '.', udpPayloadSize: EDNS_UDP_PAYLOAD, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] }],
  });
  return { id, name, type, wire };
}

/**
 * Decode `wire` and accept it only as the reply to `query`: QR set, same id, and the same single
 * question (name compared case-insensitively, RFC 4343). Returns null for anything else (a late
 * reply to an earlier query, a spoofed or undecodable datagram) so the caller keeps waiting.
 */
export function matchReply(query: DnsQuery, wire: Buffer): DecodedPacket | null {
  let reply: DecodedPacket;
  try {
    reply = dnsPacket.decode(wire);
  } catch {
    return null;
  }
  if (!reply.flag_qr || reply.id !== query.id) return null;
  const q = reply.questions?.[0];
  // A reply may omit the question section (some servers do for FORMERR/NOTIMP); when present it must match.
  if (reply.questions && reply.questions.length > 0) {
    if (reply.questions.length !== 1 || !q) return null;
    if (q.type !== query.type || q.name.toLowerCase() !== query.name.toLowerCase()) return null;
  }
  return reply;
}

/** The RCODE mnemonic of a decoded reply (RFC 1035 4.1.1; dns-packet's rcodes table). */
export function rcodeOf(reply: DecodedPacket): string {
  return (reply as DecodedPacket & { rcode?: string }).rcode ?? 'RCODE_UNKNOWN';
}

/** A DNS server as written in `params.server`: host plus port (default 53). */
export interface ServerSpec {
  host: string;
  port: number;
}

/**
 * Parse `params.server`: `host`, `host:port`, an IPv4 literal with or without port, `[v6]` or
 * `[v6]:port`, or a bare IPv6 literal (no port possible). Port 1-65535, default 53.
 * Returns null when malformed.
 */
export function parseServer(server: string): ServerSpec | null {
  const text = server.trim();
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(text);
  let host: string;
  let portText: string | undefined;
  if (bracketed) {
    host = bracketed[1]!;
    portText = bracketed[2];
    if (isIP(host) !== 6) return null;
  } else if (isIP(text) === 6) {
    host = text;
  } else {
    const m = /^([A-Za-z0-9._-]+)(?::(\d{1,5}))?$/.exec(text);
    if (!m) return null;
    host = m[1]!;
    portText = m[2];
  }
  const port = portText === undefined ? 53 : Number(portText);
  if (port < 1 || port > 65535) return null;
  return { host, port };
}

/** `address:port` with IPv6 in brackets, as the output's `server` field shows it. */
export function formatServer(address: string, port: number): string {
  return isIP(address) === 6 ? `[${address}]:${port}` : `${address}:${port}`;
}
