import type { z } from 'zod';
import { sendUpdate, type UpdateTarget } from '../dns-update.js';
import type { DnsProvider, providerSettings } from './dns-provider.js';

/**
 * DNS-01 through TSIG-signed dynamic updates (RFC 2136, RFC 8945) sent to the zone's primary
 * server (BIND, Knot, PowerDNS). The health check is an empty update: the server checks the
 * signature and answers without changing the zone.
 */
export function rfc2136Provider(s: z.infer<typeof providerSettings.rfc2136>, secret_base64: string, timeout_ms: number): DnsProvider {
  const target: UpdateTarget = { host: s.server, port: s.port, zone: s.zone, key: { name: s.key_name, algorithm: s.algorithm, secret_base64 }, timeout_ms };
  return {
    present: (fqdn, value) => sendUpdate(target, [{ op: 'add', fqdn, value, ttl_s: 60 }]),
    cleanup: (fqdn, value) => sendUpdate(target, [{ op: 'delete', fqdn, value }]),
    check: () => sendUpdate(target, []),
  };
}
