import { isIP } from 'node:net';
import type { WhoisInfo } from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';
import type { OutboundConnector } from '../delivery/connector.js';
import { ApiError } from '../errors.js';
import { loadBootstrap } from './rdap-bootstrap.js';
import { failureKind, type RegistryFailureKind } from './rdap.js';
import { loadIpBootstrap, rdapIpLookup, rdapServersForIp, type IpBootstrapEntry } from './rdap-ip.js';
import { createTtlCache } from './whois-cache.js';
import { defaultWhoisServer, lookupDomain, type DomainLookupOptions } from './whois-lookup.js';

/*
 * GET /v1/info/whois (docs/api/lookups.md "WHOIS / RDAP"): domains through the same
 * registry look-up as the domain_expiry check (whois-lookup.ts: RDAP, then WHOIS with referrals),
 * IP addresses through their Regional Internet Registry's RDAP server; answers cached.
 */

/** Seconds a client is told to wait after a registry failed to answer (Retry-After). */
export const WHOIS_RETRY_AFTER_S = 30;

/** The registry a WHOIS server name (an RDAP `port43`) belongs to. */
const RIRS: Array<[RegExp, string]> = [[/arin\.net$/, 'ARIN'], [/ripe\.net$/, 'RIPE NCC'], [/apnic\.net$/, 'APNIC'], [/lacnic\.net$/, 'LACNIC'], [/afrinic\.net$/, 'AFRINIC']];

type Answer = { ok: true; info: Omit<WhoisInfo, 'cached'> } | { ok: false; reason: string };

/** The WHOIS look-up of one process. */
export interface WhoisService {
  /**
   * Registration data of `q` (a normalised domain name or an IP address, whoisQuerySchema).
   * @throws ApiError NOT_FOUND (the registry has no such name or address; the message says which
   *   registry said so), UNAVAILABLE with Retry-After (no registry answered: timeout, refusal by
   *   the outbound policy, bad answer)
   */
  lookup(q: string): Promise<WhoisInfo>;
}

/** Parse `tld=host[:port]` entries (config whois_servers). */
function whoisServerMap(entries: string[]): Map<string, string> {
  return new Map(entries.map((e) => [e.slice(0, e.indexOf('=')).toLowerCase(), e.slice(e.indexOf('=') + 1)]));
}

/** The ApiError for a failed look-up of `q` of `kind`. */
function failed(q: string, kind: RegistryFailureKind, reason: string): ApiError {
  if (kind === 'not_found') return new ApiError('NOT_FOUND', `${q} is not registered: ${reason}`, { q, reason });
  return new ApiError('UNAVAILABLE', `no registry answered for ${q}: ${reason}`, { q, reason, timeout: kind === 'timeout' }, { 'Retry-After': String(WHOIS_RETRY_AFTER_S) });
}

/**
 * Build the service from configuration (bootstrap files read now: config rdap_bootstrap_file,
 * rdap_ip_bootstrap_files; whois_servers, rdap_ip_server, lookup_timeout_ms, whois_cache_*) and the
 * process's outbound connector. @throws when a configured bootstrap file cannot be read or parsed
 */
export function createWhoisService(config: Config, connector: OutboundConnector, now: () => Date = () => new Date()): WhoisService {
  const servers = whoisServerMap(config.whois_servers);
  const domain_opts: DomainLookupOptions = {
    bootstrap: loadBootstrap(config.rdap_bootstrap_file), connector, timeout_ms: config.lookup_timeout_ms,
    ...(servers.size > 0 ? { whois_server: (tld: string) => servers.get(tld) ?? defaultWhoisServer(tld) } : {}),
  };
  const ip_bootstrap: IpBootstrapEntry[] = loadIpBootstrap(config.rdap_ip_bootstrap_files);
  const cache = createTtlCache<Answer>(config.whois_cache_ttl_s, config.whois_cache_entries);

  async function domainAnswer(name: string): Promise<Answer> {
    try {
      const out = await lookupDomain(name, domain_opts, now);
      return { ok: true, info: { domain: out.domain, registrar: out.registrar, expires_at: out.expires_at, name_servers: out.name_servers, statuses: out.statuses, source: out.source, server: out.server, network: null, queried_at: now().toISOString() } };
    } catch (err) {
      if (failureKind(err) === 'not_found') return { ok: false, reason: (err as Error).message };
      throw err;
    }
  }

  async function ipAnswer(ip: string): Promise<Answer> {
    const bases = rdapServersForIp(ip_bootstrap, ip, [config.rdap_ip_server]);
    let last: unknown = null;
    for (const base of bases) {
      try {
        const net = await rdapIpLookup(connector, base, ip, config.lookup_timeout_ms);
        const rir = RIRS.find(([re]) => net.port43 && re.test(net.port43.toLowerCase()))?.[1] ?? net.port43;
        const { port43: _p, statuses, ...network } = net;
        return { ok: true, info: { domain: ip, registrar: rir, expires_at: null, name_servers: [], statuses, source: 'rdap', server: base, network, queried_at: now().toISOString() } };
      } catch (err) {
        if (failureKind(err) === 'not_found') return { ok: false, reason: (err as Error).message };
        last = err;
      }
    }
    throw last;
  }

  return {
    async lookup(q) {
      try {
        const { value, cached } = await cache.get(q, () => (isIP(q) ? ipAnswer(q) : domainAnswer(q)));
        if (!value.ok) throw failed(q, 'not_found', value.reason);
        return { ...value.info, cached };
      } catch (err) {
        if (err instanceof ApiError) throw err;
        throw failed(q, failureKind(err), (err as Error).message);
      }
    },
  };
}

