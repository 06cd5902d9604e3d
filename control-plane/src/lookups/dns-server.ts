import { isIP } from 'node:net';
import { parseServer } from '@vantage/node-agent/dns/query';
import { systemNameserver } from '@vantage/node-agent/dns/resolv-conf';
import type { Config } from '../config/index.js';
import { checkHost, type OutboundPolicy } from '../delivery/outbound-policy.js';
import { ApiError } from '../errors.js';
import type { DnsServer } from './dns-records.js';

const badServer = (message: string) => new ApiError('VALIDATION_FAILED', `server: ${message}`, { fields: [{ path: 'server', message }], in: 'query' });

/**
 * The DNS server a GET /v1/info/dns request asks (docs/api/lookups.md "DNS records"):
 * - `requested` (the caller's `server`): parsed as `host`, `host:port` or `[v6]:port` (400
 *   VALIDATION_FAILED naming `server` when malformed or when the name does not resolve); every
 *   address it has must pass the outbound address policy (422 PROBE_TARGET_INVALID otherwise), as
 *   for any connection the control plane makes for a caller;
 * - else the operator's `lookup_dns_server`, else the first nameserver of /etc/resolv.conf (the
 *   control plane's own resolver, trusted whatever its range).
 */
export async function chooseDnsServer(requested: string | undefined, config: Pick<Config, 'lookup_dns_server'>, policy: OutboundPolicy): Promise<DnsServer> {
  if (requested !== undefined) {
    const spec = parseServer(requested);
    if (!spec) throw badServer('must be host, host:port or [IPv6]:port with port 1-65535');
    const check = await checkHost(spec.host, policy);
    if (!check.ok) {
      if (check.refused) throw new ApiError('PROBE_TARGET_INVALID', `server: ${check.reason}`, { field: 'server', setting: check.setting });
      throw badServer(check.reason);
    }
    return { address: check.addresses[0]!, port: spec.port };
  }
  const configured = config.lookup_dns_server ? parseServer(config.lookup_dns_server) : null;
  if (!configured) return { address: await systemNameserver(), port: 53 };
  if (isIP(configured.host)) return { address: configured.host, port: configured.port };
  const [address] = await policy.resolve(configured.host).catch(() => [] as string[]);
  if (!address) throw new ApiError('UNAVAILABLE', `the configured DNS server ${configured.host} does not resolve`, undefined, { 'Retry-After': '30' });
  return { address, port: configured.port };
}
