import { createRoute, z } from '@hono/zod-openapi';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { requireAuth } from '../middleware/auth.js';
import { getInvoice, listInvoices } from './invoices.db.js';
import { billingDepsOf } from './payment-api.js';
import { accountQuotas } from './quotas.js';
import { apiUsageOf, countUsed } from './quotas.db.js';
import { checkoutSchema, invoiceSchema, subscribeRequestSchema, subscriptionSchema, usageSchema } from './schemas.js';
import { cancelSubscription, currentSubscription, registerSubscriptionPayments, subscribe } from './subscriptions.js';
import type { SubscriptionRow } from './subscriptions.db.js';
import { toInvoice } from './views.js';

const read = [requireAuth({ scope: 'read' })];
const write = [requireAuth({ scope: 'write' })];
const idParam = z.object({ id: z.string().max(64).openapi({ param: { name: 'id', in: 'path' }, example: 'bi_01jd3k6w9z4q8r2t7v5x1y3b6c' }) });

const subscribeRoute = createRoute({
  method: 'post', path: '/subscribe', tags: ['billing'], summary: 'Subscribe to the pro or business plan; answers the checkout URL', security: BEARER, middleware: write,
  request: { body: jsonBody(subscribeRequestSchema) },
  responses: {
    200: jsonOk(checkoutSchema, '`{checkout_url, subscription_id}`'), 400: jsonError('VALIDATION_FAILED'), 402: jsonError('BILLING_PAYMENT_FAILED: the provider refused the checkout'),
    404: jsonError('BILLING_PLAN_NOT_FOUND'), 409: jsonError('CONFLICT: already subscribed'), ...AUTH_ERRORS,
  },
});
const getSubscription = createRoute({
  method: 'get', path: '/subscription', tags: ['billing'], summary: 'The account plan and its subscription', security: BEARER, middleware: read,
  responses: { 200: jsonOk(subscriptionSchema, '`{plan, status, current_period_end}`'), ...AUTH_ERRORS },
});
const cancelRoute = createRoute({
  method: 'post', path: '/subscription/cancel', tags: ['billing'], summary: 'Cancel the subscription at the end of its paid period', security: BEARER, middleware: write,
  responses: { 200: jsonOk(subscriptionSchema, 'the subscription after'), 404: jsonError('NOT_FOUND: no live subscription'), ...AUTH_ERRORS },
});
const invoices = createRoute({
  method: 'get', path: '/invoices', tags: ['billing'], summary: 'The account\'s invoices, newest first (at most 200)', security: BEARER, middleware: read,
  responses: { 200: jsonOk(z.object({ items: z.array(invoiceSchema) }), '`{items}`'), ...AUTH_ERRORS },
});
const invoice = createRoute({
  method: 'get', path: '/invoices/{id}', tags: ['billing'], summary: 'One invoice of the account', security: BEARER, middleware: read,
  request: { params: idParam },
  responses: { 200: jsonOk(invoiceSchema, 'the invoice'), 404: jsonError('BILLING_INVOICE_NOT_FOUND'), ...AUTH_ERRORS },
});
const usage = createRoute({
  method: 'get', path: '/usage', tags: ['billing'], summary: 'The account plan\'s quotas and what is used of them', security: BEARER, middleware: read,
  responses: { 200: jsonOk(usageSchema, '`{plan, quotas, used}`'), ...AUTH_ERRORS },
});

/** A subscription as GET /v1/billing/subscription shows it, with the account plan in force. */
function subscriptionView(plan: string, sub: SubscriptionRow | null) {
  return {
    plan, status: sub?.status ?? 'none', current_period_end: sub?.current_period_end?.toISOString() ?? null,
    subscription_id: sub?.id ?? null, subscribed_plan: sub?.plan ?? null,
  } as const;
}

/** `/v1/billing` (docs/api/billing.md): subscribe, subscription, cancel, invoices, usage. */
export function billingRouter(deps: AppDeps) {
  const r = createRouter();
  const billing = billingDepsOf(deps);
  registerSubscriptionPayments(billing);

  r.openapi(subscribeRoute, async (c) => {
    const out = await subscribe(billing, c.get('principal')!.user_id, c.req.valid('json').plan);
    return ok(c, { checkout_url: out.checkout_url, subscription_id: out.subscription.id }, 200);
  });

  r.openapi(getSubscription, async (c) => {
    const user_id = c.get('principal')!.user_id;
    const sub = await currentSubscription(billing, user_id);
    return ok(c, subscriptionView((await accountQuotas(deps, user_id)).plan, sub), 200);
  });

  r.openapi(cancelRoute, async (c) => {
    const user_id = c.get('principal')!.user_id;
    const sub = await cancelSubscription(billing, user_id);
    return ok(c, subscriptionView((await accountQuotas(deps, user_id)).plan, sub), 200);
  });

  r.openapi(invoices, async (c) => ok(c, { items: (await listInvoices(deps.sql, c.get('principal')!.user_id, 200)).map(toInvoice) }, 200));

  r.openapi(invoice, async (c) => {
    const row = await getInvoice(deps.sql, c.get('principal')!.user_id, c.req.valid('param').id);
    if (!row) throw new ApiError('BILLING_INVOICE_NOT_FOUND', 'no invoice of yours with this id');
    return ok(c, toInvoice(row), 200);
  });

  r.openapi(usage, async (c) => {
    const user_id = c.get('principal')!.user_id;
    const { plan, quotas } = await accountQuotas(deps, user_id);
    const today = new Date().toISOString().slice(0, 10);
    const by_key = await apiUsageOf(deps.sql, user_id, today);
    const calls = by_key.reduce((n, k) => n + k.calls, 0);
    return ok(c, {
      plan, quotas,
      used: {
        monitors: await countUsed(deps.sql, user_id, 'monitors'), status_pages: await countUsed(deps.sql, user_id, 'status_pages'),
        mcp_tokens: await countUsed(deps.sql, user_id, 'mcp_tokens'), api_calls_today: calls, api_calls_by_key: by_key,
      },
    }, 200);
  });

  return r;
}
