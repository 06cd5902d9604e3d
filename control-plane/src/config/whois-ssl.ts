import { z } from 'zod';

/**
 * The WHOIS / RDAP and SSL audit look-ups (lookups/, docs/api/lookups.md). Read once in
 * main.ts (VANTAGE_<FIELD>); registry and TLS connections obey the outbound address policy
 * (VANTAGE_DELIVERY_ALLOW_CIDRS opens private ranges).
 */
export const whoisSslConfigSchema = z.object({
  /** How long a WHOIS / RDAP answer (found or "no such domain") is served from the look-up cache, seconds; 0 turns the cache off. */
  whois_cache_ttl_s: z.coerce.number().int().min(0).max(7 * 86_400).default(3600),
  /** Most answers the WHOIS look-up cache holds (least recently used dropped first). */
  whois_cache_entries: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  /**
   * WHOIS servers (port 43) by top-level domain, as `tld=host` or `tld=host:port` (comma
   * separated), used when RDAP gives no answer; unset TLDs use `whois.nic.<tld>` (com, net:
   * Verisign's; org: PIR's).
   */
  whois_servers: z.array(z.string().regex(/^[a-z0-9-]+=[A-Za-z0-9.:[\]-]+$/, 'must be tld=host or tld=host:port')).default([]),
  /**
   * RFC 9224 bootstrap files for IP addresses (IANA's ipv4.json and ipv6.json, comma separated):
   * which Regional Internet Registry's RDAP server an IP query goes to. Read at start. Unset or
   * not covering an address: VANTAGE_RDAP_IP_SERVER.
   */
  rdap_ip_bootstrap_files: z.array(z.string().min(1)).default([]),
  /**
   * RDAP base URL asked for an IP address that no bootstrap file covers. The RIRs' servers
   * redirect a query for another registry's space to that registry (RFC 7480 section 5.2).
   */
  rdap_ip_server: z.string().url().default('https://rdap.arin.net/registry/'),
  /** Bound of each registry exchange (RDAP request, WHOIS connection) and of each TLS handshake of the SSL audit, ms. */
  lookup_timeout_ms: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /**
   * A PEM file of extra trusted CA certificates for the SSL audit's `valid` (besides the system
   * roots): a private CA. Read at start.
   */
  extra_ca_file: z.string().min(1).optional(),
});
