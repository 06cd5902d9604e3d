import { createRoute } from '@hono/zod-openapi';
import { sslAuditQuerySchema, sslAuditSchema, whoisInfoSchema, whoisQuerySchema } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { createLookups, type Lookups } from './lookups.js';

const whois = createRoute({
  method: 'get', path: '/whois', tags: ['info'],
  summary: 'Registration data of a domain (RDAP, else WHOIS) or an IP address (its RIR\'s RDAP); public',
  request: { query: whoisQuerySchema },
  responses: {
    200: jsonOk(whoisInfoSchema, 'registrar, expires_at, name_servers[] and where they came from (docs/api/lookups.md)'),
    400: jsonError('VALIDATION_FAILED: q is neither a domain name nor an IP address'),
    404: jsonError('NOT_FOUND: the registry says the name or address is not registered (details.reason)'),
    503: jsonError('UNAVAILABLE: no registry answered in time (Retry-After)'),
  },
});

const ssl = createRoute({
  method: 'get', path: '/ssl', tags: ['info'],
  summary: 'SSL/TLS audit of a host: certificate chain, protocol versions, OCSP, SCTs, grade; public',
  request: { query: sslAuditQuerySchema },
  responses: {
    200: jsonOk(sslAuditSchema, 'the audit (docs/api/lookups.md "SSL audit")'),
    400: jsonError('VALIDATION_FAILED: q is not a bare host name, or port is out of range'),
    404: jsonError('NOT_FOUND: the name does not resolve'),
    422: jsonError('PROBE_TARGET_INVALID: the host\'s addresses are outside the outbound address policy'),
    503: jsonError('UNAVAILABLE: no TLS handshake (timeout, refused, reset; Retry-After)'),
  },
});

/**
 * `/v1/info`: the WHOIS / RDAP look-up and the SSL audit (public), answered by lookups.ts (its
 * services built on the first request, over `deps.connector` or the outbound address policy).
 */
export function whoisSslRouter(deps: AppDeps, lookups: Lookups = createLookups(deps)) {
  const r = createRouter();
  r.openapi(whois, async (c) => ok(c, await lookups.whois(c.req.valid('query').q), 200));
  r.openapi(ssl, async (c) => {
    const { q, port } = c.req.valid('query');
    return ok(c, await lookups.ssl(q, port), 200);
  });
  return r;
}
