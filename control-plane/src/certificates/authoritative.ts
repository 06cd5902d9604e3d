import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { Config } from '../config/index.js';

/*
 * Whether a DNS-01 TXT record is visible where the CA will look: at every authoritative server of
 * the record's zone, asked directly (not through a cache). The zone is the closest enclosing name
 * that has NS records (RFC 8555 §8.4 names the record `_acme-challenge.<domain>`).
 */

export type AuthoritativeConfig = Pick<Config, 'certificates_dns_resolvers' | 'certificates_dns_port' | 'certificates_dns_timeout_ms'>;

function resolver(config: AuthoritativeConfig, servers?: string[]): Resolver {
  const r = new Resolver({ timeout: Math.min(config.certificates_dns_timeout_ms, 5000), tries: 2 });
  const list = servers ?? config.certificates_dns_resolvers;
  if (list.length > 0) r.setServers(list);
  return r;
}

/** The zone holding `fqdn` and its authoritative servers' addresses. @throws Error when no enclosing zone is found */
export async function authoritativeServers(config: AuthoritativeConfig, fqdn: string): Promise<{ zone: string; addresses: string[] }> {
  const r = resolver(config);
  const labels = fqdn.replace(/\.$/, '').split('.');
  for (let i = 0; i < labels.length - 1; i++) {
    const name = labels.slice(i).join('.');
    const ns = await r.resolveNs(name).catch(() => [] as string[]);
    if (ns.length === 0) continue;
    const addresses = new Set<string>();
    for (const host of ns) {
      if (isIP(host)) { addresses.add(host); continue; }
      for (const a of await r.resolve4(host).catch(() => [] as string[])) addresses.add(a);
      for (const a of await r.resolve6(host).catch(() => [] as string[])) addresses.add(a);
    }
    if (addresses.size === 0) throw new Error(`the name servers of ${name} (${ns.join(', ')}) have no addresses`);
    return { zone: name, addresses: [...addresses] };
  }
  throw new Error(`no DNS zone found above ${fqdn}`);
}

/**
 * Check that `value` is a TXT record at `fqdn` on every authoritative server (compared exactly:
 * the value is case-sensitive).
 * @returns null when visible everywhere, else a sentence saying where it is missing
 */
export async function txtVisibility(config: AuthoritativeConfig, fqdn: string, value: string): Promise<string | null> {
  let servers: { zone: string; addresses: string[] };
  try {
    servers = await authoritativeServers(config, fqdn);
  } catch (err) {
    return `cannot find the authoritative servers: ${(err as Error).message}`;
  }
  const missing: string[] = [];
  for (const address of servers.addresses) {
    const at = `${address.includes(':') ? `[${address}]` : address}:${config.certificates_dns_port}`;
    const txt = await resolver(config, [at]).resolveTxt(fqdn).catch(() => [] as string[][]);
    if (!txt.some((chunks) => chunks.join('') === value)) missing.push(address);
  }
  return missing.length === 0 ? null : `TXT record not yet visible at ${fqdn} on authoritative server(s) ${missing.join(', ')} of zone ${servers.zone}`;
}
