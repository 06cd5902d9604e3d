import type { AppDeps } from '../deps.js';
import type { Logger } from '../log.js';
import { billingDepsOf, createCharge } from '../billing/payment-api.js';
import { issueRenewals } from '../billing/renewal-job.js';
import { advanceComplianceSubscriptions, claimComplianceRenewals, setRenewalCharge } from './compliance.db.js';

type JobDeps = Pick<AppDeps, 'sql' | 'config'> & { log: Logger };

/**
 * One pass of compliance subscription renewals at `now` (docs/api/compliance.md "Renewal"): ended
 * periods move first (active → past_due at the period end; past_due past
 * VANTAGE_BILLING_GRACE_DAYS, and canceled past its period end → expired, open charges void),
 * then each active or past_due subscription whose period ends within
 * VANTAGE_BILLING_RENEWAL_NOTICE_DAYS gets one charge of its tier's monthly price through the
 * configured payment provider (billing's createCharge, purpose `compliance_subscription`; claimed
 * with SKIP LOCKED, so one instance issues each). Paying it renews the subscription for a month
 * (subscriptions.ts registerCompliancePayments).
 * @returns subscriptions moved and renewal charges issued
 */
export async function runComplianceRenewals(deps: JobDeps, now: Date = new Date(), batch = 20): Promise<{ moved: number; invoiced: number }> {
  const billing = billingDepsOf(deps);
  const moved = await advanceComplianceSubscriptions(deps.sql, now, deps.config.billing_grace_days);
  const invoiced = await issueRenewals(await claimComplianceRenewals(deps.sql, now, deps.config.billing_renewal_notice_days, batch), async (sub) => {
    const from = sub.period_end!;
    const charge = await createCharge(billing, {
      account_id: sub.user_id, amount_cents: Math.round(Number(sub.price_cny) * 100), currency: 'cny', purpose: 'compliance_subscription', reference_id: sub.id,
      description: `Vantage compliance subscription (${sub.tier}), month from ${from.toISOString().slice(0, 10)}`,
      expires_at: new Date(from.getTime() + deps.config.billing_grace_days * 86_400_000),
    });
    return charge.charge_id;
  }, (id, charge_id) => setRenewalCharge(deps.sql, id, charge_id), deps.log);
  return { moved, invoiced };
}
