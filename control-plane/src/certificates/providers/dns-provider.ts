import { dnsProviderSettingsSchemas } from '@vantage/shared-protocol';
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

/** Settings of each provider (non-secret; returned nowhere either, kept for the provider): shared-protocol's, which the console's form follows. */
export const providerSettings = dnsProviderSettingsSchemas;
export type ProviderName = keyof typeof providerSettings;

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
