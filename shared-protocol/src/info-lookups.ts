import { z } from 'zod';

/*
 * HTTP shapes of the information lookups (docs/api/lookups.md): IP info, DNS records, ICP filing
 * and IP reputation, all `GET` with the subject in `q`. The `data` payloads carry exactly the
 * fields docs/api/lookups.md lists.
 */

const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const LABEL = '[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?';
/** A domain of two or more LDH labels (underscores allowed for service names), 253 characters at most (RFC 1035 2.3.4). */
const DOMAIN = new RegExp(`^(?=.{1,253}$)${LABEL}(?:\\.${LABEL})+$`);

/** True for an IPv4 dotted quad or an IPv6 literal (RFC 4291 2.2, zone ids refused). */
export function isIpLiteral(text: string): boolean {
  if (IPV4.test(text)) return true;
  return z.ipv6().safeParse(text).success;
}

/**
 * A domain as the lookups take it: trimmed, lower case, one trailing dot dropped; two or more
 * labels of letters, digits, `-` and `_`, 253 characters at most, the last not all digits (RFC 3696
 * 2: so no IPv4 literal or dotted number reads as a domain).
 * @returns the normalised name, or null
 */
export function normalizeDomain(text: string): string | null {
  const name = text.trim().toLowerCase().replace(/\.$/, '');
  if (!DOMAIN.test(name) || /(?:^|\.)\d+$/.test(name)) return null;
  return name;
}

const q = (description: string, example: string) => z.string().trim().min(1).max(253).meta({ description, example });

/** `?q=` of GET /v1/info/ip: an IPv4 or IPv6 address. */
export const ipInfoQuerySchema = z.object({
  q: q('IPv4 or IPv6 address', '8.8.8.8').refine(isIpLiteral, { message: 'must be an IPv4 or IPv6 address' }),
});

/**
 * `data` of GET /v1/info/ip: location from the GeoLite2 city data, `asn`/`org`/`isp` from the
 * ASN ranges; `country_name` in English. Fields are null when unknown; `note` says why (private,
 * reserved or unlisted address).
 * @example { "ip": "8.8.8.8", "country": "US", "country_name": "United States", "region": null, "city": null, "asn": 15169, "org": "Google LLC", "isp": "Google LLC" }
 */
export const ipInfoSchema = z.object({
  ip: z.string(),
  country: z.string().nullable().meta({ description: 'ISO 3166-1 alpha-2 code' }),
  country_name: z.string().nullable().meta({ description: 'English country name' }),
  region: z.string().nullable(),
  city: z.string().nullable(),
  asn: z.number().int().nullable().meta({ description: 'autonomous system number' }),
  org: z.string().nullable().meta({ description: 'organisation holding the AS' }),
  isp: z.string().nullable().meta({ description: 'network operator (the AS organisation)' }),
  note: z.string().optional().meta({ description: 'why fields are empty: private, reserved or unlisted address' }),
});
export type IpInfo = z.infer<typeof ipInfoSchema>;

/** Record types GET /v1/info/dns answers; an empty `type` asks for all of them. */
export const DNS_LOOKUP_TYPES = ['A', 'AAAA', 'MX', 'TXT', 'NS', 'CNAME', 'SOA'] as const;
export type DnsLookupType = (typeof DNS_LOOKUP_TYPES)[number];

/** `?q=&type=&server=` of GET /v1/info/dns. `server`: `host`, `host:port`, `[v6]:port` (port default 53). */
export const dnsRecordsQuerySchema = z.object({
  q: q('domain', 'example.com').refine((v) => normalizeDomain(v) !== null, { message: 'must be a domain name' }),
  type: z.preprocess((v) => (v === '' ? undefined : typeof v === 'string' ? v.toUpperCase() : v), z.enum(DNS_LOOKUP_TYPES).optional())
    .meta({ description: 'one record type; empty = all of A, AAAA, MX, TXT, NS, CNAME, SOA' }),
  server: z.string().trim().min(1).max(262).optional().meta({ description: 'DNS server to ask (host, host:port, [v6]:port); default the control plane\'s resolver', example: '1.1.1.1' }),
});

/**
 * `data` of GET /v1/info/dns: the answer records, each `value` in dig's presentation format
 * (`10 mail.example.com.`, `"v=spf1 -all"`), `ttl` in seconds.
 * @example { "domain": "example.com", "records": [{ "type": "A", "value": "93.184.215.14", "ttl": 300 }] }
 */
export const dnsRecordsSchema = z.object({
  domain: z.string(),
  records: z.array(z.object({ type: z.string(), value: z.string(), ttl: z.number().int().meta({ description: 'seconds' }) })),
});
export type DnsRecords = z.infer<typeof dnsRecordsSchema>;

/** `?q=` of GET /v1/info/icp: a domain (any host name under it; normalised to its registrable domain). */
export const icpQuerySchema = z.object({
  q: q('domain', 'www.example.cn').refine((v) => normalizeDomain(v) !== null, { message: 'must be a domain name' }),
});

/**
 * One ICP filing record as an operator loads it (docs/api/lookups.md "ICP filing"): the
 * registrable `domain`, `icp_number` (e.g. `京ICP备12345678号`), `company`, `license_type`
 * (e.g. `ICP备案` or `ICP证`), `type` (the filer: `企业`, `个人`...), `filed_at` (date), `source`.
 */
export const icpRecordInputSchema = z.strictObject({
  domain: z.string().trim().min(1).max(253),
  icp_number: z.string().trim().min(1).max(64),
  company: z.string().trim().min(1).max(200),
  license_type: z.string().trim().max(32).nullable().optional(),
  type: z.string().trim().max(32).nullable().optional(),
  filed_at: z.iso.date().nullable().optional(),
  source: z.string().trim().max(200).nullable().optional(),
  inquiry_url: z.url({ protocol: /^https?$/ }).max(500).nullable().optional(),
});
export type IcpRecordInput = z.infer<typeof icpRecordInputSchema>;

/** Body of POST /v1/admin/icp-records: up to 5000 records; `replace` empties the set first. */
export const icpImportSchema = z.strictObject({
  records: z.array(icpRecordInputSchema).min(1).max(5000),
  replace: z.boolean().default(false),
});
/** `data` of POST /v1/admin/icp-records. */
export const icpImportResultSchema = z.object({ imported: z.number().int(), total: z.number().int() });

/**
 * `data` of GET /v1/info/icp. Without a matching record the filing fields are null and `note`
 * says so.
 * @example { "domain": "example.cn", "icp_number": "京ICP备12345678号", "company": "Example Ltd", "license_type": "ICP备案", "type": "企业", "filed_at": "2020-05-01", "source": "operator import", "inquiry_url": null }
 */
export const icpFilingSchema = z.object({
  domain: z.string().meta({ description: 'the registrable domain (Public Suffix List)' }),
  icp_number: z.string().nullable(),
  company: z.string().nullable(),
  license_type: z.string().nullable(),
  type: z.string().nullable(),
  filed_at: z.string().nullable().meta({ description: 'date (YYYY-MM-DD)' }),
  source: z.string().nullable(),
  inquiry_url: z.string().nullable(),
  note: z.string().optional(),
});
export type IcpFiling = z.infer<typeof icpFilingSchema>;

/** `?q=` of GET /v1/ip/reputation: an IPv4 or IPv6 address, or a domain (its addresses are looked up). */
export const ipReputationQuerySchema = z.object({
  q: q('IPv4 or IPv6 address, or a domain', '185.220.101.1')
    .refine((v) => isIpLiteral(v) || normalizeDomain(v) !== null, { message: 'must be an IPv4 or IPv6 address or a domain name' }),
});

export const REPUTATION_SIGNALS = ['tor_exit', 'vpn', 'proxy', 'abuse_asn', 'hosting'] as const;
export const REPUTATION_TYPES = ['tor', 'vpn', 'proxy', 'hosting', 'residential'] as const;

/**
 * `data` of GET /v1/ip/reputation: `score` 0-100 (higher = more suspicious) is the sum of the
 * evidence weights, capped at 100; `risk_level` low (< 30), medium (30-69), high (>= 70);
 * `types[]` never holds both `vpn` and `proxy`. `asn` is `AS<number>`.
 */
export const ipReputationSchema = z.object({
  ip: z.string(),
  score: z.number().int().min(0).max(100),
  risk_level: z.enum(['low', 'medium', 'high']),
  types: z.array(z.enum(REPUTATION_TYPES)),
  evidence: z.array(z.object({ signal: z.enum(REPUTATION_SIGNALS), description: z.string(), weight: z.number().int() })),
  country: z.string().nullable(),
  city: z.string().nullable(),
  asn: z.string().nullable().meta({ example: 'AS15169' }),
  isp: z.string().nullable(),
});
export type IpReputation = z.infer<typeof ipReputationSchema>;

/** `?from=&to=` of GET /v1/account/lookup-usage: UTC dates, default the last 30 days. */
export const lookupUsageQuerySchema = z.object({
  from: z.iso.date().optional(),
  to: z.iso.date().optional(),
});

/** `data` of GET /v1/account/lookup-usage: metered lookups per API key and UTC day. */
export const lookupUsageSchema = z.object({
  items: z.array(z.object({ key_id: z.string().meta({ description: 'API key (key_) or personal access token (pat_) id' }), lookup: z.string(), day: z.string(), count: z.number().int() })),
  total: z.number().int(),
});
