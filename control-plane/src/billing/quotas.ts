import { PLAN_DEFAULTS, type PlanName, type QuotaName } from '../config/plans.js';
import type { SqlExecutor } from '../contracts.js';
import { ApiError } from '../errors.js';
import { planQuotas, type PlanQuotas } from '../monitors/plans.js';
import { inTransaction } from '../db/transaction.js';
import { countUsed, lockQuota, quotaOverridesOf, subscribedPlan, subscribedPlans } from './quotas.db.js';

/** What quota checks need: the database and the plan settings (monitors/plans.ts planQuotas). */
export interface QuotaDeps { sql: SqlExecutor; config: Parameters<typeof planQuotas>[0] }

/** An account's plan and its quotas with its quota_override entitlements added. */
export interface AccountQuotas { plan: PlanName; quotas: PlanQuotas }

/**
 * The plan of an account (docs/api/billing.md "Plans and quotas"): its live subscription's (pro or
 * business, while active or past_due), else the deployment's plan (VANTAGE_PLAN).
 */
export async function accountPlan(deps: QuotaDeps, user_id: string): Promise<PlanName> {
  return (await subscribedPlan(deps.sql, user_id)) ?? deps.config.plan;
}

/** The account's plan and quotas: the plan's numbers (monitors/plans.ts planQuotas) plus what its active quota_override entitlements add. */
export async function accountQuotas(deps: QuotaDeps, user_id: string): Promise<AccountQuotas> {
  return (await accountsQuotas(deps, [user_id])).get(user_id)!;
}

/**
 * {@link accountQuotas} of several accounts in two statements (the retention job resolves every
 * account with its own terms at once): each account's subscribed plan, else the deployment's, with
 * its quota_override entitlements added (`min_interval_s` cannot be overridden).
 * @returns one entry per id given
 */
export async function accountsQuotas(deps: QuotaDeps, user_ids: readonly string[]): Promise<Map<string, AccountQuotas>> {
  const plans = await subscribedPlans(deps.sql, user_ids);
  const overrides = await quotaOverridesOf(deps.sql, user_ids);
  const out = new Map<string, AccountQuotas>();
  for (const id of user_ids) {
    const plan = plans.get(id) ?? deps.config.plan;
    const quotas = planQuotas(deps.config, plan);
    for (const [name, n] of Object.entries(overrides.get(id) ?? {}) as [QuotaName, number][]) {
      if (name in quotas) quotas[name] = name === 'min_interval_s' ? quotas[name] : quotas[name] + n;
    }
    out.set(id, { plan, quotas });
  }
  return out;
}

/**
 * Refuse creating one more counted resource (`monitors`, `status_pages`, `mcp_tokens`) when the
 * account already has its plan's number (docs/api/billing.md "Where quotas are enforced"):
 * monitors answer 422 MONITOR_LIMIT_EXCEEDED (the monitors API's own code), the others 429
 * QUOTA_EXCEEDED with X-RateLimit-Limit (the quota) and X-RateLimit-Remaining 0; both with
 * `details {quota, plan, limit, used}`. A count quota does not reset with time, so no Retry-After:
 * the caller deletes something or upgrades. A resource a team will own (`owner.team_id` set) is
 * not counted against its creator's plan: a team's monitors and status pages follow the
 * deployment's limits (docs/api/billing.md "Teams").
 * @param owner the account creating the resource and the team that will own it, if any
 * @returns the account's quotas, for callers that need the number again (race-safe inserts)
 */
export async function assertQuota(deps: QuotaDeps, owner: { user_id: string; team_id: string | null }, quota: 'monitors' | 'status_pages' | 'mcp_tokens'): Promise<AccountQuotas> {
  const user_id = owner.user_id;
  const account = await accountQuotas(deps, user_id);
  if (owner.team_id !== null && quota !== 'mcp_tokens') return account;
  const limit = account.quotas[quota];
  const used = await countUsed(deps.sql, user_id, quota);
  if (used >= limit) throw quotaExceeded(quota, account.plan, limit, used);
  return account;
}

/**
 * Create one more status page or MCP token of `owner` within the account plan's count quota, with
 * no race: in one transaction (or the caller's), the account's lock for that quota, the count
 * ({@link assertQuota}: 429 QUOTA_EXCEEDED with `details {quota, plan, limit, used}`), then
 * `insert`. Concurrent creates wait for each other, so N at once against a quota of Q leave
 * exactly Q (monitors do the same in monitors.db.ts insertMonitor).
 * @throws ApiError QUOTA_EXCEEDED, and whatever `insert` throws
 */
export function withinQuota<T>(deps: QuotaDeps, owner: { user_id: string; team_id: string | null }, quota: 'status_pages' | 'mcp_tokens', insert: (tx: SqlExecutor) => Promise<T>): Promise<T> {
  return inTransaction(deps.sql, async (tx) => {
    await lockQuota(tx, owner.user_id, quota);
    await assertQuota({ ...deps, sql: tx }, owner, quota);
    return insert(tx);
  });
}

/**
 * The most monitors `owner` may hold, for the insert that counts them under a lock
 * (monitors.db.ts insertMonitor: concurrent creates cannot pass it): the deployment's
 * `deployment_max`, and for a personal monitor also its account plan's `monitors` quota; with the
 * refusal to answer when the insert finds it reached (the account quota's, else `deployment`).
 */
export function monitorsCap(account: AccountQuotas, owner: { team_id: string | null }, deployment_max: number, deployment: () => ApiError): { max: number; refusal: () => ApiError } {
  const max = owner.team_id === null ? Math.min(deployment_max, account.quotas.monitors) : deployment_max;
  return { max, refusal: () => max < deployment_max ? quotaExceeded('monitors', account.plan, max, max) : deployment() };
}

/** The error of a count quota reached (see {@link assertQuota}). */
export function quotaExceeded(quota: QuotaName, plan: PlanName, limit: number, used: number): ApiError {
  const details = { quota, plan, limit, used };
  // Monitors keep the monitors API's details shape (`limit` names the quota, `max` the number).
  if (quota === 'monitors') return new ApiError('MONITOR_LIMIT_EXCEEDED', `the ${plan} plan allows ${limit} monitors`, { quota, plan, used, limit: 'monitors', max: limit });
  return new ApiError('QUOTA_EXCEEDED', `the ${plan} plan allows ${limit} ${quota.replace('_', ' ')}`, details,
    { 'X-RateLimit-Limit': String(limit), 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': new Date().toISOString() });
}

/**
 * The error of an interval shorter than the account plan's `min_interval_s`, or null when it is
 * allowed: 403 FEATURE_LOCKED with `details {quota: 'min_interval_s', plan, limit, used}` (`used` =
 * the interval asked for, s; docs/api/billing.md "Plans and quotas").
 */
export function minIntervalError(account: AccountQuotas, interval_s: number): ApiError | null {
  const { plan, quotas } = account;
  if (interval_s >= quotas.min_interval_s) return null;
  return new ApiError('FEATURE_LOCKED', `intervals under ${quotas.min_interval_s} s need a higher plan than ${plan}`,
    { quota: 'min_interval_s', plan, limit: quotas.min_interval_s, used: interval_s, fields: [{ path: 'interval_s', message: `at least ${quotas.min_interval_s} on the ${plan} plan` }] });
}

/**
 * Refuse a monitor interval shorter than the account plan's `min_interval_s` ({@link minIntervalError}).
 * Heartbeat and control-plane checks have no node interval: callers pass only node-run intervals.
 */
export async function assertMinInterval(deps: QuotaDeps, user_id: string, interval_s: number | undefined): Promise<void> {
  if (interval_s === undefined) return;
  const err = minIntervalError(await accountQuotas(deps, user_id), interval_s);
  if (err) throw err;
}

/**
 * The node counts a monitor of `owner` may use (docs/api/billing.md "Plans and quotas"): a
 * personal monitor's are its account plan's (`node_count` quota with quota_override entitlements
 * added; the default is the plan's default, never above that maximum); a team's monitor follows
 * the deployment's plan (`deployment`, monitors/plans.ts planLimits), as the team quotas do.
 * @returns the plan named in errors, the largest `node_count` allowed and the default for 0/absent
 */
export async function nodeCountLimits(deps: QuotaDeps, owner: { user_id: string; team_id: string | null }, deployment: { plan: PlanName; node_count_max: number; node_count_default: number }): Promise<{ plan: PlanName; max: number; default: number }> {
  if (owner.team_id !== null) return { plan: deployment.plan, max: deployment.node_count_max, default: deployment.node_count_default };
  const { plan, quotas } = await accountQuotas(deps, owner.user_id);
  const base = plan === deps.config.plan ? deployment.node_count_default : PLAN_DEFAULTS[plan].node_count_default;
  return { plan, max: quotas.node_count, default: Math.min(quotas.node_count, base) };
}
