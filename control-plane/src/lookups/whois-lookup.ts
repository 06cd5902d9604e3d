import type { DomainExpiryCheckOutput } from '@vantage/shared-protocol';
import { rdapServersFor, type RdapBootstrap } from './rdap-bootstrap.js';
import type { OutboundConnector } from '../delivery/connector.js';
import { failureKind, rdapLookup, registryError, type DomainRegistration, type RegistryFailureKind } from './rdap.js';
import { formatServer, whoisLookup } from './whois-port43.js';

/** Where registries are asked. */
export interface DomainLookupOptions {
  /** RFC 9224 bootstrap (bootstrap.ts loadBootstrap). */
  bootstrap: RdapBootstrap;
  /** The process's outbound connector (outbound.ts): every RDAP and WHOIS connection, redirects and referrals included, goes through it. */
  connector: OutboundConnector;
  /** WHOIS server for a TLD: `host` or `host:port`; default `whois.nic.<tld>:43` (com and net: Verisign's). */
  whois_server?: (tld: string) => string;
  /** Bound of each registry exchange, ms (default 10000). */
  timeout_ms?: number;
}

const WHOIS_SERVERS: Record<string, string> = { com: 'whois.verisign-grs.com', net: 'whois.verisign-grs.com', org: 'whois.publicinterestregistry.org' };

/** The WHOIS server asked for `tld` when none is configured: the registry's known server (com, net, org), else `whois.nic.<tld>`. */
export const defaultWhoisServer = (tld: string): string => WHOIS_SERVERS[tld] ?? `whois.nic.${tld}`;
const DAY_MS = 86_400_000;

/**
 * The registration of `domain` (docs/api/checks.md "domain_expiry"): RDAP at the servers the
 * bootstrap lists for its TLD, in order; when none is listed or none answers, WHOIS (port 43,
 * following one referral when the registry's answer has no expiry date). Every connection goes
 * through `opts.connector`: a server, redirect or referral the outbound address policy refuses is
 * not contacted, and the error says why and which setting opens it.
 * `days_until_expiry` counts whole days from `now` (negative once expired). `signal` ends the
 * exchange under way (the caller drops the result).
 * @throws registryError (rdap.ts) with both reasons when neither source gave registration data;
 *   its `kind` is `not_found` when a registry said the name does not exist (RDAP 404, or a WHOIS
 *   answer without registration data), else `timeout` when either source timed out, else `error`
 */
export async function lookupDomain(domain: string, opts: DomainLookupOptions, now: () => Date = () => new Date(), signal?: AbortSignal): Promise<DomainExpiryCheckOutput> {
  const name = domain.toLowerCase().replace(/\.$/, '');
  const started = Date.now();
  const timeout_ms = opts.timeout_ms ?? 10_000;
  const done = (source: 'rdap' | 'whois', server: string, r: DomainRegistration, rdap_error: string | null): DomainExpiryCheckOutput => ({
    domain: name, source, server, registrar: r.registrar?.slice(0, 500) ?? null,
    expires_at: r.expires_at?.toISOString() ?? null,
    days_until_expiry: r.expires_at ? Math.floor((r.expires_at.getTime() - now().getTime()) / DAY_MS) : null,
    name_servers: r.name_servers, statuses: r.statuses.map((s) => s.slice(0, 200)), lookup_ms: Date.now() - started, rdap_error,
  });
  const servers = rdapServersFor(opts.bootstrap, name);
  let rdap_error = servers.length === 0 ? `no RDAP server for .${name.split('.').pop()} in the bootstrap registry` : '';
  let rdap_kind: RegistryFailureKind | null = null;
  for (const base of servers) {
    try {
      return done('rdap', base, await rdapLookup(opts.connector, base, name, timeout_ms, signal), null);
    } catch (err) {
      rdap_error = (err as Error).message;
      rdap_kind = failureKind(err);
    }
  }
  if (signal?.aborted) throw registryError(`${rdap_error}; WHOIS: not asked (stopped)`, 'error');
  const tld = name.split('.').pop()!;
  const server = opts.whois_server?.(tld) ?? defaultWhoisServer(tld);
  const [host, port] = server.includes(':') ? [server.slice(0, server.lastIndexOf(':')), Number(server.slice(server.lastIndexOf(':') + 1))] : [server, 43];
  try {
    const found = await whoisLookup(opts.connector, { host: host!, port: port! }, name, timeout_ms, signal);
    return done('whois', formatServer(found.server), found.registration, rdap_error.slice(0, 500));
  } catch (err) {
    throw registryError(`${rdap_error}; ${(err as Error).message}`, combinedKind(rdap_kind, failureKind(err)));
  }
}

/** One kind for two failed sources: a registry's "no such name" wins, then a timeout. */
function combinedKind(rdap: RegistryFailureKind | null, whois: RegistryFailureKind): RegistryFailureKind {
  if (rdap === 'not_found' || whois === 'not_found') return 'not_found';
  return rdap === 'timeout' || whois === 'timeout' ? 'timeout' : 'error';
}
