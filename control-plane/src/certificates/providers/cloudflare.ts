import type { z } from 'zod';
import type { DnsProvider, ProviderConfig, providerSettings } from './dns-provider.js';

/*
 * DNS-01 through Cloudflare's DNS records API (v4, documented at developers.cloudflare.com/api:
 * "DNS Records for a Zone"), authenticated with an API token (Bearer). Every answer is the v4
 * envelope `{ success, errors[{code, message}], result }`. The health check reads the zone.
 */

interface Envelope<T> { success?: boolean; errors?: Array<{ code?: number; message?: string }>; result?: T }

/** Cloudflare's provider over `settings.zone_id` with API token `token`. */
export function cloudflareProvider(settings: z.infer<typeof providerSettings.cloudflare>, token: string, config: ProviderConfig): DnsProvider {
  const base = `${config.certificates_cloudflare_api_url.replace(/\/$/, '')}/zones/${settings.zone_id}`;

  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(config.certificates_dns_timeout_ms),
      });
    } catch (err) {
      throw new Error(`Cloudflare API unreachable: ${(err as Error).message}`);
    }
    const env = (await res.json().catch(() => ({}))) as Envelope<T>;
    if (!res.ok || env.success !== true) {
      const why = (env.errors ?? []).map((e) => `${e.code ?? ''} ${e.message ?? ''}`.trim()).join('; ') || `HTTP ${res.status}`;
      throw new Error(`Cloudflare API ${method} refused: ${why}`);
    }
    return env.result as T;
  }

  const find = (fqdn: string, value: string) =>
    call<Array<{ id: string; content: string }>>('GET', `/dns_records?${new URLSearchParams({ type: 'TXT', name: fqdn, content: value })}`);

  return {
    async present(fqdn, value) {
      if ((await find(fqdn, value)).some((r) => r.content === value)) return;
      await call('POST', '/dns_records', { type: 'TXT', name: fqdn, content: value, ttl: 60 });
    },
    async cleanup(fqdn, value) {
      for (const r of await find(fqdn, value)) if (r.content === value) await call('DELETE', `/dns_records/${encodeURIComponent(r.id)}`);
    },
    async check() {
      await call('GET', '');
    },
  };
}
