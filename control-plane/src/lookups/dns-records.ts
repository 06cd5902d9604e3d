import { isIP } from 'node:net';
import type { Answer, DecodedPacket, RecordType } from 'dns-packet';
import { DNS_LOOKUP_TYPES, type DnsLookupType, type DnsRecords } from '@vantage/shared-protocol';
import { buildQuery, rcodeOf } from '@vantage/node-agent/dns/query';
import { recordValue } from '@vantage/node-agent/dns/format';
import { tcpExchange } from '@vantage/node-agent/dns/tcp';
import { udpExchange } from '@vantage/node-agent/dns/udp';
import type { ExchangeResult } from '@vantage/node-agent/dns/exchange';
import { ApiError } from '../errors.js';

/** Seconds a client should wait before retrying a lookup whose DNS server failed or timed out. */
const RETRY_AFTER_S = 30;

/** The server a lookup asks: an address (already checked against the outbound policy when the caller chose it) and port. */
export interface DnsServer { address: string; port: number }

/** A name in presentation form: absolute, with its trailing dot (`mail.example.com.`), as dig prints it. */
const fqdn = (name: unknown): string => {
  const text = String(name ?? '');
  return text === '' || text === '.' ? '.' : text.endsWith('.') ? text : `${text}.`;
};

/**
 * One record's data as dig prints it (RFC 1035 5.1 master-file form): names absolute with a
 * trailing dot (CNAME, NS, PTR targets; the MX exchange; SOA mname and rname), TXT strings quoted
 * and escaped; other types as the node's DNS probe formats them (node-agent dns/format.ts).
 */
export function digValue(answer: Answer): string {
  const data = (answer as { data?: unknown }).data as Record<string, unknown> | string | undefined;
  switch (answer.type) {
    case 'CNAME': case 'NS': case 'PTR': case 'DNAME':
      return fqdn(data);
    case 'MX':
      return `${String((data as Record<string, unknown>).preference ?? 0)} ${fqdn((data as Record<string, unknown>).exchange)}`;
    case 'SOA': {
      const d = data as Record<string, unknown>;
      return [fqdn(d.mname), fqdn(d.rname), ...[d.serial, d.refresh, d.retry, d.expire, d.minimum].map((v) => String(v ?? 0))].join(' ');
    }
    default:
      return recordValue(answer);
  }
}

/**
 * Ask `server` one question: UDP first, TCP when the reply is truncated (RFC 7766 5). `timeout_ms`
 * bounds each transport. Throws 503 UNAVAILABLE (Retry-After) when the server does not answer.
 */
async function exchange(server: DnsServer, name: string, type: RecordType, timeout_ms: number): Promise<DecodedPacket> {
  const family = isIP(server.address) === 6 ? 6 : 4;
  const signal = AbortSignal.timeout(timeout_ms * 2 + 1000);
  let result: ExchangeResult = await udpExchange(server.address, family, server.port, buildQuery(name, type), timeout_ms, signal);
  if (result.ok && result.reply.flag_tc) result = await tcpExchange(server.address, server.port, buildQuery(name, type), timeout_ms, signal);
  if (!result.ok) {
    throw new ApiError('UNAVAILABLE', `DNS server ${server.address}:${server.port} gave no answer for ${name} ${type}: ${result.detail}`,
      { server: `${server.address}:${server.port}`, reason: result.failure }, { 'Retry-After': String(RETRY_AFTER_S) });
  }
  return result.reply;
}

/**
 * DNS records of docs/api/lookups.md "DNS records": the answer section for `type`, or for each of
 * A, AAAA, MX, TXT, NS, CNAME, SOA when `type` is undefined (asked in parallel, duplicates such
 * as a CNAME met by several questions kept once), each `{type, value, ttl}` with `value` in dig's
 * presentation form ({@link digValue}) and `ttl` in seconds, as the server gave them.
 *
 * @throws ApiError NOT_FOUND (404) when the server answers NXDOMAIN (the name does not exist);
 *   UNAVAILABLE (503, Retry-After) when it does not answer, or answers SERVFAIL/REFUSED or another error
 */
export async function dnsRecords(server: DnsServer, domain: string, type: DnsLookupType | undefined, timeout_ms: number): Promise<DnsRecords> {
  const types: readonly DnsLookupType[] = type ? [type] : DNS_LOOKUP_TYPES;
  const replies = await Promise.all(types.map((t) => exchange(server, domain, t, timeout_ms)));
  const records: DnsRecords['records'] = [];
  const seen = new Set<string>();
  for (const reply of replies) {
    const rcode = rcodeOf(reply);
    if (rcode === 'NXDOMAIN') {
      throw new ApiError('NOT_FOUND', `${domain} does not exist: the DNS server ${server.address}:${server.port} answered NXDOMAIN`, { reason: 'NXDOMAIN', domain });
    }
    if (rcode !== 'NOERROR') {
      throw new ApiError('UNAVAILABLE', `DNS server ${server.address}:${server.port} answered ${rcode} for ${domain}`,
        { server: `${server.address}:${server.port}`, reason: rcode }, { 'Retry-After': String(RETRY_AFTER_S) });
    }
    for (const answer of reply.answers ?? []) {
      if (answer.type === 'OPT' || answer.type === 'RRSIG') continue;
      const record = { type: answer.type, value: digValue(answer), ttl: (answer as { ttl?: number }).ttl ?? 0 };
      const key = `${answer.name.toLowerCase()} ${record.type} ${record.value}`;
      if (seen.has(key)) continue;
      seen.add(key);
      records.push(record);
    }
  }
  return { domain, records };
}

