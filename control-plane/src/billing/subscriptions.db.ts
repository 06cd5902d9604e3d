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
  'status' | 'ext_subscription_id' | 'ext_customer_id' | 'current_period_end' | 'cancel_at_period_end' | 'canceled_at' | 'provider_event_at'>>): Promise<SubscriptionRow> {
  const fields = Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined));
  const [row] = await sql<SubscriptionRow[]>`
    UPDATE billing_subscriptions SET ${sql(fields as Record<string, never>)}, updated_at = now() WHERE id = ${id} RETURNING *`;
  return row!;
}

/**
 * Expire the account's manual subscriptions whose paid period ended (active, past_due or canceled
 * with current_period_end in the past). Stripe subscriptions end through Stripe's own events.
 */
export async function expireEndedSubscriptions(sql: SqlExecutor, user_id: string, now: Date): Promise<void> {
  await sql`UPDATE billing_subscriptions SET status = 'expired', updated_at = now()
            WHERE user_id = ${user_id} AND provider = 'manual' AND status IN ('active', 'past_due', 'canceled') AND current_period_end <= ${now}`;
}
