import { createRoute } from '@hono/zod-openapi';
import { dnsRecordsQuerySchema, dnsRecordsSchema } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { createLookups, type Lookups } from './lookups.js';

const route = createRoute({
  method: 'get', path: '/dns', tags: ['info'],
  summary: 'DNS records of a domain (A, AAAA, MX, TXT, NS, CNAME, SOA) with TTLs, in dig presentation format; public',
  description: 'Asked over UDP (TCP when truncated) of the control plane\'s resolver, or of `server` when given (docs/api/lookups.md "DNS records"). A `server` must pass the outbound address policy.',
  request: { query: dnsRecordsQuerySchema },
  responses: {
    200: jsonOk(dnsRecordsSchema, 'DNS records'),
    400: jsonError('VALIDATION_FAILED: q is not a domain, bad type or server'),
    404: jsonError('NOT_FOUND: the domain does not exist (NXDOMAIN)'),
    422: jsonError('PROBE_TARGET_INVALID: server is an address the control plane does not connect to'),
    429: jsonError('RATE_LIMIT_EXCEEDED'),
    503: jsonError('UNAVAILABLE: the DNS server did not answer or failed (Retry-After)'),
  },
});

/** `/v1/info/dns` (docs/api/lookups.md "DNS records"; public). */
export function dnsRecordsRouter(deps: AppDeps, lookups: Lookups = createLookups(deps)) {
  const r = createRouter();
  r.openapi(route, async (c) => {
    const { q, type, server } = c.req.valid('query');
    return ok(c, await lookups.dns(q, type, server), 200);
  });
  return r;
}
