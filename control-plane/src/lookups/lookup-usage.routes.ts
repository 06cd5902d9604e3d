import { createRoute } from '@hono/zod-openapi';
import { lookupUsageQuerySchema, lookupUsageSchema } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { requireAuth } from '../middleware/auth.js';
import { listLookupUsage } from './lookup-usage.db.js';

const DAY_MS = 86_400_000;
/** Longest range one request reads, days. */
const RANGE_DAYS_MAX = 366;

/** `/v1/account/lookup-usage` (docs/api/lookups.md "Rate limits and usage"): the caller's metered lookups per key and UTC day. */
export function lookupUsageRouter(deps: AppDeps) {
  const r = createRouter();
  r.openapi(createRoute({
    method: 'get', path: '/lookup-usage', tags: ['account'], security: BEARER, middleware: [requireAuth({ scope: 'read' })],
    summary: 'Metered lookups (IP reputation) made with each of your API keys and PATs, per UTC day',
    request: { query: lookupUsageQuerySchema },
    responses: { 200: jsonOk(lookupUsageSchema, '{items[] of {key_id, lookup, day, count}, total}'), 400: jsonError('VALIDATION_FAILED'), ...AUTH_ERRORS },
  }), async (c) => {
    const q = c.req.valid('query');
    const to = q.to ?? new Date().toISOString().slice(0, 10);
    const from = q.from ?? new Date(Date.parse(to) - 29 * DAY_MS).toISOString().slice(0, 10);
    if (from > to) throw new ApiError('VALIDATION_FAILED', 'from: must not be after to', { fields: [{ path: 'from', message: 'must not be after to' }], in: 'query' });
    if (Date.parse(to) - Date.parse(from) > RANGE_DAYS_MAX * DAY_MS) {
      throw new ApiError('VALIDATION_FAILED', `from: at most ${RANGE_DAYS_MAX} days before to`, { fields: [{ path: 'from', message: `at most ${RANGE_DAYS_MAX} days before to` }], in: 'query' });
    }
    const rows = await listLookupUsage(deps.sql, c.get('principal')!.user_id, from, to);
    return ok(c, { items: rows.map(({ access_key_id, ...rest }) => ({ key_id: access_key_id, ...rest })), total: rows.reduce((n, row) => n + row.count, 0) }, 200);
  });
  return r;
}
