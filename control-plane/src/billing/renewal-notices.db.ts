import type { SqlExecutor } from '../contracts.js';

/*
 * SQL of the renewal e-mails (0098 billing_notices; renewal-notices.ts): the notices are written
 * with the changes they report (subscriptions.db.ts), claimed and marked sent here.
 */

/** A notice to send, with what its e-mail says: the subscription, its owner and the invoice it names. */
export interface RenewalNoticeRow {
  id: string;
  event: 'renewal_invoice' | 'past_due' | 'expired';
  period_end: Date;
  subscription_id: string;
  plan: 'pro' | 'business';
  /** The subscription's status now. */
  status: string;
  canceled_at: Date | null;
  user_id: string;
  email: string;
  invoice_id: string | null;
  amount_cents: string | null;
  currency: string | null;
  invoice_status: string | null;
  provider: 'manual' | 'stripe' | null;
  pay_url: string | null;
  expires_at: Date | null;
}

/**
 * Claim up to `limit` unsent notices, oldest first, FOR UPDATE SKIP LOCKED (another instance takes
 * others), inside the caller's transaction, with the owner's e-mail address and the invoice.
 */
export async function claimRenewalNotices(tx: SqlExecutor, limit: number): Promise<RenewalNoticeRow[]> {
  return tx<RenewalNoticeRow[]>`
    SELECT n.id::text AS id, n.event, n.period_end, s.id AS subscription_id, s.plan, s.status, s.canceled_at, u.id AS user_id, u.email,
      i.id AS invoice_id, i.amount_cents::text AS amount_cents, i.currency, i.status AS invoice_status, i.provider, i.pay_url, i.expires_at
    FROM (SELECT * FROM billing_notices WHERE sent_at IS NULL ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED) n
    JOIN billing_subscriptions s ON s.id = n.subscription_id
    JOIN users u ON u.id = s.user_id
    LEFT JOIN billing_invoices i ON i.id = n.invoice_id
    ORDER BY n.id`;
}

/** Mark notices sent (in the transaction that queued their e-mails). */
export async function markRenewalNoticesSent(tx: SqlExecutor, ids: string[]): Promise<void> {
  await tx`UPDATE billing_notices SET sent_at = now() WHERE id = ANY(${ids}::bigint[])`;
}
