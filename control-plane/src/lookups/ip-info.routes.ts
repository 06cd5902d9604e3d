import { createRoute } from '@hono/zod-openapi';
import { ipInfoQuerySchema, ipInfoSchema } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { createLookups, type Lookups } from './lookups.js';

const route = createRoute({
  method: 'get', path: '/ip', tags: ['info'],
  summary: 'Country, region, city, ASN and network owner of an IP address, from offline GeoLite2 and ASN data; public',
  description: 'Answers from the GeoLite2 city and ASN range data shipped with the control plane (docs/api/lookups.md "IP info"); no network look-up. A private or reserved address answers 200 with empty fields and a `note`.',
  request: { query: ipInfoQuerySchema },
  responses: { 200: jsonOk(ipInfoSchema, 'IP info'), 400: jsonError('VALIDATION_FAILED: q is not an IPv4 or IPv6 address'), 429: jsonError('RATE_LIMIT_EXCEEDED') },
});

/** `/v1/info/ip` (docs/api/lookups.md "IP info"; public). */
export function ipInfoRouter(deps: AppDeps, lookups: Lookups = createLookups(deps)) {
  const r = createRouter();
  r.openapi(route, async (c) => ok(c, await lookups.ip(c.req.valid('query').q), 200));
  return r;
}
