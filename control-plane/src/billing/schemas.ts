import { z } from '@hono/zod-openapi';
import { billingCheckoutSchema, billingInvoiceSchema, billingSubscriptionSchema, billingUsageSchema, entitlementSchema as sharedEntitlementSchema, ENTITLEMENT_KINDS } from '@vantage/shared-protocol';
import { QUOTA_NAMES } from '../config/plans.js';

/** Wire shapes of the billing API (docs/api/billing.md). Amounts are in the currency's minor unit. */
export const subscribeRequestSchema = z.object({
  plan: z.string().min(1).max(40).openapi({ description: 'pro or business (other values: 404 BILLING_PLAN_NOT_FOUND)', example: 'pro' }),
}).strict();
/** The response shapes are shared-protocol's (the console reads them too), named here for the OpenAPI document. */
export const checkoutSchema = z.object(billingCheckoutSchema.shape).openapi('BillingCheckout');
export const subscriptionSchema = z.object(billingSubscriptionSchema.shape).openapi('BillingSubscription');
export const invoiceSchema = z.object(billingInvoiceSchema.shape).openapi('BillingInvoice');
export const usageSchema = z.object(billingUsageSchema.shape).openapi('BillingUsage');
export const entitlementSchema = z.object(sharedEntitlementSchema.shape).openapi('Entitlement');
export const grantEntitlementSchema = z.object({
  user_id: z.string().min(1).max(64),
  kind: z.enum(ENTITLEMENT_KINDS),
  balance: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
  attrs: z.partialRecord(z.enum(QUOTA_NAMES), z.number().int().min(0).max(1_000_000_000)).default({})
    .openapi({ description: 'quota_override: quota name → amount added to the plan\'s number' }),
  source: z.string().min(1).max(100).default('admin'),
  order_ref: z.string().min(1).max(200).nullable().default(null),
  expires_at: z.iso.datetime({ offset: true }).nullable().default(null),
}).strict();
