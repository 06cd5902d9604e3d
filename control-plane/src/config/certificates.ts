import { z } from 'zod';

/** Certificate orders over ACME and DNS credentials (docs/api/certificates.md). */
export const certificatesConfigSchema = z.object({
  /** ACME directory the orders go to (VANTAGE_CERTIFICATES_ACME_DIRECTORY_URL): Let's Encrypt, ZeroSSL or a private ACME CA (RFC 8555). Unset = orders cannot be submitted. */
  certificates_acme_directory_url: z.string().url().optional(),
  /** Name of that CA as orders show it in `ca` (VANTAGE_CERTIFICATES_CA_NAME). */
  certificates_ca_name: z.string().min(1).max(64).default('letsencrypt'),
  /** PEM file of extra CA certificates trusted for the ACME directory's TLS only (VANTAGE_CERTIFICATES_ACME_CA_FILE), e.g. a private CA's. */
  certificates_acme_ca_file: z.string().optional(),
  /** Contact e-mail given to the CA with the service's ACME account (VANTAGE_CERTIFICATES_ACME_EMAIL). */
  certificates_acme_email: z.string().email().optional(),
  /** Resolvers (`host` or `host:port`) used to find a zone's authoritative servers for DNS-01 checks (VANTAGE_CERTIFICATES_DNS_RESOLVERS); empty = the system's. */
  certificates_dns_resolvers: z.array(z.string()).default([]),
  /** Port the authoritative servers are asked on (VANTAGE_CERTIFICATES_DNS_PORT). */
  certificates_dns_port: z.coerce.number().int().min(1).max(65535).default(53),
  /** Longest wait for TXT records set through a credential to show on every authoritative server, ms (VANTAGE_CERTIFICATES_PROPAGATION_TIMEOUT_MS). */
  certificates_propagation_timeout_ms: z.coerce.number().int().min(1000).max(3_600_000).default(120_000),
  /** How often due order steps are claimed, ms (VANTAGE_CERTIFICATES_JOBS_INTERVAL_MS). */
  certificates_jobs_interval_ms: z.coerce.number().int().min(100).max(600_000).default(5000),
  /** Automatic attempts of a failing order step before the order is failed (VANTAGE_CERTIFICATES_MAX_ATTEMPTS). */
  certificates_max_attempts: z.coerce.number().int().min(1).max(10).default(3),
  /** First wait before an automatic retry, ms, doubled each attempt (VANTAGE_CERTIFICATES_RETRY_BASE_MS). */
  certificates_retry_base_ms: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
  /** How often each DNS credential's health is checked, s (VANTAGE_CERTIFICATES_DNS_HEALTH_INTERVAL_S). */
  certificates_dns_health_interval_s: z.coerce.number().int().min(10).max(604_800).default(21_600),
  /** Days before a certificate's not_after its expiry notice is raised (VANTAGE_CERTIFICATES_EXPIRY_NOTICE_DAYS). */
  certificates_expiry_notice_days: z.coerce.number().int().min(1).max(90).default(21),
  /** Cloudflare API base (VANTAGE_CERTIFICATES_CLOUDFLARE_API_URL). */
  certificates_cloudflare_api_url: z.string().url().default('https://api.cloudflare.com/client/v4'),
  /** Route 53 API endpoint (VANTAGE_CERTIFICATES_ROUTE53_API_URL). */
  certificates_route53_api_url: z.string().url().default('https://route53.amazonaws.com'),
  /** Time limit of one call to a DNS provider or the DNS, ms (VANTAGE_CERTIFICATES_DNS_TIMEOUT_MS). */
  certificates_dns_timeout_ms: z.coerce.number().int().min(100).max(120_000).default(15_000),
});
