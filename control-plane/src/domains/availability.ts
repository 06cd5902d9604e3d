import type { z } from 'zod';
import type { comboAvailabilitySchema } from '@vantage/shared-protocol';
import type { OutboundConnector } from '../delivery/connector.js';
import { rdapServersFor, type RdapBootstrap } from '../lookups/rdap-bootstrap.js';
import { failureKind, rdapLookup } from '../lookups/rdap.js';

/** One name's availability as the preview reports it. */
export type ComboAvailability = z.infer<typeof comboAvailabilitySchema>;

/**
 * Ask the registries about `domain` over RDAP (the lookups' client, lookups/rdap.ts; servers from
 * the RFC 9224 bootstrap, each tried in turn, every connection under the outbound address
 * policy): a domain object → `registered`, 404 → `available` (RFC 9082: the registry has no such
 * name), anything else from every server → `unknown` with the last reason. Never throws.
 */
export async function domainAvailability(opts: { bootstrap: RdapBootstrap; connector: OutboundConnector | undefined; timeout_ms: number }, domain: string): Promise<ComboAvailability> {
  const servers = rdapServersFor(opts.bootstrap, domain);
  if (!opts.connector) return { domain, status: 'unknown', detail: 'outbound connections are off in this process' };
  if (servers.length === 0) return { domain, status: 'unknown', detail: `no RDAP server for .${domain.split('.').pop()} in the bootstrap registry` };
  let detail = '';
  for (const base of servers) {
    try {
      await rdapLookup(opts.connector, base, domain, opts.timeout_ms);
      return { domain, status: 'registered', detail: null };
    } catch (err) {
      if (failureKind(err) === 'not_found') return { domain, status: 'available', detail: null };
      detail = (err as Error).message;
    }
  }
  return { domain, status: 'unknown', detail: detail.slice(0, 500) };
}
