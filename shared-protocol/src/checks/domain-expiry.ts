import { z } from 'zod';

/*
 * What a domain_expiry monitor's check records (docs/api/checks.md "domain_expiry"): the
 * registration data of the domain from its registry, by RDAP (RFC 9083, server from the RFC 9224
 * bootstrap registry) or, where no RDAP server answers, WHOIS (port 43).
 */

/**
 * Output of a `domain_expiry` check: `domain` (lower-case, A-labels), `source` (`rdap` or
 * `whois`), `server` (the RDAP base URL or WHOIS `host:port` that answered), `registrar` (name,
 * null when not published), `expires_at` (ISO 8601 UTC; null when not published),
 * `days_until_expiry` (whole days, negative once expired; null without expires_at),
 * `name_servers` (lower-case host names), `statuses` (RDAP statuses or EPP codes as published),
 * `lookup_ms` (the whole look-up, fallback included), `rdap_error` (why RDAP was not used when the
 * answer came from WHOIS; else null).
 * @example { "domain": "example.com", "source": "rdap", "server": "https://rdap.verisign.com/com/v1/", "registrar": "RESERVED-Internet Assigned Numbers Authority", "expires_at": "2027-08-13T04:00:00.000Z", "days_until_expiry": 263, "name_servers": ["a.iana-servers.net", "b.iana-servers.net"], "statuses": ["client delete prohibited"], "lookup_ms": 182, "rdap_error": null }
 */
export const domainExpiryCheckOutputSchema = z.object({
  domain: z.string().max(253),
  source: z.enum(['rdap', 'whois']),
  server: z.string().max(2048),
  registrar: z.string().max(500).nullable(),
  expires_at: z.iso.datetime().nullable(),
  days_until_expiry: z.number().int().nullable(),
  name_servers: z.array(z.string().max(253)).max(50),
  statuses: z.array(z.string().max(200)).max(50),
  lookup_ms: z.number().int().min(0),
  rdap_error: z.string().max(500).nullable(),
});
export type DomainExpiryCheckOutput = z.infer<typeof domainExpiryCheckOutputSchema>;
