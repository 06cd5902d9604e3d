import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { z } from 'zod';
import { idSchema } from '../ids.js';

/*
 * The WHOIS / RDAP and SSL audit information look-ups (docs/api/lookups.md): their
 * query strings and `data` shapes.
 */

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** `name` as lower-case A-labels without a trailing dot when it is a host name (labels of letters, digits and hyphens; IDNs converted, RFC 5890), else null. */
export function normaliseHostName(name: string): string | null {
  const trimmed = name.trim().replace(/\.$/, '');
  if (trimmed === '' || trimmed.length > 253 || /[\s/:@?#[\]\\]/.test(trimmed)) return null;
  const ascii = domainToASCII(trimmed);
  if (!ascii || ascii.length > 253) return null;
  return ascii.split('.').every((l) => LABEL.test(l)) ? ascii : null;
}

/**
 * Query of `GET /v1/info/whois`: `q`, a domain name (at least two labels; IDNs accepted and
 * converted to A-labels) or an IPv4/IPv6 address. Anything else (a URL, a single label, a CIDR)
 * is rejected naming `q`.
 */
export const whoisQuerySchema = z.object({
  q: z.string().max(300).transform((q, ctx) => {
    const bare = q.trim().replace(/^\[(.*)\]$/, '$1');
    if (isIP(bare)) return bare;
    const name = normaliseHostName(bare);
    if (name && name.includes('.') && !/^\d+$/.test(name.split('.').pop()!)) return name;
    ctx.addIssue({ code: 'custom', message: 'q must be a domain name such as example.com or an IPv4/IPv6 address' });
    return z.NEVER;
  }).describe('A domain name (example.com) or an IP address'),
});

/** The network an IP address belongs to, from its Regional Internet Registry's RDAP (RFC 9083 5.4). */
export const whoisNetworkSchema = z.object({
  handle: z.string().nullable(),
  name: z.string().nullable(),
  start_address: z.string().nullable(),
  end_address: z.string().nullable(),
  cidrs: z.array(z.string()),
  country: z.string().nullable(),
  organisation: z.string().nullable(),
});

/**
 * `data` of `GET /v1/info/whois`: `domain` (the queried name, lower-case A-labels, or the IP
 * address), `registrar` (domain: the sponsoring registrar; IP: the Regional Internet Registry),
 * `expires_at` (ISO 8601 UTC, null when unpublished and for IPs), `name_servers` (lower case, no
 * trailing dot), `statuses`, `source` (`rdap` or `whois`), `server` (RDAP base URL or WHOIS
 * `host:port` that answered), `network` (IP queries only, else null), `cached` (served from the
 * look-up cache), `queried_at` (when the registry was asked).
 * @example { "domain": "example.com", "registrar": "RESERVED-Internet Assigned Numbers Authority", "expires_at": "2027-08-13T04:00:00.000Z", "name_servers": ["a.iana-servers.net", "b.iana-servers.net"], "statuses": ["client delete prohibited"], "source": "rdap", "server": "https://rdap.verisign.com/com/v1/", "network": null, "cached": false, "queried_at": "2026-11-28T18:00:00.000Z" }
 */
export const whoisInfoSchema = z.object({
  domain: z.string(),
  registrar: z.string().nullable(),
  expires_at: z.iso.datetime().nullable(),
  name_servers: z.array(z.string()),
  statuses: z.array(z.string()),
  source: z.enum(['rdap', 'whois']),
  server: z.string(),
  network: whoisNetworkSchema.nullable(),
  cached: z.boolean(),
  queried_at: z.iso.datetime(),
});
export type WhoisInfo = z.infer<typeof whoisInfoSchema>;

/**
 * Query of `GET /v1/info/ssl`: `q` a bare host name (no scheme, port, path or IP address),
 * `port` 1-65535 (default 443), `node_id` the node to run it from (absent: the control plane).
 */
export const sslAuditQuerySchema = z.object({
  q: z.string().max(300).transform((q, ctx) => {
    const name = isIP(q.trim()) ? null : normaliseHostName(q);
    if (name) return name;
    ctx.addIssue({ code: 'custom', message: 'q must be a bare host name such as example.com (no scheme, port, path or IP address)' });
    return z.NEVER;
  }).describe('A bare host name, no scheme'),
  port: z.coerce.number().int().min(1).max(65535).default(443).describe('TCP port of the TLS service (default 443)'),
  node_id: idSchema('node').optional().describe('Run the audit from this node (its `ssl` probe, under its target policy); absent: from the control plane under the outbound address policy'),
});

/** TLS protocol versions the audit tries, oldest first. */
export const TLS_VERSIONS = ['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'] as const;
/** Grades of the SSL audit rubric, best first (docs/api/lookups.md "Grade"). */
export const SSL_GRADES = ['A+', 'A', 'A-', 'B', 'C', 'F'] as const;

/**
 * One certificate of the chain, leaf first (the last may be the trust anchor from the store):
 * names in the certificate's order joined by `, ` (`C=US, O=Example, CN=example.com`), dates ISO 8601 UTC, `signature_algorithm` (`sha256WithRSAEncryption`,
 * `ecdsa-with-SHA384`…), `public_key_algorithm` (`rsa`, `ec`, `ed25519`…), `public_key_bits`,
 * `serial_number` (upper-case hex), `fingerprint_sha256` (upper-case hex pairs joined by `:`), `is_ca`.
 */
export const sslChainCertSchema = z.object({
  subject: z.string(),
  issuer: z.string(),
  not_before: z.iso.datetime(),
  not_after: z.iso.datetime(),
  signature_algorithm: z.string(),
  public_key_algorithm: z.string(),
  public_key_bits: z.number().int(),
  serial_number: z.string(),
  fingerprint_sha256: z.string(),
  is_ca: z.boolean(),
});
export type SslChainCert = z.infer<typeof sslChainCertSchema>;

/**
 * `data` of `GET /v1/info/ssl` (docs/api/lookups.md "SSL audit"): the leaf's `issuer`,
 * `subject`, `not_before`, `not_after`, `san_domains`, `days_until_expiry` (whole days, negative
 * once expired); `valid` (chain verifies against the system roots plus the operator's extra CA
 * file, the name matches, in date); `protocol` and `cipher_suite` of the default handshake;
 * `tls_versions` (each of TLS 1.0-1.3 tried in its own handshake); `ocsp_status` from a stapled
 * OCSP response; `sct_count` (SCTs embedded in the leaf); `hsts_max_age_s` (null when no HSTS
 * header or not HTTP); `warnings`; `grade`; `chain` (leaf first).
 */
export const sslAuditSchema = z.object({
  domain: z.string(),
  port: z.number().int(),
  issuer: z.string(),
  subject: z.string(),
  not_before: z.iso.datetime(),
  not_after: z.iso.datetime(),
  san_domains: z.array(z.string()),
  protocol: z.string(),
  cipher_suite: z.string(),
  days_until_expiry: z.number().int(),
  valid: z.boolean(),
  validation_error: z.string().nullable(),
  grade: z.enum(SSL_GRADES),
  ocsp_status: z.enum(['good', 'revoked', 'unknown', 'none']),
  sct_count: z.number().int().min(0),
  hsts_max_age_s: z.number().int().nullable(),
  tls_versions: z.array(z.object({ version: z.enum(TLS_VERSIONS), supported: z.boolean() })).max(TLS_VERSIONS.length),
  warnings: z.array(z.string()).max(50),
  chain: z.array(sslChainCertSchema).max(10),
  audit_ms: z.number().int().min(0),
});
export type SslAudit = z.infer<typeof sslAuditSchema>;

/** `data` of `GET /v1/info/ssl`: the audit plus `node_id`, the node that ran it (null: the control plane). */
export const sslLookupSchema = sslAuditSchema.extend({
  node_id: z.string().nullable().describe('The node that ran the audit (query node_id); null when the control plane ran it'),
});
export type SslLookup = z.infer<typeof sslLookupSchema>;
