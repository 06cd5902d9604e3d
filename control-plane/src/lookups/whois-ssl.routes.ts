import { createRoute } from '@hono/zod-openapi';
import { sslAuditQuerySchema, sslLookupSchema, whoisInfoSchema, whoisQuerySchema } from '@vantage/shared-protocol';
import type { MiddlewareHandler } from 'hono';
import type { AppDeps } from '../deps.js';
import { jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import type { AppEnv } from '../env.js';
import { grants, scopeError } from '../middleware/scopes.js';
import { requireProbeAccess } from '../probes/access.js';
import { probeCreator } from '../probes/create.js';
import { GroupViews } from '../probes/view.js';
import { createLookups, type Lookups } from './lookups.js';
import { sslNodeAudit } from './ssl-audit-node.js';

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

/**
 * With `node_id` the lookup runs a probe: the operator's VANTAGE_PUBLIC_PROBES decides who may
 * (probes/access.ts), and a key or PAT needs the `probe` scope as POST /v1/probe/* does
 * (docs/api/scopes.md; the route itself asks none).
 * @throws ApiError AUTH_REQUIRED, FORBIDDEN (the setting, or the scope)
 */
function probeAccessWithNode(mode: Parameters<typeof requireProbeAccess>[0]): MiddlewareHandler<AppEnv> {
  const guard = requireProbeAccess(mode);
  return async function probeAccessWithNodeMiddleware(c, next) {
    if (c.req.query('node_id') === undefined) return next();
    const principal = c.get('principal');
    if (principal && principal.kind !== 'session' && !grants(principal.scopes, 'probe')) throw scopeError('probe', principal.scopes);
    return guard(c, next);
  };
}

const sslRoute = (mode: Parameters<typeof requireProbeAccess>[0]) => createRoute({
  method: 'get', path: '/ssl', tags: ['info'], middleware: [probeAccessWithNode(mode)],
  summary: 'SSL/TLS audit of a host: certificate chain, protocol versions, OCSP, SCTs, grade; public',
  description: 'From the control plane under its outbound address policy; with `node_id`, from that node (an `ssl` probe task under the node\'s target policy, awaited; who may: VANTAGE_PUBLIC_PROBES). `node_id` in the answer says which node ran it (null: the control plane).',
  request: { query: sslAuditQuerySchema },
  responses: {
    200: jsonOk(sslLookupSchema, 'the audit (docs/api/lookups.md "SSL audit")'),
    400: jsonError('VALIDATION_FAILED: q is not a bare host name, port is out of range, or the node_id node cannot run SSL audits (details.node_id)'),
    401: jsonError('AUTH_REQUIRED: node_id from an anonymous caller while VANTAGE_PUBLIC_PROBES=accounts'),
    403: jsonError('FORBIDDEN: node_id while VANTAGE_PUBLIC_PROBES=off, or from a key without the probe scope'),
    404: jsonError('NOT_FOUND: the name does not resolve (from the node with node_id); NODE_NOT_FOUND: no node node_id that serves the caller (details.node_id)'),
    422: jsonError('PROBE_TARGET_INVALID: the host\'s addresses are outside the outbound address policy, or (node_id) the probe target policy or the node\'s own policy'),
    503: jsonError('UNAVAILABLE: no TLS handshake (timeout, refused, reset), or no result from the node in time (Retry-After); NODE_OFFLINE: the node_id node is not online (Retry-After)'),
  },
});

/**
 * `/v1/info`: the WHOIS / RDAP look-up and the SSL audit (public), answered by lookups.ts (its
 * services built on the first request, over `deps.connector` or the outbound address policy);
 * the SSL audit with `node_id` by that node (ssl-audit-node.ts).
 */
export function whoisSslRouter(deps: AppDeps, lookups: Lookups = createLookups(deps)) {
  const r = createRouter();
  const onNode = sslNodeAudit({
    create: probeCreator({ sql: deps.sql, generic_sql: deps.generic_sql, log: deps.log, config: deps.config, hub: deps.hub }),
    views: new GroupViews(deps.sql), config: deps.config,
  });
  r.openapi(whois, async (c) => ok(c, await lookups.whois(c.req.valid('query').q), 200));
  r.openapi(sslRoute(deps.config.public_probes), async (c) => {
    const { q, port, node_id } = c.req.valid('query');
    return ok(c, node_id ? await onNode(q, port, node_id, c.get('principal') ?? null) : await lookups.ssl(q, port), 200);
  });
  return r;
}
