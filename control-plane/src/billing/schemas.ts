import { z } from '@hono/zod-openapi';
import { QUOTA_NAMES } from '../config/plans.js';

/** Wire shapes of the billing API (docs/api/billing.md). Amounts are in the currency's minor unit. */
export const subscribeRequestSchema = z.object({
  plan: z.string().min(1).max(40).openapi({ description: 'pro or business (other values: 404 BILLING_PLAN_NOT_FOUND)', example: 'pro' }),
}).strict();
export const checkoutSchema = z.object({ checkout_url: z.string(), subscription_id: z.string() }).openapi('BillingCheckout');
export const subscriptionSchema = z.object({
  plan: z.string().openapi({ description: 'the account plan in force: self_hosted, free, pro or business' }),
  status: z.enum(['none', 'incomplete', 'active', 'past_due', 'canceled', 'expired']),
  current_period_end: z.string().nullable(),
  subscription_id: z.string().nullable(),
  subscribed_plan: z.enum(['pro', 'business']).nullable(),
}).openapi('BillingSubscription');
export const invoiceSchema = z.object({
  id: z.string(), amount: z.number().int().openapi({ description: 'minor units (cents)' }), currency: z.string(),
  status: z.enum(['open', 'paid', 'void', 'uncollectible']), created_at: z.string(),
  description: z.string(), purpose: z.string(), pay_url: z.string().nullable(), paid_at: z.string().nullable(), failure_reason: z.string().nullable(),
}).openapi('BillingInvoice');
export const usageSchema = z.object({
  plan: z.string(),
  quotas: z.record(z.string(), z.number()),
  used: z.object({
    monitors: z.number(), status_pages: z.number(), mcp_tokens: z.number(), api_calls_today: z.number(),
    api_calls_by_key: z.array(z.object({ key_id: z.string(), calls: z.number().int() })).openapi({ description: 'today\'s (UTC) API calls per API key or PAT id' }),
  }),
}).openapi('BillingUsage');
export const entitlementSchema = z.object({
  id: z.string(), user_id: z.string(), kind: z.enum(['quota_override', 'api_pack', 'report_pack']), status: z.enum(['active', 'revoked', 'expired']),
  balance: z.number().int(), attrs: z.record(z.string(), z.unknown()), source: z.string(), order_ref: z.string().nullable(),
  granted_at: z.string(), expires_at: z.string().nullable(),
}).openapi('Entitlement');
export const grantEntitlementSchema = z.object({
  user_id: z.string().min(1).max(64),
  kind: z.enum(['quota_override', 'api_pack', 'report_pack']),
  balance: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
  attrs: z.partialRecord(z.enum(QUOTA_NAMES), z.number().int().min(0).max(1_000_000_000)).default({})
    .openapi({ description: 'quota_override: quota name → amount added to the plan\'s number' }),
  source: z.string().min(1).max(100).default('admin'),
  order_ref: z.string().min(1).max(200).nullable().default(null),
  expires_at: z.iso.datetime({ offset: true }).nullable().default(null),
}).strict();
