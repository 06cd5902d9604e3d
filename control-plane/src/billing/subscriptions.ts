import type { SqlExecutor } from '../contracts.js';
import { ApiError } from '../errors.js';
import { onChargePaid, openCheckout, type BillingDeps } from './payment-api.js';
import { voidOpenInvoices } from './invoices.db.js';
import {
  advanceManualSubscriptions, insertSubscription, latestSubscription, liveSubscription, subscriptionById, updateSubscription, type SubscriptionRow,
} from './subscriptions.db.js';

/** Plans an account may subscribe to (docs/api/billing.md "Subscribing"). */
export const PAID_PLANS = ['pro', 'business'] as const;
export type PaidPlan = (typeof PAID_PLANS)[number];

/** Monthly price of a plan in the billing currency's minor unit (VANTAGE_BILLING_PRICE_*_CENTS). */
export function planPriceCents(config: BillingDeps['config'], plan: PaidPlan): number {
  return plan === 'business' ? config.billing_price_business_cents : config.billing_price_pro_cents;
}

/**
 * Start a subscription to `plan` (POST /v1/billing/subscribe): an incomplete subscription and its
 * first invoice, with the provider's checkout URL. An unpaid earlier attempt is replaced (its
 * invoice voided).
 * @throws ApiError BILLING_PLAN_NOT_FOUND for a plan that is not pro or business; CONFLICT when
 *   the account already has an active or past_due subscription (cancel it first);
 *   BILLING_PAYMENT_FAILED when the provider refuses the checkout
 */
export async function subscribe(deps: BillingDeps, user_id: string, plan: string): Promise<{ subscription: SubscriptionRow; checkout_url: string }> {
  if (!(PAID_PLANS as readonly string[]).includes(plan)) throw new ApiError('BILLING_PLAN_NOT_FOUND', `no plan "${plan}": subscribe to pro or business`, { plan });
  const sub = await deps.sql.begin(async (tx) => {
    await advanceManualSubscriptions(tx, new Date(), deps.config.billing_grace_days, user_id);
    const live = await liveSubscription(tx, user_id);
    if (live && live.status !== 'incomplete') {
      throw new ApiError('CONFLICT', `the account already has a ${live.status} ${live.plan} subscription: cancel it first`, { subscription_id: live.id });
    }
    if (live) {
      await updateSubscription(tx, live.id, { status: 'expired' });
      await voidOpenInvoices(tx, 'subscription', live.id);
    }
    return insertSubscription(tx, user_id, plan as PaidPlan, deps.provider.name);
  });
  const invoice = await openCheckout(deps, {
    account_id: user_id, amount_cents: planPriceCents(deps.config, plan as PaidPlan), currency: deps.config.billing_currency,
    purpose: 'subscription', reference_id: sub.id, description: `Vantage ${plan} plan, monthly`,
    expires_at: new Date(Date.now() + deps.config.billing_checkout_ttl_h * 3600_000), mode: 'subscription', plan: plan as PaidPlan,
  });
  return { subscription: sub, checkout_url: invoice.pay_url };
}

/**
 * What GET /v1/billing/subscription shows: the newest subscription (live ones first), ended manual
 * periods moved first (past_due, expired: {@link advanceManualSubscriptions}); null when the
 * account never subscribed.
 */
export async function currentSubscription(deps: Pick<BillingDeps, 'sql' | 'config'>, user_id: string, now: Date = new Date()): Promise<SubscriptionRow | null> {
  await advanceManualSubscriptions(deps.sql, now, deps.config.billing_grace_days, user_id);
  return latestSubscription(deps.sql, user_id);
}

/**
 * Cancel the account's subscription (POST /v1/billing/subscription/cancel): an incomplete one
 * becomes expired at once (its invoice voided); an active or past_due one becomes canceled, keeps
 * its plan until current_period_end, then expires (Stripe: cancel_at_period_end is set there).
 * @throws ApiError NOT_FOUND when the account has no live subscription
 */
export async function cancelSubscription(deps: BillingDeps, user_id: string): Promise<SubscriptionRow> {
  const sub = await deps.sql.begin(async (tx) => {
    const live = await liveSubscription(tx, user_id);
    if (!live) throw new ApiError('NOT_FOUND', 'no live subscription to cancel');
    if (live.status === 'incomplete') {
      await voidOpenInvoices(tx, 'subscription', live.id);
      return updateSubscription(tx, live.id, { status: 'expired', canceled_at: new Date() });
    }
    // A manual renewal invoice not paid yet is withdrawn: the paid period ends the subscription.
    if (live.provider === 'manual') await voidOpenInvoices(tx, 'subscription', live.id);
    return updateSubscription(tx, live.id, { status: 'canceled', canceled_at: new Date(), cancel_at_period_end: true });
  });
  if (sub.status === 'canceled') await deps.provider.cancelSubscription(sub.ext_subscription_id);
  return sub;
}

/**
 * A paid subscription invoice (docs/api/billing.md "Subscribing", "Renewals"): a manual renewal
 * invoice (the subscription's `renewal_invoice_id`, active or past_due) extends the period it
 * renews by VANTAGE_BILLING_PERIOD_DAYS, periods following each other without a gap, and makes the
 * subscription active again; any other paid invoice of an incomplete or past_due subscription
 * activates it for one period from now (Stripe's own period end replaces it when Stripe's
 * subscription events arrive). A subscription canceled or expired meanwhile is left as it is.
 */
async function activateOnPayment(period_days: number, tx: SqlExecutor, charge: { charge_id: string; reference_id: string }): Promise<void> {
  const sub = await subscriptionById(tx, charge.reference_id);
  if (!sub) return;
  const period_ms = period_days * 86_400_000;
  if (sub.renewal_invoice_id === charge.charge_id && (sub.status === 'active' || sub.status === 'past_due')) {
    const from = (sub.renewal_for ?? sub.current_period_end ?? new Date()).getTime();
    await updateSubscription(tx, sub.id, { status: 'active', current_period_end: new Date(Math.max(from + period_ms, Date.now())), renewal_invoice_id: null });
    return;
  }
  if (sub.status !== 'incomplete' && sub.status !== 'past_due') return;
  const from = Math.max(Date.now(), sub.current_period_end?.getTime() ?? 0);
  await updateSubscription(tx, sub.id, { status: 'active', current_period_end: sub.current_period_end && sub.provider === 'stripe' && sub.current_period_end.getTime() > Date.now() ? sub.current_period_end : new Date(from + period_ms) });
}

/** Register the `subscription` paid handler for this configuration's period length. */
export function registerSubscriptionPayments(deps: Pick<BillingDeps, 'config'>): void {
  const days = deps.config.billing_period_days;
  onChargePaid('subscription', (tx, charge) => activateOnPayment(days, tx, charge));
}
