import { Resolver } from 'node:dns/promises';
import type { StatusPageDomainCheck } from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';

/**
 * The documented DNS check of a custom domain (docs/api/status-pages.md "Custom domain"): the
 * domain must have a CNAME record (RFC 1034 section 3.6.2) whose target is `expected_target`, this
 * deployment's host name (from VANTAGE_PUBLIC_URL). Asks `status_page_dns_servers` when set, else
 * the system's resolvers. A lookup error is a failed check with its reason, never an exception.
 */
export async function checkCustomDomain(custom_domain: string, expected_target: string, config: Pick<Config, 'status_page_dns_servers'>): Promise<StatusPageDomainCheck> {
  const resolver = new Resolver({ timeout: 3000, tries: 2 });
  if (config.status_page_dns_servers.length > 0) resolver.setServers(config.status_page_dns_servers);
  const expected = expected_target.toLowerCase().replace(/\.$/, '');
  let cname: string[] = [];
  try {
    cname = (await resolver.resolveCname(custom_domain)).map((n) => n.toLowerCase().replace(/\.$/, ''));
  } catch (err) {
    const code = (err as { code?: string }).code ?? 'ERROR';
    const message = code === 'ENODATA' || code === 'ENOTFOUND' ? `${custom_domain} has no CNAME record: add one naming ${expected}` : `the DNS lookup failed (${code})`;
    return { custom_domain, expected_target: expected, cname: [], ok: false, message };
  }
  const ok = cname.includes(expected);
  return {
    custom_domain, expected_target: expected, cname, ok,
    message: ok ? `${custom_domain} is a CNAME of ${expected}` : `${custom_domain} is a CNAME of ${cname.join(', ')}, not of ${expected}`,
  };
}
