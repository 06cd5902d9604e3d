import { createRoute } from '@hono/zod-openapi';
import { COMBO_AVAILABILITY_MAX, domainComboPreviewSchema, domainComboSpecSchema } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { loadBootstrap } from '../lookups/rdap-bootstrap.js';
import { requireAuth } from '../middleware/auth.js';
import { domainAvailability } from './availability.js';
import { buildCombos, drawEvenly, effectiveCap } from './combos.js';

const preview = createRoute({
  method: 'post', path: '/combos/preview', tags: ['domains'], security: BEARER, middleware: [requireAuth({ scope: 'read' })],
  summary: 'Count the names a combination spec makes and draw an even sample; optionally ask RDAP about a few',
  request: { body: jsonBody(domainComboSpecSchema) },
  responses: {
    200: jsonOk(domainComboPreviewSchema, '{total, total_exact, effective, capped, cap, sample[], availability[]?}'),
    400: jsonError('VALIDATION_FAILED: a slot variant or literal, a top-level domain, or a label over 63 characters'), ...AUTH_ERRORS,
  },
});

/**
 * `/v1/domains`: the combination preview (docs/api/domains.md). The RDAP bootstrap
 * (config rdap_bootstrap_file, else the shipped copy) is read when the router is built.
 */
export function domainsRouter(deps: AppDeps) {
  const r = createRouter();
  const rdap = { bootstrap: loadBootstrap(deps.config.rdap_bootstrap_file), connector: deps.connector, timeout_ms: deps.config.lookup_timeout_ms };
  r.openapi(preview, async (c) => {
    const spec = c.req.valid('json');
    const combos = buildCombos(spec);
    const cap = effectiveCap(spec.cap);
    const sample = drawEvenly(combos, cap);
    const effective = sample.length;
    const total = combos.total;
    const availability = spec.check_availability
      ? await Promise.all(drawEvenlyFrom(sample, COMBO_AVAILABILITY_MAX).map((name) => domainAvailability(rdap, name)))
      : undefined;
    return ok(c, {
      total: Number(total), total_exact: total.toString(), effective, capped: total > BigInt(cap), cap, sample,
      ...(availability ? { availability } : {}),
    }, 200);
  });
  return r;
}

/** At most `n` items of `items`, evenly spaced (the first always). */
function drawEvenlyFrom<T>(items: T[], n: number): T[] {
  if (items.length <= n) return items;
  return Array.from({ length: n }, (_, k) => items[Math.floor((k * items.length) / n)]!);
}
