import type { DnsProviderName, DnsProviderSettings } from '@vantage/shared-protocol';
import type { PROVIDERS, Same } from '../../api/vocabulary.js';

/**
 * One setting of a DNS provider as the credential form asks for it: `number` is sent as a
 * number, `choice` offers `choices`; `placeholder` shows the API's default.
 */
export interface SettingField { key: string; kind: 'text' | 'number' | 'choice'; required: boolean; choices?: readonly string[]; placeholder?: string }

const TSIG_ALGORITHMS = ['hmac-sha256', 'hmac-sha384', 'hmac-sha512', 'hmac-sha1'] as const;
true satisfies Same<(typeof TSIG_ALGORITHMS)[number], NonNullable<DnsProviderSettings<'rfc2136'>['algorithm']>>;

/**
 * The settings of each provider (docs/api/certificates.md "DNS credentials"; shared-protocol's
 * `dnsProviderSettingsSchemas`, which the API checks them with). The checks below fail the build
 * when a provider gains or loses a setting the form does not ask for.
 */
export const PROVIDER_FIELDS = {
  rfc2136: [
    { key: 'server', kind: 'text', required: true },
    { key: 'port', kind: 'number', required: false, placeholder: '53' },
    { key: 'zone', kind: 'text', required: true },
    { key: 'key_name', kind: 'text', required: true },
    { key: 'algorithm', kind: 'choice', required: false, choices: TSIG_ALGORITHMS },
  ],
  cloudflare: [{ key: 'zone_id', kind: 'text', required: true }],
  route53: [
    { key: 'hosted_zone_id', kind: 'text', required: true },
    { key: 'access_key_id', kind: 'text', required: true },
    { key: 'region', kind: 'text', required: false, placeholder: 'us-east-1' },
  ],
} as const satisfies { [P in DnsProviderName]: ReadonlyArray<SettingField & { key: keyof DnsProviderSettings<P> }> };
true satisfies Same<keyof typeof PROVIDER_FIELDS, (typeof PROVIDERS)[number]>;
true satisfies Same<(typeof PROVIDER_FIELDS.rfc2136)[number]['key'], keyof DnsProviderSettings<'rfc2136'>>;
true satisfies Same<(typeof PROVIDER_FIELDS.cloudflare)[number]['key'], keyof DnsProviderSettings<'cloudflare'>>;
true satisfies Same<(typeof PROVIDER_FIELDS.route53)[number]['key'], keyof DnsProviderSettings<'route53'>>;

/** The API's `settings` from the form's values: numbers as numbers, empty optional settings left out (the API's defaults apply). */
export function providerSettings(provider: DnsProviderName, values: Record<string, string>): Record<string, unknown> {
  const settings: Record<string, unknown> = {};
  for (const f of PROVIDER_FIELDS[provider] as readonly SettingField[]) {
    const v = (values[f.key] ?? '').trim();
    if (v) settings[f.key] = f.kind === 'number' && /^\d+$/.test(v) ? Number(v) : v;
  }
  return settings;
}
