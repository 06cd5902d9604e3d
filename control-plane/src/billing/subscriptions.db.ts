import { newId } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';

/** A plan subscription row (billing_subscriptions). */
export interface SubscriptionRow {
  id: string;
  user_id: string;
  plan: 'pro' | 'business';
  status: 'incomplete' | 'active' | 'past_due' | 'canceled' | 'expired';
  provider: 'manual' | 'stripe';
  ext_subscription_id: string | null;
  ext_customer_id: string | null;
  current_period_end: Date | null;
  cancel_at_period_end: boolean;
  canceled_at: Date | null;
  provider_event_at: Date | null;
  /** The period end the newest renewal invoice renews (manual provider; 0091_billing_renewals.sql). */
  renewal_for: Date | null;
  /** That renewal invoice (bi_), until it is paid. */
  renewal_invoice_id: string | null;
  created_at: Date;
  updated_at: Date;
}

/** Insert an incomplete subscription (its first invoice unpaid). */
export async function insertSubscription(sql: SqlExecutor, user_id: string, plan: 'pro' | 'business', provider: 'manual' | 'stripe'): Promise<SubscriptionRow> {
  const [row] = await sql<SubscriptionRow[]>`
    INSERT INTO billing_subscriptions (id, user_id, plan, status, provider)
    VALUES (${newId('billing_subscription')}, ${user_id}, ${plan}, 'incomplete', ${provider}) RETURNING *`;
  return row!;
}

/** The account's live subscription (incomplete, active or past_due), locked when `lock`. */
export async function liveSubscription(sql: SqlExecutor, user_id: string): Promise<SubscriptionRow | null> {
  const [row] = await sql<SubscriptionRow[]>`
    SELECT * FROM billing_subscriptions WHERE user_id = ${user_id} AND status IN ('incomplete', 'active', 'past_due') FOR UPDATE`;
  return row ?? null;
}

/** The account's newest subscription whatever its status. */
export async function latestSubscription(sql: SqlExecutor, user_id: string): Promise<SubscriptionRow | null> {
  const [row] = await sql<SubscriptionRow[]>`
    SELECT * FROM billing_subscriptions WHERE user_id = ${user_id}
    ORDER BY (status IN ('incomplete', 'active', 'past_due')) DESC, created_at DESC, id DESC LIMIT 1`;
  return row ?? null;
}

/** A subscription by id, locked for the transaction. */
export async function subscriptionById(sql: SqlExecutor, id: string): Promise<SubscriptionRow | null> {
  const [row] = await sql<SubscriptionRow[]>`SELECT * FROM billing_subscriptions WHERE id = ${id} FOR UPDATE`;
  return row ?? null;
}

/** A subscription by the provider's id, locked for the transaction. */
export async function subscriptionByExternal(sql: SqlExecutor, ext_subscription_id: string): Promise<SubscriptionRow | null> {
  const [row] = await sql<SubscriptionRow[]>`SELECT * FROM billing_subscriptions WHERE ext_subscription_id = ${ext_subscription_id} FOR UPDATE`;
  return row ?? null;
}

/** Change a subscription's fields (only those given). */
export async function updateSubscription(sql: SqlExecutor, id: string, f: Partial<Pick<SubscriptionRow,
  'status' | 'ext_subscription_id' | 'ext_customer_id' | 'current_period_end' | 'cancel_at_period_end' | 'canceled_at' | 'provider_event_at'
  | 'renewal_for' | 'renewal_invoice_id'>>): Promise<SubscriptionRow> {
  const fields = Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined));
  const [row] = await sql<SubscriptionRow[]>`
    UPDATE billing_subscriptions SET ${sql(fields as Record<string, never>)}, updated_at = now() WHERE id = ${id} RETURNING *`;
  return row!;
}

/**
 * Move manual subscriptions whose period ended (docs/api/billing.md "Renewals"), all accounts or
 * only `user_id`'s, at `now`: `canceled` with its period over, and `active` / `past_due` more
 * than `grace_days` past its period end, become `expired` (their open invoices void); `active`
 * with its period over (its renewal unpaid) becomes `past_due`. Each move writes its renewal
 * e-mail's notice in the same statement (billing_notices, once per subscription, event and period
 * end; sent by the renewal job: renewal-notices.ts). Stripe subscriptions move through Stripe's
 * own events. @returns how many subscriptions moved
 */
export async function advanceManualSubscriptions(sql: SqlExecutor, now: Date, grace_days: number, user_id: string | null): Promise<number> {
  const expired = await sql<{ id: string }[]>`
    WITH ended AS (
      UPDATE billing_subscriptions SET status = 'expired', updated_at = now()
      WHERE provider = 'manual' AND (${user_id}::text IS NULL OR user_id = ${user_id})
        AND ((status = 'canceled' AND current_period_end <= ${now})
          OR (status IN ('active', 'past_due') AND current_period_end + make_interval(days => ${grace_days}) <= ${now}))
      RETURNING id, current_period_end),
    voided AS (
      UPDATE billing_invoices SET status = 'void' WHERE purpose = 'subscription' AND status = 'open' AND reference_id IN (SELECT id FROM ended)),
    noticed AS (
      INSERT INTO billing_notices (subscription_id, event, period_end) SELECT id, 'expired', current_period_end FROM ended ON CONFLICT DO NOTHING)
    SELECT id FROM ended`;
  const due = await sql`
    WITH due AS (
      UPDATE billing_subscriptions SET status = 'past_due', updated_at = now()
      WHERE provider = 'manual' AND (${user_id}::text IS NULL OR user_id = ${user_id}) AND status = 'active' AND current_period_end <= ${now}
      RETURNING id, current_period_end, renewal_invoice_id),
    noticed AS (
      INSERT INTO billing_notices (subscription_id, event, period_end, invoice_id)
      SELECT id, 'past_due', current_period_end, renewal_invoice_id FROM due ON CONFLICT DO NOTHING)
    SELECT id FROM due`;
  return expired.length + due.length;
}

/**
 * Claim up to `limit` manual subscriptions (active or past_due, not set to end) whose period ends
 * within `notice_days` of `now` and whose renewal invoice for that period end is not issued yet:
 * `renewal_for` is set to the period end (SKIP LOCKED: one instance issues each). A claim whose
 * invoice never got recorded (the instance died) is taken again after 10 minutes.
 */
export async function claimRenewals(sql: SqlExecutor, now: Date, notice_days: number, limit: number): Promise<SubscriptionRow[]> {
  return sql<SubscriptionRow[]>`
    UPDATE billing_subscriptions SET renewal_for = current_period_end, renewal_invoice_id = NULL, updated_at = now()
    WHERE id IN (
      SELECT id FROM billing_subscriptions
      WHERE provider = 'manual' AND status IN ('active', 'past_due') AND NOT cancel_at_period_end
        AND current_period_end - make_interval(days => ${notice_days}) <= ${now}
        AND (renewal_for IS DISTINCT FROM current_period_end OR (renewal_invoice_id IS NULL AND updated_at < now() - interval '10 minutes'))
      ORDER BY current_period_end LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING *`;
}

/**
 * Record the renewal invoice of a claimed subscription, with its renewal e-mail's notice
 * (billing_notices: once per period end); null `invoice_id` gives the claim back (retried next pass).
 */
export async function setRenewalInvoice(sql: SqlExecutor, id: string, invoice_id: string | null): Promise<void> {
  await sql`
    WITH sub AS (
      UPDATE billing_subscriptions SET renewal_invoice_id = ${invoice_id},
        renewal_for = CASE WHEN ${invoice_id}::text IS NULL THEN NULL ELSE renewal_for END, updated_at = now() WHERE id = ${id}
      RETURNING id, renewal_for)
    INSERT INTO billing_notices (subscription_id, event, period_end, invoice_id)
    SELECT id, 'renewal_invoice', renewal_for, ${invoice_id} FROM sub WHERE ${invoice_id}::text IS NOT NULL
    ON CONFLICT DO NOTHING`;
}
