import type { AppDeps } from '../deps.js';
import type { Logger } from '../log.js';
import { billingDepsOf, openCheckout } from './payment-api.js';
import { sendRenewalNotices } from './renewal-notices.js';
import { advanceManualSubscriptions, claimRenewals, setRenewalInvoice } from './subscriptions.db.js';
import { planPriceCents } from './subscriptions.js';

type JobDeps = Pick<AppDeps, 'sql' | 'config' | 'mail'> & { log: Logger };

/**
 * One pass of the renewal of manual plan subscriptions at `now` (docs/api/billing.md "Renewals"):
 * ended periods move first (active → past_due at the period end; past_due past
 * VANTAGE_BILLING_GRACE_DAYS, and canceled past its period end → expired, open invoices void),
 * then each active or past_due subscription whose period ends within
 * VANTAGE_BILLING_RENEWAL_NOTICE_DAYS gets one open invoice of its plan's monthly price
 * (purpose `subscription`, through the configured provider; claimed with SKIP LOCKED, so one
 * instance issues each). Paying it extends the period (subscriptions.ts). Last, the renewal e-mails
 * these changes (and changes made by the billing routes meanwhile) wrote are sent, each once
 * (renewal-notices.ts).
 * @returns subscriptions moved, renewal invoices issued and renewal e-mails sent
 */
export async function runBillingRenewals(deps: JobDeps, now: Date = new Date(), batch = 20): Promise<{ moved: number; invoiced: number; notified: number }> {
  const billing = billingDepsOf(deps);
  const moved = await advanceManualSubscriptions(deps.sql, now, deps.config.billing_grace_days, null);
  const invoiced = await issueRenewals(await claimRenewals(deps.sql, now, deps.config.billing_renewal_notice_days, batch), async (sub) => {
    const from = sub.current_period_end!;
    const invoice = await openCheckout(billing, {
      account_id: sub.user_id, amount_cents: planPriceCents(deps.config, sub.plan), currency: deps.config.billing_currency,
      purpose: 'subscription', reference_id: sub.id, description: `Vantage ${sub.plan} plan, renewal from ${from.toISOString().slice(0, 10)}`,
      expires_at: new Date(from.getTime() + deps.config.billing_grace_days * 86_400_000), mode: 'payment',
    });
    return invoice.id;
  }, (id, invoice_id) => setRenewalInvoice(deps.sql, id, invoice_id), deps.log);
  const notified = await sendRenewalNotices(deps);
  return { moved, invoiced, notified };
}

/**
 * Issue the renewal invoice of each claimed subscription (`issue` returns its bi_ id) and record
 * it (`record`); a failure is logged and the claim given back (`record` with null) so the next
 * pass tries again. Shared by plan and compliance subscriptions. @returns how many were issued
 */
export async function issueRenewals<T extends { id: string }>(
  claimed: T[], issue: (row: T) => Promise<string>, record: (id: string, invoice_id: string | null) => Promise<void>, log: Logger,
): Promise<number> {
  let issued = 0;
  for (const row of claimed) {
    try {
      await record(row.id, await issue(row));
      issued++;
    } catch (err) {
      log.warn({ err, subscription_id: row.id }, 'renewal invoice failed; retried next pass');
      await record(row.id, null);
    }
  }
  return issued;
}

/** The renewal pass every `every_ms` (default 60 s) until stopped. */
export function startBillingJobs(deps: JobDeps, every_ms = 60_000): { stop(): Promise<void> } {
  const log = deps.log.child({ module: 'billing.jobs' });
  const job = { ...deps, log };
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = runBillingRenewals(job).then((n) => { if (n.moved + n.invoiced + n.notified > 0) log.info(n, 'subscriptions renewed or moved'); })
      .catch((err) => log.warn({ err }, 'billing renewal pass failed'))
      .finally(() => { running = null; });
  }, every_ms);
  timer.unref();
  return { async stop() { clearInterval(timer); await running; } };
}
