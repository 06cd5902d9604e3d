import { z } from 'zod';
import { PLAN_NAMES, QUOTA_NAMES } from './plans.js';

/** Payment providers (docs/api/billing.md "Payment providers"). */
export const PAYMENT_PROVIDERS = ['manual', 'stripe'] as const;
export type PaymentProviderName = (typeof PAYMENT_PROVIDERS)[number];

/** A JSON object given in one environment variable. */
const jsonObject = z.union([z.string(), z.record(z.string(), z.unknown())]).transform((value, ctx) => {
  if (typeof value !== 'string') return value;
  try {
    const parsed: unknown = JSON.parse(value);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch { /* reported below */ }
  ctx.addIssue({ code: 'custom', message: 'must be a JSON object' });
  return z.NEVER;
});

/** Billing configuration (docs/api/billing.md). */
export const billingConfigSchema = z.object({
  /**
   * Who takes payments (VANTAGE_BILLING_PROVIDER): `manual` (default, for self-hosting: a
   * checkout URL opens the invoice in the console and an administrator marks it paid) or
   * `stripe` (Stripe Checkout and Billing; needs VANTAGE_STRIPE_SECRET_KEY and
   * VANTAGE_STRIPE_WEBHOOK_SECRET).
   */
  billing_provider: z.enum(PAYMENT_PROVIDERS).default('manual'),
  /** Currency of plan prices, ISO 4217 lower case (VANTAGE_BILLING_CURRENCY). */
  billing_currency: z.string().regex(/^[a-z]{3}$/, 'three lower-case letters (ISO 4217)').default('usd'),
  /** Monthly price of the pro plan in the currency's minor unit (VANTAGE_BILLING_PRICE_PRO_CENTS). */
  billing_price_pro_cents: z.coerce.number().int().min(0).max(100_000_000).default(1900),
  /** Monthly price of the business plan in the currency's minor unit (VANTAGE_BILLING_PRICE_BUSINESS_CENTS). */
  billing_price_business_cents: z.coerce.number().int().min(0).max(100_000_000).default(9900),
  /** Length of one paid period of a manual subscription, days (VANTAGE_BILLING_PERIOD_DAYS). */
  billing_period_days: z.coerce.number().int().min(1).max(366).default(30),
  /**
   * Days before a period ends when its renewal invoice is issued: manual plan subscriptions and
   * compliance subscriptions (VANTAGE_BILLING_RENEWAL_NOTICE_DAYS; docs/api/billing.md "Renewals").
   */
  billing_renewal_notice_days: z.coerce.number().int().min(0).max(60).default(7),
  /**
   * Days a subscription whose renewal is unpaid stays `past_due` (keeping its plan) after its
   * period ended, before it expires (VANTAGE_BILLING_GRACE_DAYS; docs/api/billing.md "Renewals").
   */
  billing_grace_days: z.coerce.number().int().min(0).max(60).default(7),
  /** Hours a manual or Stripe checkout link stays payable (VANTAGE_BILLING_CHECKOUT_TTL_H; Stripe accepts 1-24). */
  billing_checkout_ttl_h: z.coerce.number().int().min(1).max(24).default(24),
  /**
   * Quota overrides per plan (VANTAGE_BILLING_PLAN_QUOTAS, a JSON object such as
   * `{"free":{"monitors":10},"pro":{"api_calls_per_day":50000}}`); each number replaces the
   * plan's default for that quota (docs/api/billing.md "Plans and quotas").
   */
  billing_plan_quotas: jsonObject.pipe(z.partialRecord(z.enum(PLAN_NAMES), z.partialRecord(z.enum(QUOTA_NAMES), z.number().int().min(0).max(1_000_000_000)))).default({}),
  /** Stripe secret API key (VANTAGE_STRIPE_SECRET_KEY), `sk_...`. */
  stripe_secret_key: z.string().min(1).optional(),
  /** Signing secret of the Stripe webhook endpoint (VANTAGE_STRIPE_WEBHOOK_SECRET), `whsec_...`. */
  stripe_webhook_secret: z.string().min(1).optional(),
  /** Base URL of the Stripe API (VANTAGE_STRIPE_API_URL); default https://api.stripe.com. Tests point it at a loopback server. */
  stripe_api_url: z.url().optional(),
  /** Stripe Price id of the monthly pro plan; unset = an inline monthly price from VANTAGE_BILLING_PRICE_PRO_CENTS. */
  stripe_price_pro: z.string().min(1).optional(),
  /** Stripe Price id of the monthly business plan; unset = an inline monthly price from VANTAGE_BILLING_PRICE_BUSINESS_CENTS. */
  stripe_price_business: z.string().min(1).optional(),
});
