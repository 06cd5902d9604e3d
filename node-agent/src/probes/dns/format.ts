import type { Answer } from 'dns-packet';

/** One record as the DnsOutput carries it (shared-protocol dnsRecordSchema). */
export interface DnsRecord {
  name: string;
  type: string;
  ttl: number;
  value: string;
}

/**
 * Quote one character-string for presentation (RFC 1035 5.1): wrapped in double quotes, `"` and
 * `\` escaped with a backslash, bytes outside printable ASCII as `\DDD` (decimal).
 */
export function quoteString(data: Buffer | string): string {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  let out = '"';
  for (const byte of bytes) {
    if (byte === 0x22 || byte === 0x5c) out += `\\${String.fromCharCode(byte)}`;
    else if (byte >= 0x20 && byte < 0x7f) out += String.fromCharCode(byte);
    else out += `\\${byte.toString().padStart(3, '0')}`;
  }
  return `${out}"`;
}

/** RFC 3597 generic form for record data we do not format: `\# <length> <hex>`. */
function generic(data: Buffer): string {
  return data.length === 0 ? '\\# 0' : `\\# ${data.length} ${data.toString('hex')}`;
}

type Fields = Record<string, unknown>;
const num = (v: unknown): string => String(v ?? 0);
const hex = (v: unknown): string => (Buffer.isBuffer(v) ? v.toString('hex').toUpperCase() : String(v));
const b64 = (v: unknown): string => (Buffer.isBuffer(v) ? v.toString('base64') : String(v));

/** Presentation formatters per type for decoded (object) record data, master-file order (RFC 1035 5.1 and each type's RFC). */
const FORMAT: Record<string, (d: Fields) => string> = {
  MX: (d) => `${num(d.preference)} ${String(d.exchange)}`,
  SOA: (d) => [d.mname, d.rname, d.serial, d.refresh, d.retry, d.expire, d.minimum].map(num).join(' '),
  // RFC 8659 4.1.1: flags tag "value"; dns-packet puts the critical bit in `flags` as well.
  CAA: (d) => `${num(d.flags)} ${String(d.tag)} ${quoteString(String(d.value))}`,
  SRV: (d) => `${num(d.priority)} ${num(d.weight)} ${num(d.port)} ${String(d.target)}`,
  HINFO: (d) => `${quoteString(String(d.cpu))} ${quoteString(String(d.os))}`,
  DS: (d) => `${num(d.keyTag)} ${num(d.algorithm)} ${num(d.digestType)} ${hex(d.digest)}`,
  DNSKEY: (d) => `${num(d.flags)} 3 ${num(d.algorithm)} ${b64(d.key)}`,
  RRSIG: (d) => [d.typeCovered, d.algorithm, d.labels, d.originalTTL, d.expiration, d.inception, d.keyTag, d.signersName].map(num).join(' ') + ` ${b64(d.signature)}`,
  NSEC: (d) => `${String(d.nextDomain)} ${(d.rrtypes as string[] | undefined)?.join(' ') ?? ''}`.trim(),
  SSHFP: (d) => `${num(d.algorithm)} ${num(d.hash)} ${String(d.fingerprint)}`,
  TLSA: (d) => `${num(d.usage)} ${num(d.selector)} ${num(d.matchingType)} ${hex(d.certificate)}`,
  NAPTR: (d) => `${num(d.order)} ${num(d.preference)} ${quoteString(String(d.flags))} ${quoteString(String(d.services))} ${quoteString(String(d.regexp))} ${String(d.replacement)}`,
};

/**
 * The presentation form of one record's data: A/AAAA the address, CNAME/NS/PTR/DNAME the target
 * name, MX `10 mail.example.com`, TXT its strings quoted and space-joined, SOA `mname rname serial
 * refresh retry expire minimum`, CAA `0 issue "letsencrypt.org"`; types we do not know in the RFC
 * 3597 generic form. Names are as dns-packet decodes them (no trailing dot). Never throws.
 */
export function recordValue(answer: Answer): string {
  const data = (answer as { data?: unknown }).data;
  if (typeof data === 'string') return data;
  if (answer.type === 'TXT') {
    const parts = Array.isArray(data) ? data : [data as Buffer | string];
    return parts.map((p) => quoteString(p)).join(' ');
  }
  if (Buffer.isBuffer(data)) return generic(data);
  const format = FORMAT[answer.type];
  if (format && data && typeof data === 'object') {
    try {
      return format(data as Fields);
    } catch {
      /* fall through to JSON */
    }
  }
  return JSON.stringify(data ?? null, (_k, v: unknown) => (v && typeof v === 'object' && (v as { type?: string }).type === 'Buffer' ? Buffer.from((v as { data: number[] }).data).toString('hex') : v));
}

/** Records of one section as DnsOutput shows them; the EDNS OPT pseudo-record is left out (RFC 6891 6.1.1). */
export function toRecords(section: Answer[] | undefined): DnsRecord[] {
  const records: DnsRecord[] = [];
  for (const answer of section ?? []) {
    if (answer.type === 'OPT') continue;
    records.push({ name: answer.name, type: answer.type, ttl: (answer as { ttl?: number }).ttl ?? 0, value: recordValue(answer) });
  }
  return records;
}
