import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { isId, webhookDeliveryListSchema, webhookDeliveryQuerySchema, webhookDeliverySchema } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { attemptsOf, getDelivery, listDeliveries, redeliver } from '../delivery/delivery-log.db.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { requireAuth } from '../middleware/auth.js';
import { authorize } from '../teams/authorize.js';
import type { Access } from '../teams/roles.js';
import { toDelivery } from './views.js';
import { getEndpointById, WEBHOOK_CHANNEL, type EndpointRow } from './webhook-endpoints.db.js';
import { endpointIdParam } from './webhook-endpoints.routes.js';

const TAGS = ['webhooks'];
const deliveryParams = endpointIdParam.extend({
  delivery_id: z.string().max(64).openapi({ param: { name: 'delivery_id', in: 'path' }, example: 'dlv_01jd3k6w9z4q8r2t7v5x1y3b6c' }),
});
const NOT_FOUND = { 404: jsonError('NOT_FOUND: no such endpoint or delivery you can read') };

const list = createRoute({
  method: 'get', path: '/{id}/deliveries', tags: TAGS, security: BEARER, middleware: [requireAuth({ scope: 'read' })],
  summary: 'The endpoint\'s deliveries, newest first, each with its attempt log (time, status code, latency, first 1 KB of the answer or the error)',
  request: { params: endpointIdParam, query: webhookDeliveryQuerySchema },
  responses: { 200: jsonOk(webhookDeliveryListSchema, '{items[], total, page, page_size, has_more}'), 400: jsonError('VALIDATION_FAILED'), ...NOT_FOUND, ...AUTH_ERRORS },
});
const readOne = createRoute({
  method: 'get', path: '/{id}/deliveries/{delivery_id}', tags: TAGS, security: BEARER, middleware: [requireAuth({ scope: 'read' })],
  summary: 'One delivery with its attempt log',
  request: { params: deliveryParams },
  responses: { 200: jsonOk(webhookDeliverySchema, 'the delivery'), ...NOT_FOUND, ...AUTH_ERRORS },
});
const resend = createRoute({
  method: 'post', path: '/{id}/deliveries/{delivery_id}/redeliver', tags: TAGS, security: BEARER, middleware: [requireAuth({ scope: 'write' })],
  summary: 'Send a delivery again now with the same webhook-id; its retry schedule starts over',
  request: { params: deliveryParams },
  responses: {
    ...AUTH_ERRORS,
    202: jsonOk(webhookDeliverySchema, 'the delivery, pending again'),
    403: jsonError('FORBIDDEN: the credential lacks the required scope, or a team\'s endpoint and a role that cannot change it (viewer)'),
    409: jsonError('CONFLICT: the endpoint is disabled'), ...NOT_FOUND,
  },
});

/**
 * `/v1/webhook-endpoints/{id}/deliveries`: the attempt log and redelivery (docs/api/webhooks.md),
 * read by whoever may read the endpoint, redelivered by whoever may change it (teams/authorize.ts).
 */
export function webhookDeliveriesRouter(deps: AppDeps) {
  const r = createRouter();

  async function owned(c: Context<AppEnv>, id: string, access: Access): Promise<EndpointRow> {
    const row = isId('webhook_endpoint', id) ? await getEndpointById(deps.sql, id) : null;
    await authorize(c, deps, row, access, 'NOT_FOUND', 'webhook endpoint');
    return row!;
  }

  r.openapi(list, async (c) => {
    const { id } = c.req.valid('param');
    const { page, page_size, status, event_type } = c.req.valid('query');
    await owned(c, id, 'read');
    const { rows, total } = await listDeliveries(deps.sql, WEBHOOK_CHANNEL, id, { status, event_type }, page, page_size);
    const attempts = await attemptsOf(deps.sql, rows.map((row) => row.id));
    const items = rows.map((row) => toDelivery(row, attempts.get(row.id) ?? []));
    return ok(c, { items, total, page, page_size, has_more: page * page_size < total }, 200);
  });

  r.openapi(readOne, async (c) => {
    const { id, delivery_id } = c.req.valid('param');
    await owned(c, id, 'read');
    const row = isId('delivery', delivery_id) ? await getDelivery(deps.sql, WEBHOOK_CHANNEL, id, delivery_id) : null;
    if (!row) throw new ApiError('NOT_FOUND', `no delivery ${delivery_id} of endpoint ${id}`);
    const attempts = await attemptsOf(deps.sql, [row.id]);
    return ok(c, toDelivery(row, attempts.get(row.id) ?? []), 200);
  });

  r.openapi(resend, async (c) => {
    const { id, delivery_id } = c.req.valid('param');
    const ep = await owned(c, id, 'write');
    if (!isId('delivery', delivery_id) || !(await getDelivery(deps.sql, WEBHOOK_CHANNEL, id, delivery_id))) {
      throw new ApiError('NOT_FOUND', `no delivery ${delivery_id} of endpoint ${id}`);
    }
    if (!ep.enabled) throw new ApiError('CONFLICT', 'the endpoint is disabled: enable it with PATCH {"enabled": true} first');
    const row = await redeliver(deps.sql, WEBHOOK_CHANNEL, id, delivery_id, deps.config.delivery_notify_channel);
    if (!row) throw new ApiError('NOT_FOUND', `no delivery ${delivery_id} of endpoint ${id}`);
    const attempts = await attemptsOf(deps.sql, [row.id]);
    return ok(c, toDelivery(row, attempts.get(row.id) ?? []), 202);
  });

  return r;
}
