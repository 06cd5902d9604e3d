import { z } from 'zod';

/** Information lookups (docs/api/lookups.md). Read once in main.ts (VANTAGE_<FIELD>). */
export const infoLookupsConfigSchema = z.object({
  /**
   * DNS lookups: the resolver GET /v1/info/dns asks when the request names no `server` (`host`,
   * `host:port` or `[v6]:port`, port default 53); unset = the first nameserver of /etc/resolv.conf,
   * read at each lookup.
   */
  lookup_dns_server: z.string().min(1).optional(),
  /** DNS lookups: how long one query waits for its answer over UDP, then over TCP when truncated, ms; past it 503 UNAVAILABLE. */
  lookup_dns_timeout_ms: z.coerce.number().int().min(100).max(30_000).default(3_000),
  /**
   * IP reputation: a Tor exit list file (one address a line, `#` comments; the `ExitAddress` lines
   * of the Tor Project's exit-addresses file are read too). Re-read when its modification time
   * changes, so an operator refreshes it by replacing the file. Unset = no Tor signal.
   */
  reputation_tor_exit_file: z.string().min(1).optional(),
  /** IP reputation: files of VPN exit addresses or CIDR ranges (comma list; one entry a line, `#` comments), re-read when changed. */
  reputation_vpn_files: z.array(z.string().min(1)).default([]),
  /** IP reputation: files of open or commercial proxy addresses or CIDR ranges (comma list; format as the VPN files), re-read when changed. */
  reputation_proxy_files: z.array(z.string().min(1)).default([]),
  /**
   * IP reputation: a file of ASNs classified as hosting/data centre (one `AS<n>` or number a line,
   * `#` comments) used instead of the list shipped in control-plane/src/lookups/data/hosting-asns.txt.
   */
  reputation_hosting_asn_file: z.string().min(1).optional(),
  /** IP reputation: a file of ASNs with a record of abuse (format as the hosting file) instead of the shipped lookups/data/abuse-asns.txt. */
  reputation_abuse_asn_file: z.string().min(1).optional(),
  /** IP reputation: requests per source IP per `rate_limit_window_s` for anonymous callers (on top of the general rate limit). */
  reputation_rate_limit_anonymous: z.coerce.number().int().min(1).max(1_000_000).default(30),
  /** IP reputation: requests per API key, PAT or session per `rate_limit_window_s` (on top of the general rate limit). */
  reputation_rate_limit_keyed: z.coerce.number().int().min(1).max(1_000_000).default(600),
});
