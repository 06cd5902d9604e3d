import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { clampedOffsetQuerySchema, createdVerdictOrderSchema, createVerdictOrderRequestSchema, isId, verdictOrderListSchema, verdictOrderSchema } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { requireAuth } from '../middleware/auth.js';
import { authorize } from '../teams/authorize.js';
import { recordsOf } from '../attestation/records.db.js';
import { createOrder } from './orders.js';
import { registerVerdictPayments } from './payments.js';
import { findOrder, listOrders, orderPdf, type VerdictOrderRow } from './verdicts.db.js';
import { toVerdictOrder } from './view.js';

const read = [requireAuth({ scope: 'read' })];
const write = [requireAuth({ scope: 'write' })];
const idParam = z.object({ id: z.string().max(64).openapi({ param: { name: 'id', in: 'path' }, example: 'v_01jd3k6w9z4q8r2t7v5x1y3b6c' }) });
const NOT_FOUND = jsonError('NOT_FOUND: no verdict order of yours with this id');
const idempotencyHeader = z.object({ 'idempotency-key': z.string().min(1).max(255).optional().openapi({ param: { name: 'idempotency-key', in: 'header' } }) });

const list = createRoute({
  method: 'get', path: '/', tags: ['verdicts'], summary: 'List your verdict orders, newest first', security: BEARER, middleware: read,
  request: { query: clampedOffsetQuerySchema },
  responses: { 200: jsonOk(verdictOrderListSchema, '`{orders[], total, limit, offset}`; limit clamped to 1-100 (default 20), offset to >= 0'), ...AUTH_ERRORS },
});
const create = createRoute({
  method: 'post', path: '/', tags: ['verdicts'], summary: 'Order a signed evidence report of a target over a time window', security: BEARER, middleware: write,
  request: { body: jsonBody(createVerdictOrderRequestSchema), headers: idempotencyHeader },
  responses: {
    201: jsonOk(createdVerdictOrderSchema, 'the order: `pay_url` for a charge (valid 24 h), empty when paid by a report credit'),
    200: jsonOk(createdVerdictOrderSchema, 'the same order again (same idempotency key and request)'),
    400: jsonError('VALIDATION_FAILED'), 402: jsonError('BILLING_INSUFFICIENT_CREDITS: payment_method report_credit without a credit left'),
    409: jsonError('CONFLICT: the idempotency key was used for another request'),
    422: jsonError('MONITOR_INVALID_TARGET: the target is neither monitored nor probed by you in the window (details.reason)'), ...AUTH_ERRORS,
  },
});
const get = createRoute({
  method: 'get', path: '/{id}', tags: ['verdicts'], summary: 'Read a verdict order with its status and attestation records', security: BEARER, middleware: read,
  request: { params: idParam },
  responses: { 200: jsonOk(verdictOrderSchema, 'the order'), 404: NOT_FOUND, ...AUTH_ERRORS },
});
const pdf = createRoute({
  method: 'get', path: '/{id}/pdf', tags: ['verdicts'], summary: 'Download the signed PDF of a completed order (owner only)', security: BEARER, middleware: read,
  request: { params: idParam },
  responses: {
    200: { description: 'the signed report', content: { 'application/pdf': { schema: z.string().openapi({ format: 'binary' }) } } },
    404: NOT_FOUND, 409: jsonError('CONFLICT: the report is not generated yet'), ...AUTH_ERRORS,
  },
});

/** `/v1/verdict/orders`: verdict orders of the caller (docs/api/verdicts.md). `now` is the clock, for tests. */
export function verdictOrdersRouter(deps: AppDeps, now: () => Date = () => new Date()) {
  registerVerdictPayments();
  const r = createRouter();

  /** The order `id` the caller may read; another account's answers 404. */
  async function orderFor(c: Context<AppEnv>, id: string): Promise<VerdictOrderRow> {
    const row = isId('verdict_order', id) ? await findOrder(deps.sql, id) : null;
    await authorize(c, deps, row && { user_id: row.user_id, team_id: null }, 'read', 'NOT_FOUND', 'verdict order');
    return row!;
  }

  r.openapi(list, async (c) => {
    const { limit, offset } = c.req.valid('query');
    const { rows, total } = await listOrders(deps.sql, c.get('principal')!.user_id, limit, offset);
    return ok(c, { orders: rows.map((row) => { const { attestation_records: _r, ...o } = toVerdictOrder(row); return o; }), total, limit, offset }, 200);
  });

  r.openapi(create, async (c) => {
    const principal = c.get('principal')!;
    const body = { ...c.req.valid('json') };
    const header = c.req.valid('header')['idempotency-key'];
    if (header !== undefined && body.idempotency_key !== undefined && header !== body.idempotency_key) {
      throw new ApiError('VALIDATION_FAILED', 'the Idempotency-Key header and idempotency_key differ', { fields: [{ path: 'idempotency_key', message: 'differs from the Idempotency-Key header' }] });
    }
    body.idempotency_key ??= header;
    const [user] = await deps.sql<{ email: string }[]>`SELECT email FROM users WHERE id = ${principal.user_id}`;
    const { created, answer } = await createOrder(deps, { user_id: principal.user_id, email: user!.email }, body, now());
    return created ? ok(c, answer, 201) : ok(c, answer, 200);
  });

  r.openapi(get, async (c) => {
    const row = await orderFor(c, c.req.valid('param').id);
    return ok(c, toVerdictOrder(row, await recordsOf(deps.sql, row.id)), 200);
  });

  r.openapi(pdf, async (c) => {
    const row = await orderFor(c, c.req.valid('param').id);
    const bytes = await orderPdf(deps.sql, row.id);
    if (!bytes) throw new ApiError('CONFLICT', `the report is not generated yet (status ${row.status})`);
    return c.body(new Uint8Array(bytes), 200, {
      'content-type': 'application/pdf', 'content-disposition': `attachment; filename="vantage-${row.id}.pdf"`, 'cache-control': 'private, no-store',
    }) as never;
  });

  return r;
}
