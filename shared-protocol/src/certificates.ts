import { z } from 'zod';

/*
 * Wire shapes of certificate orders, certificates and DNS credentials (docs/api/certificates.md).
 * The control plane names them in its OpenAPI document and turns its rows into them; the console
 * reads its types from here. Secrets, keys and provider settings are never part of a response.
 */

/** Order states (docs/api/certificates.md "Orders"); `awaiting_org_validation` is never entered with ACME. */
export const CERT_ORDER_STATUSES = ['draft', 'validating', 'awaiting_org_validation', 'issuing', 'issued', 'failed', 'revoking', 'revoked'] as const;
/** Certificate states: `expired` once past `not_after` unless revoked. */
export const CERT_STATUSES = ['issued', 'revoking', 'revoked', 'expired'] as const;
/** How names are proven: DNS-01 through a stored DNS credential, or TXT records the owner creates. */
export const CERT_CHALLENGE_TYPES = ['dns-01', 'manual-dns'] as const;
/** Revocation reasons a subscriber may give (RFC 5280 §5.3.1 CRLReason names). */
export const CERT_REVOKE_REASONS = ['unspecified', 'keyCompromise', 'affiliationChanged', 'superseded', 'cessationOfOperation'] as const;
export type CertRevokeReason = (typeof CERT_REVOKE_REASONS)[number];
/** DNS credential providers (docs/api/certificates.md "DNS credentials"). */
export const DNS_PROVIDERS = ['rfc2136', 'cloudflare', 'route53'] as const;
export type DnsProviderName = (typeof DNS_PROVIDERS)[number];
/** A DNS credential's health: `unknown` until checked, and again once revoked. */
export const DNS_HEALTH_STATUSES = ['valid', 'invalid', 'unknown'] as const;

const host = z.string().min(1).max(253).regex(/^[A-Za-z0-9.:_-]+$/, 'a host name or IP address');
const zone = z.string().min(1).max(253).regex(/^([A-Za-z0-9_-]{1,63}\.)*[A-Za-z0-9_-]{1,63}\.?$/, 'a DNS zone name');

/**
 * The `settings` of each provider on `POST /v1/dns-credentials` (non-secret; stored for the
 * provider and returned nowhere). rfc2136: RFC 2136 updates signed with TSIG (RFC 8945);
 * cloudflare: the v4 DNS records API; route53: API 2013-04-01 with Signature Version 4.
 * @example { "server": "192.0.2.53", "port": 53, "zone": "example.com", "key_name": "vantage-acme", "algorithm": "hmac-sha256" }
 */
export const dnsProviderSettingsSchemas = {
  rfc2136: z.object({
    server: host.describe('primary server of the zone taking updates'),
    port: z.number().int().min(1).max(65535).default(53),
    zone,
    key_name: z.string().min(1).max(253),
    algorithm: z.enum(['hmac-sha256', 'hmac-sha384', 'hmac-sha512', 'hmac-sha1']).default('hmac-sha256'),
  }).strict(),
  cloudflare: z.object({ zone_id: z.string().regex(/^[0-9a-f]{32}$/, 'a Cloudflare zone id (32 hex digits)') }).strict(),
  route53: z.object({
    hosted_zone_id: z.string().regex(/^(\/hostedzone\/)?[A-Z0-9]{1,32}$/, 'a Route 53 hosted zone id'),
    access_key_id: z.string().regex(/^[A-Z0-9]{16,128}$/, 'an AWS access key id'),
    region: z.string().regex(/^[a-z0-9-]{1,32}$/).default('us-east-1'),
  }).strict(),
} as const satisfies Record<DnsProviderName, z.ZodType>;
/** The settings a provider takes, as sent (defaults optional). */
export type DnsProviderSettings<P extends DnsProviderName> = z.input<(typeof dnsProviderSettingsSchemas)[P]>;

/** One TXT record a manual-dns order waits for; `message` says what is missing while it is not seen. */
export const certManualChallengeSchema = z.object({
  fqdn: z.string().meta({ example: '_acme-challenge.www.example.com' }),
  value: z.string().meta({ description: 'TXT value, case-sensitive', example: 'gfj9Xq...Rg85nM' }),
  message: z.string().nullable().meta({ description: 'what is missing while the record is not (yet) seen; null once seen' }),
});
export type CertManualChallenge = z.infer<typeof certManualChallengeSchema>;

/** One step of an order (`action_seq` counts from 1). */
export const certOrderEventSchema = z.object({ action: z.string(), action_seq: z.number().int(), occurred_at: z.iso.datetime(), detail: z.string().nullable() });
export type CertOrderEvent = z.infer<typeof certOrderEventSchema>;

/** A certificate order with its events and, while it waits for them, the manual TXT records. */
export const certOrderSchema = z.object({
  id: z.number().int(),
  account_id: z.string(),
  team_id: z.string().nullable(),
  ca: z.string(),
  tier: z.string(),
  challenge_type: z.enum(CERT_CHALLENGE_TYPES),
  common_name: z.string().nullable(),
  sans: z.array(z.string()).meta({ description: 'SANs in ASCII (IDNs as punycode)' }),
  sans_unicode: z.array(z.string()).meta({ description: 'the same SANs in Unicode' }),
  status: z.enum(CERT_ORDER_STATUSES),
  cert_id: z.number().int().nullable(),
  dns_credential_id: z.number().int().nullable(),
  retry_count: z.number().int(),
  last_error: z.string().nullable(),
  created_at: z.iso.datetime(),
  finalized_at: z.iso.datetime().nullable(),
  events: z.array(certOrderEventSchema),
  manual_challenges: z.array(certManualChallengeSchema),
  manual_challenge: certManualChallengeSchema.nullable().meta({ description: 'legacy: the first of manual_challenges' }),
});
export type CertOrder = z.infer<typeof certOrderSchema>;

/** An issued certificate (`fingerprint_sha256`: hex of the DER). */
export const issuedCertificateSchema = z.object({
  id: z.number().int(),
  account_id: z.string(),
  team_id: z.string().nullable(),
  order_id: z.number().int(),
  status: z.enum(CERT_STATUSES),
  issuer: z.string(),
  serial_hex: z.string(),
  fingerprint_sha256: z.string(),
  sans: z.array(z.string()),
  not_before: z.iso.datetime(),
  not_after: z.iso.datetime(),
  revoked_at: z.iso.datetime().nullable(),
  revoke_reason: z.string().nullable(),
  created_at: z.iso.datetime(),
});
export type IssuedCertificate = z.infer<typeof issuedCertificateSchema>;

/** A DNS credential, without its settings or secret. */
export const dnsCredentialSchema = z.object({
  id: z.number().int(),
  account_id: z.string(),
  team_id: z.string().nullable(),
  provider: z.enum(DNS_PROVIDERS),
  display_name: z.string(),
  health_status: z.enum(DNS_HEALTH_STATUSES),
  health_error: z.string().nullable(),
  health_checked_at: z.iso.datetime().nullable(),
  revoked_at: z.iso.datetime().nullable(),
  created_at: z.iso.datetime(),
});
export type DnsCredential = z.infer<typeof dnsCredentialSchema>;

/** A page of a certificate list: `{ items[], total, page, page_size, has_more }`. */
export interface CertPage<T> { items: T[]; total: number; page: number; page_size: number; has_more: boolean }
