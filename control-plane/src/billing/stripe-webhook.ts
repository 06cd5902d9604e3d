import type Stripe from 'stripe';
import type { SqlExecutor } from '../contracts.js';
import { invoiceByExternal, insertInvoice, markInvoiceFailed } from './invoices.db.js';
import { settleInvoice, type BillingDeps } from './payment-api.js';
import { subscriptionByExternal, subscriptionById, updateSubscription, type SubscriptionRow } from './subscriptions.db.js';

/** Stripe subscription statuses to ours (docs/api/billing.md "Stripe"). */
const STATUS: Record<string, SubscriptionRow['status']> = {
  active: 'active', trialing: 'active', past_due: 'past_due', unpaid: 'past_due', canceled: 'canceled', incomplete: 'incomplete',
  incomplete_expired: 'expired', paused: 'past_due',
};

type Obj = Record<string, any>;

/** The Stripe subscription id an invoice belongs to (API versions before and after 2025-03: `subscription` or `parent.subscription_details`). */
function invoiceSubscription(inv: Obj): { ext: string | null; ours: string | null } {
  const details = inv.parent?.subscription_details ?? null;
  const ext = typeof inv.subscription === 'string' ? inv.subscription : details?.subscription ?? null;
  return { ext: typeof ext === 'string' ? ext : ext?.id ?? null, ours: details?.metadata?.subscription_id ?? inv.subscription_details?.metadata?.subscription_id ?? null };
}

/** Our subscription for a Stripe subscription id, else the one its metadata names (first events may precede checkout completion). */
async function findSub(tx: SqlExecutor, ext: string | null, ours: string | null): Promise<SubscriptionRow | null> {
  const byExt = ext ? await subscriptionByExternal(tx, ext) : null;
  if (byExt) return byExt;
  const byOurs = ours ? await subscriptionById(tx, ours) : null;
  if (byOurs && ext && !byOurs.ext_subscription_id) return updateSubscription(tx, byOurs.id, { ext_subscription_id: ext });
  return byOurs;
}

/**
 * Apply one verified Stripe event, once (docs/api/billing.md "Stripe webhooks"): its id is recorded
 * in billing_provider_events in the same transaction, so a replay changes nothing; subscription
 * state events older than the newest one applied are skipped (out-of-order delivery).
 * Handled: checkout.session.completed / .expired, invoice.paid, invoice.payment_failed,
 * customer.subscription.created / .updated / .deleted. Others are recorded and ignored.
 * @returns false for a replayed event
 */
export async function applyStripeEvent(deps: Pick<BillingDeps, 'sql' | 'config'>, event: Stripe.Event): Promise<boolean> {
  return deps.sql.begin(async (tx) => {
    const at = new Date(event.created * 1000);
    const fresh = await tx`INSERT INTO billing_provider_events (provider, event_id, type, created_at) VALUES ('stripe', ${event.id}, ${event.type}, ${at})
                           ON CONFLICT DO NOTHING RETURNING event_id`;
    if (fresh.length === 0) return false;
    const o = event.data.object as Obj;
    switch (event.type) {
      case 'checkout.session.completed': {
        const invoice_id = o.metadata?.invoice_id ?? o.client_reference_id;
        if (o.mode === 'subscription' && typeof o.subscription === 'string' && o.metadata?.subscription_id) {
          const sub = await findSub(tx, o.subscription, o.metadata.subscription_id);
          if (sub && !sub.ext_customer_id && typeof o.customer === 'string') await updateSubscription(tx, sub.id, { ext_customer_id: o.customer });
        }
        if (invoice_id && o.payment_status !== 'unpaid') await settleInvoice(tx, invoice_id, at);
        break;
      }
      case 'checkout.session.expired': {
        const invoice_id = o.metadata?.invoice_id ?? o.client_reference_id;
        if (invoice_id) await tx`UPDATE billing_invoices SET status = 'void' WHERE id = ${invoice_id} AND status = 'open'`;
        if (o.metadata?.subscription_id) await tx`UPDATE billing_subscriptions SET status = 'expired', updated_at = now() WHERE id = ${o.metadata.subscription_id} AND status = 'incomplete'`;
        break;
      }
      case 'invoice.paid':
      case 'invoice.payment_failed': {
        const { ext, ours } = invoiceSubscription(o);
        const sub = await findSub(tx, ext, ours);
        if (!sub) break;
        let ourInvoice = await invoiceByExternal(tx, 'ext_invoice_id', o.id);
        if (!ourInvoice && o.billing_reason === 'subscription_create') {
          const [first] = await tx<{ id: string }[]>`SELECT id FROM billing_invoices WHERE purpose = 'subscription' AND reference_id = ${sub.id} ORDER BY created_at LIMIT 1`;
          if (first) {
            await tx`UPDATE billing_invoices SET ext_invoice_id = ${o.id} WHERE id = ${first.id} AND ext_invoice_id IS NULL`;
            ourInvoice = await invoiceByExternal(tx, 'ext_invoice_id', o.id);
          }
        }
        ourInvoice ??= await insertInvoice(tx, {
          user_id: sub.user_id, purpose: 'subscription', reference_id: sub.id, description: `Vantage ${sub.plan} plan, monthly`,
          amount_cents: Number(o.amount_due ?? 0), currency: String(o.currency ?? deps.config.billing_currency), provider: 'stripe', expires_at: null, ext_invoice_id: o.id,
        });
        if (event.type === 'invoice.paid') {
          await settleInvoice(tx, ourInvoice.id, at);
          const end = o.lines?.data?.[0]?.period?.end;
          if (typeof end === 'number' && (!sub.current_period_end || end * 1000 > sub.current_period_end.getTime())) {
            await updateSubscription(tx, sub.id, { current_period_end: new Date(end * 1000) });
          }
        } else {
          await markInvoiceFailed(tx, ourInvoice.id, String(o.last_finalization_error?.message ?? 'payment failed'), false);
          if (sub.status === 'active') await updateSubscription(tx, sub.id, { status: 'past_due' });
        }
        break;
      }
      case 'customer.subscription.created':
      case 'customer.subscription.updated':
      case 'customer.subscription.deleted': {
        const sub = await findSub(tx, o.id, o.metadata?.subscription_id ?? null);
        if (!sub || (sub.provider_event_at && sub.provider_event_at > at)) break;
        const status = event.type === 'customer.subscription.deleted' ? 'canceled' : STATUS[o.status] ?? sub.status;
        const end = o.items?.data?.[0]?.current_period_end ?? o.current_period_end;
        const ended = status === 'canceled' && typeof end === 'number' && end * 1000 <= Date.now();
        await updateSubscription(tx, sub.id, {
          status: ended ? 'expired' : status, provider_event_at: at, cancel_at_period_end: Boolean(o.cancel_at_period_end),
          current_period_end: typeof end === 'number' ? new Date(end * 1000) : undefined,
          canceled_at: typeof o.canceled_at === 'number' ? new Date(o.canceled_at * 1000) : undefined,
        });
        break;
      }
      default:
        break;
    }
    return true;
  });
}
