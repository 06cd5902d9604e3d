import { createHmac, timingSafeEqual } from 'node:crypto';

/*
 * TSIG (RFC 8945): transaction signatures with a shared HMAC key, as BIND, Knot and PowerDNS
 * verify them on dynamic updates (RFC 2136). Only what a client needs: sign a request, check the
 * signed response. Names are written uncompressed in canonical (lower-case) form, as §4.3.3 asks
 * for the digest.
 */

/** HMAC algorithms of RFC 8945 §6 this client signs with, by their TSIG algorithm names. */
export const TSIG_ALGORITHMS = { 'hmac-sha256': 'sha256', 'hmac-sha384': 'sha384', 'hmac-sha512': 'sha512', 'hmac-sha1': 'sha1' } as const;
export type TsigAlgorithm = keyof typeof TSIG_ALGORITHMS;

/** A TSIG key: its name (as the server's `key` statement names it), algorithm and secret (base64). */
export interface TsigKey {
  name: string;
  algorithm: TsigAlgorithm;
  secret_base64: string;
}

const TYPE_TSIG = 250;
const CLASS_ANY = 255;
/** Allowed clock difference between signer and verifier, s (RFC 8945 §10: 300 recommended). */
export const TSIG_FUDGE_S = 300;

/** `name` as uncompressed wire labels, lower-cased (RFC 4034 §6.2 canonical form). */
export function wireName(name: string): Buffer {
  const labels = name.replace(/\.$/, '').split('.').filter((l) => l.length > 0);
  const parts: Buffer[] = [];
  for (const l of labels) {
    const b = Buffer.from(l.toLowerCase(), 'ascii');
    if (b.length > 63) throw new Error(`DNS label longer than 63 octets: ${l}`);
    parts.push(Buffer.from([b.length]), b);
  }
  parts.push(Buffer.from([0]));
  return Buffer.concat(parts);
}

function u16(n: number): Buffer { const b = Buffer.alloc(2); b.writeUInt16BE(n); return b; }
function u48(n: number): Buffer { const b = Buffer.alloc(6); b.writeUIntBE(n, 0, 6); return b; }

/** The TSIG variables of §4.3.3 that enter the digest after the message. */
function variables(key: TsigKey, time_s: number, fudge_s: number, error: number, other: Buffer): Buffer {
  return Buffer.concat([wireName(key.name), u16(CLASS_ANY), Buffer.alloc(4), wireName(key.algorithm), u48(time_s), u16(fudge_s), u16(error), u16(other.length), other]);
}

function mac(key: TsigKey, parts: Buffer[]): Buffer {
  const h = createHmac(TSIG_ALGORITHMS[key.algorithm], Buffer.from(key.secret_base64, 'base64'));
  for (const p of parts) h.update(p);
  return h.digest();
}

/**
 * Sign a DNS message (wire format, without TSIG) with `key` at `now_ms`: the TSIG record is
 * appended to its additional section and ARCOUNT incremented (RFC 8945 §4.2).
 * @returns the signed message and the request MAC (needed to check the response)
 */
export function signMessage(message: Buffer, key: TsigKey, now_ms: number = Date.now()): { signed: Buffer; request_mac: Buffer } {
  const time_s = Math.floor(now_ms / 1000);
  const digest = mac(key, [message, variables(key, time_s, TSIG_FUDGE_S, 0, Buffer.alloc(0))]);
  const rdata = Buffer.concat([wireName(key.algorithm), u48(time_s), u16(TSIG_FUDGE_S), u16(digest.length), digest, message.subarray(0, 2), u16(0), u16(0)]);
  const rr = Buffer.concat([wireName(key.name), u16(TYPE_TSIG), u16(CLASS_ANY), Buffer.alloc(4), u16(rdata.length), rdata]);
  const signed = Buffer.concat([message, rr]);
  signed.writeUInt16BE(message.readUInt16BE(10) + 1, 10);
  return { signed, request_mac: digest };
}

/** Skip a (possibly compressed) name at `offset`; @returns the offset after it. */
function skipName(buf: Buffer, offset: number): number {
  for (;;) {
    const len = buf[offset];
    if (len === undefined) throw new Error('truncated name');
    if ((len & 0xc0) === 0xc0) return offset + 2;
    if (len === 0) return offset + 1;
    offset += len + 1;
  }
}

/** Offset of the last resource record of `buf` (where a TSIG record sits), walking all sections. */
function lastRecordOffset(buf: Buffer): number {
  const counts = [buf.readUInt16BE(4), buf.readUInt16BE(6), buf.readUInt16BE(8), buf.readUInt16BE(10)];
  let offset = 12;
  for (let i = 0; i < counts[0]!; i++) offset = skipName(buf, offset) + 4;
  let last = -1;
  const records = counts[1]! + counts[2]! + counts[3]!;
  for (let i = 0; i < records; i++) {
    last = offset;
    offset = skipName(buf, offset) + 8;
    offset += 2 + buf.readUInt16BE(offset);
  }
  return last;
}

/**
 * Check the TSIG record of a response to a request signed with `request_mac` (RFC 8945 §5.3):
 * key name, algorithm, MAC and time (within the fudge).
 * @returns null when it verifies, else why not (e.g. `no TSIG record`, `BADSIG`, `BADKEY`, `BADTIME`)
 */
export function verifyResponse(response: Buffer, key: TsigKey, request_mac: Buffer, now_ms: number = Date.now()): string | null {
  if (response.length < 12 || response.readUInt16BE(10) === 0) return 'no TSIG record';
  let at: number;
  try { at = lastRecordOffset(response); } catch { return 'malformed response'; }
  let p = skipName(response, at);
  if (response.readUInt16BE(p) !== TYPE_TSIG) return 'no TSIG record';
  const key_name = response.subarray(at, p);
  if (!key_name.equals(wireName(key.name))) return 'BADKEY (another key name)';
  p += 8;
  const rdlen = response.readUInt16BE(p); p += 2;
  const rdata = response.subarray(p, p + rdlen);
  const alg_end = skipName(rdata, 0);
  if (!rdata.subarray(0, alg_end).equals(wireName(key.algorithm))) return 'BADKEY (another algorithm)';
  let q = alg_end;
  const time_s = rdata.readUIntBE(q, 6); q += 6;
  const fudge_s = rdata.readUInt16BE(q); q += 2;
  const mac_len = rdata.readUInt16BE(q); q += 2;
  const got = rdata.subarray(q, q + mac_len); q += mac_len;
  const original_id = rdata.readUInt16BE(q); q += 2;
  const error = rdata.readUInt16BE(q); q += 2;
  const other_len = rdata.readUInt16BE(q); q += 2;
  const other = rdata.subarray(q, q + other_len);
  if (error === 16) return 'BADSIG';
  if (error === 17) return 'BADKEY';
  if (error === 18) return 'BADTIME';
  if (mac_len === 0) return `TSIG error ${error}`;
  const unsigned = Buffer.from(response.subarray(0, at));
  unsigned.writeUInt16BE(original_id, 0);
  unsigned.writeUInt16BE(response.readUInt16BE(10) - 1, 10);
  const want = mac(key, [u16(request_mac.length), request_mac, unsigned, variables(key, time_s, fudge_s, error, other)]);
  if (want.length !== got.length || !timingSafeEqual(want, got)) return 'BADSIG (response MAC does not verify)';
  if (Math.abs(Math.floor(now_ms / 1000) - time_s) > fudge_s) return 'BADTIME (response signed outside the fudge)';
  return null;
}
