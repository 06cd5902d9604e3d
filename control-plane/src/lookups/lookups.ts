import { isIpLiteral, normalizeDomain, type DnsLookupType, type SslLookup } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { createOutboundConnector } from '../delivery/connector.js';
import { createOutboundPolicy } from '../delivery/outbound-policy.js';
import { ApiError } from '../errors.js';
import { dnsRecords } from './dns-records.js';
import { chooseDnsServer } from './dns-server.js';
import { lookupGeo } from './geo.js';
import { findIcpRecord } from './icp.db.js';
import { registrableDomain, toFiling } from './icp.js';
import { ipInfo } from './ip-info.js';
import { ipReputation, reputationLists } from './ip-reputation.js';
import { createSslAuditService, type SslAuditService } from './ssl-audit.js';
import { createWhoisService, type WhoisService } from './whois.js';

/**
 * The six information look-ups (docs/api/lookups.md), one function each, shared by the /v1 routes
 * and the MCP tools so both answer alike. Arguments are the validated query values of the
 * matching route (shared-protocol *QuerySchema); each resolves to that route's `data`.
 */
export interface Lookups {
  /** GET /v1/info/ip: offline GeoLite2 and ASN data for an IPv4/IPv6 literal. */
  ip(q: string): ReturnType<typeof ipInfo>;
  /** GET /v1/info/whois: RDAP, else WHOIS; throws NOT_FOUND (not registered), UNAVAILABLE (no registry answered). */
  whois(q: string): ReturnType<WhoisService['lookup']>;
  /** GET /v1/info/ssl without node_id: TLS audit of host `q` on TCP `port` from the control plane (`node_id` null); throws NOT_FOUND, PROBE_TARGET_INVALID, UNAVAILABLE. */
  ssl(q: string, port: number): Promise<SslLookup>;
  /** GET /v1/info/dns: records of domain `q` (one `type`, or all), asked of `server` or the configured resolver. */
  dns(q: string, type?: DnsLookupType, server?: string): ReturnType<typeof dnsRecords>;
  /** GET /v1/info/icp: the ICP filing of `q`'s registrable domain; throws VALIDATION_FAILED for a public suffix. */
  icp(q: string): Promise<ReturnType<typeof toFiling>>;
  /** GET /v1/ip/reputation: score and evidence of an IP, or of a domain's first A/AAAA address; throws NOT_FOUND (no address). */
  reputation(q: string): ReturnType<typeof ipReputation>;
}

/** VALIDATION_FAILED for a value that is a public suffix or not a domain (ICP look-ups and imports). */
export function notRegistrable(path: string, value: string): ApiError {
  return new ApiError('VALIDATION_FAILED', `${path}: ${value} is a public suffix or not a domain, not a registrable domain`,
    { fields: [{ path, message: 'must be a domain under a public suffix (Public Suffix List)' }] });
}

/**
 * Build the look-ups over `deps` (config read here, once). The WHOIS and SSL services are built on
 * first use (bootstrap and CA files read then) over `deps.connector`, or a connector of their own
 * under the same outbound address policy when the deps carry none.
 */
export function createLookups(deps: Pick<AppDeps, 'sql' | 'config' | 'log' | 'connector'>): Lookups {
  const geo = lookupGeo(deps.config, deps.log);
  const lists = reputationLists(deps.config, deps.log);
  const policy = createOutboundPolicy(deps.config);
  let services: { whois: WhoisService; ssl: SslAuditService } | null = null;
  const remote = () => {
    if (!services) {
      const connector = deps.connector ?? createOutboundConnector(policy);
      services = { whois: createWhoisService(deps.config, connector), ssl: createSslAuditService(deps.config, connector) };
    }
    return services;
  };
  const timeout_ms = deps.config.lookup_dns_timeout_ms;

  /** The first address of `domain` (A, then AAAA) through the configured resolver. */
  async function addressOf(domain: string): Promise<string> {
    const server = await chooseDnsServer(undefined, deps.config, policy);
    for (const type of ['A', 'AAAA'] as const) {
      const { records } = await dnsRecords(server, domain, type, timeout_ms);
      const hit = records.find((r) => r.type === type);
      if (hit) return hit.value;
    }
    throw new ApiError('NOT_FOUND', `${domain} has no A or AAAA record to judge`, { reason: 'NO_ADDRESS', domain });
  }

  return {
    ip: (q) => ipInfo(geo, q),
    whois: (q) => remote().whois.lookup(q),
    ssl: async (q, port) => ({ ...(await remote().ssl.audit(q, port)), node_id: null }),
    async dns(q, type, server) {
      const target = await chooseDnsServer(server, deps.config, policy);
      return dnsRecords(target, normalizeDomain(q)!, type, timeout_ms);
    },
    async icp(q) {
      const domain = registrableDomain(q);
      if (!domain) throw notRegistrable('q', q);
      return toFiling(domain, await findIcpRecord(deps.sql, domain));
    },
    async reputation(q) {
      return ipReputation(geo, lists, isIpLiteral(q) ? q : await addressOf(normalizeDomain(q)!));
    },
  };
}
