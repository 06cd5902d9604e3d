import { randomInt } from 'node:crypto';
import { connect } from 'node:net';
import { signMessage, verifyResponse, wireName, type TsigKey } from './tsig.js';

/*
 * DNS dynamic updates (RFC 2136) of TXT records, signed with TSIG (RFC 8945), sent over TCP
 * (RFC 7766). Only TXT adds and deletes of single records, which is what DNS-01 needs.
 */

const OPCODE_UPDATE = 5;
const TYPE_TXT = 16;
const TYPE_SOA = 6;
const CLASS_IN = 1;
const CLASS_NONE = 254;
const RCODES = ['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED', 'YXDOMAIN', 'YXRRSET', 'NXRRSET', 'NOTAUTH', 'NOTZONE'];

/** One TXT change: add `value` at `fqdn` with `ttl_s`, or delete exactly that record. */
export interface TxtChange {
  op: 'add' | 'delete';
  fqdn: string;
  value: string;
  ttl_s?: number;
}

/** Where and how updates go: the zone's primary server and the TSIG key it accepts. */
export interface UpdateTarget {
  host: string;
  port: number;
  zone: string;
  key: TsigKey;
  timeout_ms: number;
}

function u16(n: number): Buffer { const b = Buffer.alloc(2); b.writeUInt16BE(n); return b; }

function txtRdata(value: string): Buffer {
  const bytes = Buffer.from(value, 'utf8');
  const parts: Buffer[] = [];
  for (let i = 0; i < bytes.length || i === 0; i += 255) {
    const chunk = bytes.subarray(i, i + 255);
    parts.push(Buffer.from([chunk.length]), chunk);
  }
  return Buffer.concat(parts);
}

/**
 * The UPDATE message (RFC 2136 §2) for `changes` in `zone`, unsigned. No changes = an empty
 * update, which a server answers without changing anything (the credential health check).
 */
export function updateMessage(zone: string, changes: TxtChange[], id: number = randomInt(0, 65536)): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(OPCODE_UPDATE << 11, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(changes.length, 8);
  const records = changes.map((c) => {
    const rdata = txtRdata(c.value);
    const ttl = Buffer.alloc(4);
    if (c.op === 'add') ttl.writeUInt32BE(c.ttl_s ?? 60);
    return Buffer.concat([wireName(c.fqdn), u16(TYPE_TXT), u16(c.op === 'add' ? CLASS_IN : CLASS_NONE), ttl, u16(rdata.length), rdata]);
  });
  return Buffer.concat([header, wireName(zone), u16(TYPE_SOA), u16(CLASS_IN), ...records]);
}

/** Send one message over TCP and read one length-prefixed answer. @throws Error on timeout or a closed connection */
function exchangeTcp(host: string, port: number, message: Buffer, timeout_ms: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    let got = Buffer.alloc(0);
    const done = (err: Error | null, answer?: Buffer) => {
      socket.destroy();
      clearTimeout(timer);
      if (err) reject(err); else resolve(answer!);
    };
    const timer = setTimeout(() => done(new Error(`DNS update to ${host}:${port} timed out after ${timeout_ms} ms`)), timeout_ms);
    socket.on('connect', () => socket.write(Buffer.concat([u16(message.length), message])));
    socket.on('data', (d) => {
      got = Buffer.concat([got, d]);
      if (got.length >= 2 && got.length >= 2 + got.readUInt16BE(0)) done(null, got.subarray(2, 2 + got.readUInt16BE(0)));
    });
    socket.on('error', (err) => done(new Error(`DNS update to ${host}:${port}: ${err.message}`)));
    socket.on('close', () => done(new Error(`DNS update to ${host}:${port}: connection closed before an answer`)));
  });
}

/** A refused or failed update: `rcode` is the server's answer (REFUSED, NOTAUTH, …) or null for transport and TSIG faults. */
export class DnsUpdateError extends Error {
  constructor(message: string, readonly rcode: string | null) {
    super(message);
    this.name = 'DnsUpdateError';
  }
}

/**
 * Apply `changes` (none: a no-op update that only proves the key is accepted) to `target.zone` at
 * its primary server, TSIG-signed; the answer's TSIG is checked too.
 * @throws DnsUpdateError when the server answers other than NOERROR, the answer's signature does not verify, or no answer comes within `timeout_ms`
 */
export async function sendUpdate(target: UpdateTarget, changes: TxtChange[]): Promise<void> {
  const message = updateMessage(target.zone, changes);
  const { signed, request_mac } = signMessage(message, target.key);
  let answer: Buffer;
  try {
    answer = await exchangeTcp(target.host, target.port, signed, target.timeout_ms);
  } catch (err) {
    throw new DnsUpdateError((err as Error).message, null);
  }
  if (answer.length < 12 || answer.readUInt16BE(0) !== message.readUInt16BE(0)) throw new DnsUpdateError('DNS update: answer to another message', null);
  const rcode = answer.readUInt16BE(2) & 0xf;
  const name = RCODES[rcode] ?? `RCODE ${rcode}`;
  if (rcode === 9) throw new DnsUpdateError(`DNS update refused: NOTAUTH (the server does not accept key ${target.key.name} for zone ${target.zone})`, name);
  if (rcode !== 0) throw new DnsUpdateError(`DNS update of zone ${target.zone} answered ${name}`, name);
  const fault = verifyResponse(answer, target.key, request_mac);
  if (fault) throw new DnsUpdateError(`DNS update answer: ${fault}`, null);
}
