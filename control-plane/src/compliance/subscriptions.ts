import { COMPLIANCE_TIER_LIMITS, newId, type ComplianceSubscription, type ComplianceTier } from '@vantage/shared-protocol';
import { z } from 'zod';
import type { createComplianceSubscriptionRequestSchema } from '@vantage/shared-protocol';
import { billingDepsOf, createCharge, onChargePaid } from '../billing/payment-api.js';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import {
  activateSubscription, countOwnMonitors, findSubscription, insertSubscription, renewSubscription, setSubscriptionCheckout, type ComplianceSubscriptionRow,
} from './compliance.db.js';
import { monthAfter, periodEndAfter } from './periods.js';

/** How long a subscription's checkout may be paid (24 h). */
const CHECKOUT_VALIDITY_MS = 24 * 3_600_000;

/**
 * Create a compliance subscription (docs/api/compliance.md "Subscriptions"): the tier's quotas,
 * frequency, retention and free verdicts exactly as the tier table says; `monitor_ids` must be the
 * caller's monitors (else 404 MONITOR_NOT_FOUND) and at most `monitors_quota` (else 429
 * BILLING_QUOTA_EXCEEDED); a frequency other than the tier's: 400. It starts `incomplete` with a
 * checkout (billing's charge, purpose `compliance_subscription`); paying it makes it active.
 * @returns the subscription and its `checkout_url`
 */
export async function createSubscription(deps: AppDeps, user_id: string, body: z.infer<typeof createComplianceSubscriptionRequestSchema>): Promise<{ subscription: ComplianceSubscriptionRow; checkout_url: string }> {
  const tier = COMPLIANCE_TIER_LIMITS[body.tier as ComplianceTier];
  const frequency = body.reports_frequency ?? tier.frequencies[0]!;
  const fail = (path: string, message: string) => new ApiError('VALIDATION_FAILED', `${path} ${message}`, { fields: [{ path, message }] });
  if (!tier.frequencies.includes(frequency)) throw fail('reports_frequency', `the ${body.tier} tier reports ${tier.frequencies.join(', ')}`);
  if (frequency === 'custom' && body.custom_interval_days === undefined) throw fail('custom_interval_days', 'is required for custom reports');
  const monitor_ids = [...new Set(body.monitor_ids)];
  if (monitor_ids.length > tier.monitors_quota) {
    throw new ApiError('BILLING_QUOTA_EXCEEDED', `the ${body.tier} tier covers at most ${tier.monitors_quota} monitors`, {
      quota: 'monitors_quota', plan: body.tier, limit: tier.monitors_quota, used: monitor_ids.length, monitors_quota: tier.monitors_quota, requested: monitor_ids.length,
    });
  }
  if ((await countOwnMonitors(deps.sql, user_id, monitor_ids)) !== monitor_ids.length) throw new ApiError('MONITOR_NOT_FOUND', 'monitor_ids names a monitor that is not yours');
  const row = await insertSubscription(deps.sql, {
    id: newId('compliance_subscription'), user_id, tier: body.tier, monitors_quota: tier.monitors_quota, monitor_ids, reports_frequency: frequency,
    custom_interval_days: frequency === 'custom' ? body.custom_interval_days! : null, history_retention_months: tier.history_retention_months,
    free_verdict_count: tier.free_verdict_count, price_cny: tier.price_cny, contact_email: body.contact_email ?? null, contact_company: body.contact_company ?? null,
    billing_address: body.billing_address ?? null,
  });
  const charge = await createCharge(billingDepsOf(deps), {
    account_id: user_id, amount_cents: tier.price_cny * 100, currency: 'cny', purpose: 'compliance_subscription', reference_id: row.id,
    description: `Vantage compliance subscription (${body.tier}), first month`, expires_at: new Date(Date.now() + CHECKOUT_VALIDITY_MS),
  });
  return { subscription: await setSubscriptionCheckout(deps.sql, row.id, charge.charge_id, charge.pay_url), checkout_url: charge.pay_url };
}

/**
 * When a subscription's charge is paid (billing calls this once, in the transaction marking the
 * charge paid): its checkout makes it incomplete → active for one month from now, its first report
 * due at the end of the current report period (periods.ts); its renewal charge (renewals.ts) makes
 * it active for the month after the one it renews (docs/api/compliance.md "Renewal"). `now` is
 * the clock, for tests.
 */
export function registerCompliancePayments(now: () => Date = () => new Date()): void {
  onChargePaid('compliance_subscription', async (tx, charge) => {
    const sub = await findSubscription(tx, charge.reference_id);
    if (!sub) return;
    if (sub.status !== 'incomplete') {
      if (sub.renewal_charge_id === charge.charge_id && sub.period_end) await renewSubscription(tx, sub.id, charge.charge_id, monthAfter(sub.period_end));
      return;
    }
    const start = now();
    await activateSubscription(tx, sub.id, start, monthAfter(start), periodEndAfter(sub.reports_frequency, start, start, sub.custom_interval_days));
  });
}

/** A subscription as the API shows it (ComplianceSubscription). */
export function toComplianceSubscription(row: ComplianceSubscriptionRow): ComplianceSubscription {
  const iso = (d: Date | null) => d?.toISOString() ?? null;
  return {
    id: row.id, owner_id: row.user_id, tier: row.tier, status: row.status, monitors_quota: row.monitors_quota, monitor_ids: row.monitor_ids,
    reports_frequency: row.reports_frequency, custom_interval_days: row.custom_interval_days, history_retention_months: row.history_retention_months,
    free_verdict_count: row.free_verdict_count, free_verdict_used: row.free_verdict_used, price_cny: Number(row.price_cny), period_start: iso(row.period_start),
    period_end: iso(row.period_end), next_report_at: iso(row.next_report_at), canceled_at: iso(row.canceled_at), ext_subscription_id: row.ext_subscription_id,
    created_at: row.created_at.toISOString(),
  };
}
