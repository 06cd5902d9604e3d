import type { Config } from '../config/index.js';
import type { PlanName } from '../config/plans.js';
import { renderEmail, type RenderedEmail } from '../email/layout.js';
import { publicLink } from '../email/links.js';
import type { PlanQuotas } from '../monitors/plans.js';
import type { RenewalNoticeRow } from './renewal-notices.db.js';

/*
 * The renewal e-mails of manual plan subscriptions (docs/api/billing.md "Renewal e-mails"): the
 * renewal invoice issued, the subscription past due, the subscription expired. Plain English, like
 * the other notices (email/layout.ts).
 */

type LinkConfig = Pick<Config, 'public_url' | 'host' | 'port' | 'billing_grace_days' | 'billing_period_days'>;

const DAY_MS = 86_400_000;
const FOOTER = 'You receive this e-mail because you own this Vantage account and its subscription.';

/** `amount_minor` (the currency's minor unit, as invoices store it) with its currency: `19.00 USD`, `1900 JPY`. */
export function formatAmount(amount_minor: number, currency: string): string {
  const code = currency.toUpperCase();
  let digits = 2;
  try {
    digits = new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch { /* not an ISO 4217 code Intl knows: two decimals */ }
  return `${(amount_minor / 10 ** digits).toFixed(digits)} ${code}`;
}

/** An instant as UTC date and time to the minute (`2026-12-01 09:30 UTC`). */
const when = (d: Date) => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
const title = (plan: string) => plan.charAt(0).toUpperCase() + plan.slice(1);
const invoiceLink = (config: LinkConfig, id: string) => publicLink(config, `/billing/invoices/${encodeURIComponent(id)}`);

/**
 * The renewal invoice issued (`billing_renewal_notice_days` before the period ends): its amount and
 * currency, when it is due (the period end), the console's invoice page, how it is paid (the manual
 * provider: by hand, an administrator marks it paid; a payment provider: its pay page), and what
 * happens unpaid.
 */
export function renewalInvoiceEmail(n: RenewalNoticeRow, config: LinkConfig): RenderedEmail {
  const amount = formatAmount(Number(n.amount_cents ?? 0), n.currency ?? 'usd');
  const until = new Date(n.period_end.getTime() + config.billing_grace_days * DAY_MS);
  const how = n.provider === 'stripe' && n.pay_url
    ? `Pay it online: ${n.pay_url}`
    : 'This Vantage deployment takes payments by hand (the manual payment provider): the invoice page says how to pay. Once the payment has arrived, an administrator marks the invoice paid and the subscription renews.';
  return renderEmail({
    subject: `Vantage ${title(n.plan)}: renewal invoice of ${amount}, due ${n.period_end.toISOString().slice(0, 10)}`,
    paragraphs: [
      `Your ${title(n.plan)} subscription renews on ${when(n.period_end)}. Invoice ${n.invoice_id} of ${amount} for the next ${config.billing_period_days} days is open and due by then.`,
      how,
      `Paid, the new period follows the current one without a gap. Not paid by ${when(n.period_end)}, the subscription becomes past due: the ${title(n.plan)} plan stays in force until ${when(until)}, then the subscription expires and the invoice can no longer be paid.`,
    ],
    action: { label: 'See the invoice', url: invoiceLink(config, n.invoice_id!) },
    footer: FOOTER,
  });
}

/** The period ended with the renewal unpaid: until when the plan stays, the invoice to pay, and the plan the account falls back to. */
export function pastDueEmail(n: RenewalNoticeRow, fallback: PlanName, config: LinkConfig): RenderedEmail {
  const until = new Date(n.period_end.getTime() + config.billing_grace_days * DAY_MS);
  const open = n.invoice_id !== null && n.invoice_status === 'open';
  const invoice = open ? ` Its renewal invoice ${n.invoice_id} of ${formatAmount(Number(n.amount_cents ?? 0), n.currency ?? 'usd')} is not paid.` : ' Its renewal is not paid.';
  return renderEmail({
    subject: `Vantage ${title(n.plan)}: payment past due`,
    paragraphs: [
      `The paid period of your ${title(n.plan)} subscription ended on ${when(n.period_end)}.${invoice}`,
      `The ${title(n.plan)} plan stays in force until ${when(until)}. Paid before then, the subscription is active again; otherwise it expires and your account falls back to the ${title(fallback)} plan.`,
    ],
    action: open ? { label: 'Pay the invoice', url: invoiceLink(config, n.invoice_id!) } : { label: 'Open billing', url: publicLink(config, '/billing') },
    footer: FOOTER,
  });
}

/** The subscription expired (canceled and its period over, or unpaid after the grace): why, and the plan and limits the account has now. */
export function expiredEmail(n: RenewalNoticeRow, now_on: { plan: PlanName; quotas: PlanQuotas }, config: LinkConfig): RenderedEmail {
  const why = n.canceled_at
    ? `Your ${title(n.plan)} subscription, canceled on ${when(n.canceled_at)}, ended with its paid period on ${when(n.period_end)}.`
    : `Your ${title(n.plan)} subscription has expired: its renewal was not paid within ${config.billing_grace_days} days of the period's end (${when(n.period_end)}), and its renewal invoice is void.`;
  const q = now_on.quotas;
  return renderEmail({
    subject: `Vantage ${title(n.plan)}: subscription expired`,
    paragraphs: [
      why,
      `Your account is now on the ${title(now_on.plan)} plan: ${q.monitors} monitors, up to ${q.node_count} nodes per monitor, intervals from ${q.min_interval_s} s, raw checks kept ${q.checks_retention_days} days, ${q.status_pages} status pages, ${q.api_calls_per_day} API calls a day.`,
      `Your monitors are kept, but creating more than the plan allows is refused and raw checks older than ${q.checks_retention_days} days are deleted. You can subscribe again at any time.`,
    ],
    action: { label: 'Open billing', url: publicLink(config, '/billing') },
    footer: FOOTER,
  });
}
