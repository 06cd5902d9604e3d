import { createRoute, z } from '@hono/zod-openapi';
import type Stripe from 'stripe';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { stripeClient } from './stripe-provider.js';
import { applyStripeEvent } from './stripe-webhook.js';

const receive = createRoute({
  method: 'post', path: '/webhooks/stripe', tags: ['billing'], summary: 'Stripe webhook endpoint (Stripe-Signature verified)',
  responses: { 200: jsonOk(z.object({ received: z.boolean(), replay: z.boolean() }), 'applied (or a replay, ignored)'), 400: jsonError('VALIDATION_FAILED: bad or missing signature'), 404: jsonError('NOT_FOUND: Stripe is not configured') },
});

/**
 * `POST /v1/billing/webhooks/stripe` (docs/api/billing.md "Stripe webhooks"): the raw body is
 * verified with `stripe.webhooks.constructEvent` against VANTAGE_STRIPE_WEBHOOK_SECRET (default
 * tolerance 300 s), then applied once ({@link applyStripeEvent}).
 */
export function stripeWebhookRouter(deps: AppDeps) {
  const r = createRouter();
  const secret = deps.config.stripe_webhook_secret;
  const stripe = deps.config.billing_provider === 'stripe' && secret ? stripeClient(deps.config) : null;
  r.openapi(receive, async (c) => {
    if (!stripe || !secret) throw new ApiError('NOT_FOUND', 'Stripe webhooks are not configured (VANTAGE_BILLING_PROVIDER=stripe, VANTAGE_STRIPE_WEBHOOK_SECRET)');
    const signature = c.req.header('stripe-signature');
    if (!signature) throw new ApiError('VALIDATION_FAILED', 'missing Stripe-Signature header');
    const raw = await c.req.text();
    const client = await stripe();
    let event: Stripe.Event;
    try {
      event = client.webhooks.constructEvent(raw, signature, secret);
    } catch (err) {
      throw new ApiError('VALIDATION_FAILED', `Stripe signature not verified: ${(err as Error).message}`);
    }
    const applied = await applyStripeEvent(deps, event);
    return ok(c, { received: true, replay: !applied }, 200);
  });
  return r;
}
