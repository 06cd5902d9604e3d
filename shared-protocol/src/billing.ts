import { z } from 'zod';

/**
 * Billing wire shapes (docs/api/billing.md): the subscription and the plan in force, invoices
 * (amounts in the currency's minor unit), quota usage and entitlements. The control plane names
 * them in its OpenAPI document; the console reads its types from here.
 */

/** Plans one subscribes to (others answer 404 BILLING_PLAN_NOT_FOUND). */
export const BILLING_PLANS = ['pro', 'business'] as const;
export const SUBSCRIPTION_STATUSES = ['none', 'incomplete', 'active', 'past_due', 'canceled', 'expired'] as const;
export const INVOICE_STATUSES = ['open', 'paid', 'void', 'uncollectible'] as const;
export const ENTITLEMENT_KINDS = ['quota_override', 'api_pack', 'report_pack'] as const;
export const ENTITLEMENT_STATUSES = ['active', 'revoked', 'expired'] as const;

/** `POST /v1/billing/subscribe` answer: where to pay, and the new subscription's id. */
export const billingCheckoutSchema = z.object({ checkout_url: z.string(), subscription_id: z.string() });
export type BillingCheckout = z.infer<typeof billingCheckoutSchema>;

/** `GET /v1/billing/subscription`: `plan` is the plan in force; `status` `none` for an account that never subscribed. */
export const billingSubscriptionSchema = z.object({
  plan: z.string().meta({ description: 'the account plan in force: self_hosted, free, pro or business' }),
  status: z.enum(SUBSCRIPTION_STATUSES),
  current_period_end: z.string().nullable(),
  subscription_id: z.string().nullable(),
  subscribed_plan: z.enum(BILLING_PLANS).nullable(),
});
export type BillingSubscription = z.infer<typeof billingSubscriptionSchema>;

/** An invoice; `pay_url` only while it is open. */
export const billingInvoiceSchema = z.object({
  id: z.string(), amount: z.number().int().meta({ description: 'minor units (cents)' }), currency: z.string(),
  status: z.enum(INVOICE_STATUSES), created_at: z.string(),
  description: z.string(), purpose: z.string(), pay_url: z.string().nullable(), paid_at: z.string().nullable(), failure_reason: z.string().nullable(),
});
export type BillingInvoice = z.infer<typeof billingInvoiceSchema>;

/** `GET /v1/billing/usage`: the plan's quotas (name → number) and what is used of the counted ones. */
export const billingUsageSchema = z.object({
  plan: z.string(),
  quotas: z.record(z.string(), z.number()),
  used: z.object({
    monitors: z.number(), status_pages: z.number(), mcp_tokens: z.number(), api_calls_today: z.number(),
    /** Today's (UTC) API calls per API key or PAT id. */
    api_calls_by_key: z.array(z.object({ key_id: z.string(), calls: z.number().int() })),
  }),
});
export type BillingUsage = z.infer<typeof billingUsageSchema>;

/** An entitlement (`etl_`): a quota override, an API call pack or report credits. */
export const entitlementSchema = z.object({
  id: z.string(), user_id: z.string(), kind: z.enum(ENTITLEMENT_KINDS), status: z.enum(ENTITLEMENT_STATUSES),
  balance: z.number().int(), attrs: z.record(z.string(), z.unknown()), source: z.string(), order_ref: z.string().nullable(),
  granted_at: z.string(), expires_at: z.string().nullable(),
});
export type Entitlement = z.infer<typeof entitlementSchema>;
