import { createRoute } from '@hono/zod-openapi';
import { ipReputationQuerySchema, ipReputationSchema, isIpLiteral, normalizeDomain } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { createOutboundPolicy } from '../delivery/outbound-policy.js';
import { ApiError } from '../errors.js';
import { jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { dnsRecords } from './dns-records.js';
import { chooseDnsServer } from './dns-server.js';
import { lookupGeo } from './geo.js';
import { ipReputation, reputationLists } from './ip-reputation.js';
import { meteredLookup } from './reputation-limit.js';

/**
 * The first address of `domain` through the control plane's resolver (A, then AAAA).
 * @throws NOT_FOUND when the name does not exist or has no address; UNAVAILABLE when the resolver fails
 */
async function addressOf(deps: AppDeps, server: Awaited<ReturnType<typeof chooseDnsServer>>, domain: string): Promise<string> {
  for (const type of ['A', 'AAAA'] as const) {
    const { records } = await dnsRecords(server, domain, type, deps.config.lookup_dns_timeout_ms);
    const hit = records.find((r) => r.type === type);
    if (hit) return hit.value;
  }
  throw new ApiError('NOT_FOUND', `${domain} has no A or AAAA record to judge`, { reason: 'NO_ADDRESS', domain });
}

/** `/v1/ip/reputation` (docs/api/lookups.md "IP reputation"; public, rate-limited and metered per key). */
export function ipReputationRouter(deps: AppDeps) {
  const r = createRouter();
  const geo = lookupGeo(deps.config, deps.log);
  const lists = reputationLists(deps.config, deps.log);
  const policy = createOutboundPolicy(deps.config);
  r.openapi(createRoute({
    method: 'get', path: '/reputation', tags: ['info'], middleware: [meteredLookup(deps, 'ip_reputation')],
    summary: 'Suspicion score, risk level and evidence (Tor exit, VPN, proxy, hosting, abuse ASN) of an IP address or a domain\'s address; public',
    description: 'Scored from weighted evidence of local lists (docs/api/lookups.md "IP reputation"). A domain is resolved through the control plane\'s resolver first. Anonymous calls are limited per source IP, keyed calls per credential; calls with an API key or PAT are counted per key and day (GET /v1/account/lookup-usage).',
    request: { query: ipReputationQuerySchema },
    responses: {
      200: jsonOk(ipReputationSchema, 'IP reputation'),
      400: jsonError('VALIDATION_FAILED: q is not an IP address or a domain'),
      404: jsonError('NOT_FOUND: the domain does not exist or has no address'),
      429: jsonError('RATE_LIMIT_EXCEEDED (Retry-After, X-RateLimit-*)'),
      503: jsonError('UNAVAILABLE: the resolver did not answer (Retry-After)'),
    },
  }), async (c) => {
    const { q } = c.req.valid('query');
    const ip = isIpLiteral(q) ? q : await addressOf(deps, await chooseDnsServer(undefined, deps.config, policy), normalizeDomain(q)!);
    return ok(c, await ipReputation(geo, lists, ip), 200);
  });
  return r;
}
