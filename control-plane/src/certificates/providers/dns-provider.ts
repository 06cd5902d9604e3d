import { z } from 'zod';
import type { Config } from '../../config/index.js';
import { cloudflareProvider } from './cloudflare.js';
import { rfc2136Provider } from './rfc2136.js';
import { route53Provider } from './route53.js';

/*
 * DNS credential providers behind one interface: what DNS-01 needs (put a TXT record, take it
 * away) and a harmless health check. Settings are the provider's non-secret parameters; the
 * secret (TSIG secret, API token, secret access key) is stored sealed and given only here.
 */

/** What a DNS-01 challenge needs from a DNS provider. */
export interface DnsProvider {
  /** Add the TXT record `value` at `fqdn` (other values at that name stay). @throws Error naming the provider's refusal */
  present(fqdn: string, value: string): Promise<void>;
  /** Remove exactly that TXT record; removing one that is not there is no error. */
  cleanup(fqdn: string, value: string): Promise<void>;
  /** A check that changes nothing (a no-op update, reading the zone). @throws Error when the credential is refused or the provider is unreachable */
  check(): Promise<void>;
}

const host = z.string().min(1).max(253).regex(/^[A-Za-z0-9.:_-]+$/, 'a host name or IP address');
const zone = z.string().min(1).max(253).regex(/^([A-Za-z0-9_-]{1,63}\.)*[A-Za-z0-9_-]{1,63}\.?$/, 'a DNS zone name');

/** Settings of each provider (non-secret; returned nowhere either, kept for the provider). */
export const providerSettings = {
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
} as const;
export type ProviderName = keyof typeof providerSettings;
export const PROVIDERS = Object.keys(providerSettings) as ProviderName[];

/** Why `secret` is not a usable secret for `provider`, or null. */
export function secretFault(provider: ProviderName, secret: string): string | null {
  if (provider === 'rfc2136') return /^[A-Za-z0-9+/]{16,}={0,2}$/.test(secret) ? null : 'a TSIG secret in base64 (as tsig-keygen prints it)';
  return secret.length >= 20 && secret.length <= 200 && /^[\x21-\x7e]+$/.test(secret) ? null : 'an API secret of 20-200 printable characters';
}

export type ProviderConfig = Pick<Config, 'certificates_cloudflare_api_url' | 'certificates_route53_api_url' | 'certificates_dns_timeout_ms'>;

/** The provider of a stored credential. `settings` were checked by providerSettings when stored. */
export function dnsProvider(config: ProviderConfig, provider: ProviderName, settings: Record<string, unknown>, secret: string): DnsProvider {
  switch (provider) {
    case 'rfc2136': return rfc2136Provider(providerSettings.rfc2136.parse(settings), secret, config.certificates_dns_timeout_ms);
    case 'cloudflare': return cloudflareProvider(providerSettings.cloudflare.parse(settings), secret, config);
    case 'route53': return route53Provider(providerSettings.route53.parse(settings), secret, config);
  }
}
