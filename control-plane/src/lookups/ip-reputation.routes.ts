import { createRoute } from '@hono/zod-openapi';
import { ipReputationQuerySchema, ipReputationSchema } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { createLookups, type Lookups } from './lookups.js';
import { meteredLookup } from './reputation-limit.js';

/** `/v1/ip/reputation` (docs/api/lookups.md "IP reputation"; public, rate-limited and metered per key). */
export function ipReputationRouter(deps: AppDeps, lookups: Lookups = createLookups(deps)) {
  const r = createRouter();
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
    return ok(c, await lookups.reputation(c.req.valid('query').q), 200);
  });
  return r;
}
