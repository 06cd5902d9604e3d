import type { SqlExecutor } from '../contracts.js';
import type { QuotaName } from '../config/plans.js';

/**
 * The plan of each account's subscription that holds one: active or past_due, or canceled with its
 * paid period not over yet (the newest such subscription); accounts with none are left out.
 */
export async function subscribedPlans(sql: SqlExecutor, user_ids: readonly string[]): Promise<Map<string, 'pro' | 'business'>> {
  const rows = await sql<{ user_id: string; plan: 'pro' | 'business' }[]>`
    SELECT DISTINCT ON (user_id) user_id, plan FROM billing_subscriptions WHERE user_id = ANY(${user_ids as string[]}::text[])
      AND (status IN ('active', 'past_due') OR (status = 'canceled' AND current_period_end > now()))
    ORDER BY user_id, created_at DESC`;
  return new Map(rows.map((r) => [r.user_id, r.plan]));
}

/** The plan of the account's subscription that holds one ({@link subscribedPlans}); null when it has none. */
export async function subscribedPlan(sql: SqlExecutor, user_id: string): Promise<'pro' | 'business' | null> {
  return (await subscribedPlans(sql, [user_id])).get(user_id) ?? null;
}

/**
 * What each account's active, unexpired quota_override entitlements add to each quota: the sum of
 * each numeric `attrs` entry named after a quota (`{"monitors": 50}` adds 50 monitors). Accounts
 * with none are left out.
 */
export async function quotaOverridesOf(sql: SqlExecutor, user_ids: readonly string[]): Promise<Map<string, Partial<Record<QuotaName, number>>>> {
  const rows = await sql<{ user_id: string; key: QuotaName; extra: string }[]>`
    SELECT e.user_id, a.key, sum((a.value)::numeric)::bigint AS extra
    FROM entitlements e, jsonb_each(e.attrs) a
    WHERE e.user_id = ANY(${user_ids as string[]}::text[]) AND e.kind = 'quota_override' AND e.status = 'active'
      AND (e.expires_at IS NULL OR e.expires_at > now()) AND jsonb_typeof(a.value) = 'number'
    GROUP BY e.user_id, a.key`;
  const out = new Map<string, Partial<Record<QuotaName, number>>>();
  for (const r of rows) out.set(r.user_id, { ...out.get(r.user_id), [r.key]: Number(r.extra) });
  return out;
}

/**
 * Accounts that may be on other terms than the deployment's plan: those with an active, past_due
 * or canceled subscription, or an active quota_override entitlement (a superset: the plan
 * resolution decides, billing/quotas.ts accountsQuotas). Every other account is on the
 * deployment's plan with its numbers.
 */
export async function accountsWithOwnTerms(sql: SqlExecutor): Promise<string[]> {
  const rows = await sql<{ user_id: string }[]>`
    SELECT user_id FROM billing_subscriptions WHERE status IN ('active', 'past_due', 'canceled')
    UNION
    SELECT user_id FROM entitlements WHERE kind = 'quota_override' AND status = 'active'`;
  return rows.map((r) => r.user_id);
}

/** Live resources of a counted quota the account owns: monitors, status pages, unrevoked unexpired MCP tokens. */
export async function countUsed(sql: SqlExecutor, user_id: string, quota: 'monitors' | 'status_pages' | 'mcp_tokens'): Promise<number> {
  const [row] = quota === 'monitors'
    ? await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM monitors WHERE user_id = ${user_id} AND team_id IS NULL`
    : quota === 'status_pages'
      ? await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM status_pages WHERE user_id = ${user_id} AND team_id IS NULL`
      : await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM mcp_tokens WHERE user_id = ${user_id} AND revoked_at IS NULL AND expires_at > now()`;
  return row!.n;
}

/** Count one API call of `key_id` (an API key or PAT id) for today (UTC); returns the account's calls today, all keys. */
export async function countApiCall(sql: SqlExecutor, user_id: string, key_id: string): Promise<number> {
  const [row] = await sql<{ total: string }[]>`
    WITH up AS (
      INSERT INTO api_usage_daily (user_id, key_id, day, calls) VALUES (${user_id}, ${key_id}, (now() AT TIME ZONE 'UTC')::date, 1)
      ON CONFLICT (user_id, key_id, day) DO UPDATE SET calls = api_usage_daily.calls + 1
      RETURNING calls)
    SELECT (SELECT calls FROM up) + COALESCE((SELECT sum(calls) FROM api_usage_daily
      WHERE user_id = ${user_id} AND day = (now() AT TIME ZONE 'UTC')::date AND key_id <> ${key_id}), 0) AS total`;
  return Number(row!.total);
}

/** The account's API calls per key for one UTC day (`YYYY-MM-DD`). */
export async function apiUsageOf(sql: SqlExecutor, user_id: string, day: string): Promise<{ key_id: string; calls: number }[]> {
  const rows = await sql<{ key_id: string; calls: string }[]>`
    SELECT key_id, calls FROM api_usage_daily WHERE user_id = ${user_id} AND day = ${day}::date ORDER BY key_id`;
  return rows.map((r) => ({ key_id: r.key_id, calls: Number(r.calls) }));
}

/** Take one call from the account's oldest-expiring active api_pack with balance left; false when none has any. */
export async function spendApiPackCall(sql: SqlExecutor, user_id: string): Promise<boolean> {
  const rows = await sql`
    UPDATE entitlements SET balance = balance - 1
    WHERE id = (SELECT id FROM entitlements WHERE user_id = ${user_id} AND kind = 'api_pack' AND status = 'active' AND balance > 0
                  AND (expires_at IS NULL OR expires_at > now())
                ORDER BY expires_at ASC NULLS LAST, granted_at ASC, id ASC LIMIT 1 FOR UPDATE)
      AND balance > 0
    RETURNING id`;
  return rows.length > 0;
}

/**
 * Take the lock of `user_id`'s `quota` until the end of transaction `tx` (a Postgres advisory
 * transaction lock): creates of the same counted resource by one account then count and insert
 * one after another (billing/quotas.ts withinQuota).
 */
export async function lockQuota(tx: SqlExecutor, user_id: string, quota: string): Promise<void> {
  await tx`SELECT pg_advisory_xact_lock(hashtext(${`quota:${quota}:${user_id}`}))`;
}
