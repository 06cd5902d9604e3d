import type { Config } from '../config/index.js';
import type { PlanName, QuotaName } from '../config/plans.js';
import type { SqlExecutor } from '../contracts.js';
import { ApiError } from '../errors.js';
import { planQuotas, type PlanQuotas } from '../monitors/plans.js';
import { countUsed, quotaOverrides, subscribedPlan } from './quotas.db.js';

/** What quota checks need. */
export interface QuotaDeps { sql: SqlExecutor; config: Config }

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
  const plan = await accountPlan(deps, user_id);
  const quotas = planQuotas(deps.config, plan);
  const extra = await quotaOverrides(deps.sql, user_id);
  for (const [name, n] of Object.entries(extra) as [QuotaName, number][]) {
    if (name in quotas) quotas[name] = name === 'min_interval_s' ? quotas[name] : quotas[name] + n;
  }
  return { plan, quotas };
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

/** The error of a count quota reached (see {@link assertQuota}). */
export function quotaExceeded(quota: QuotaName, plan: PlanName, limit: number, used: number): ApiError {
  const details = { quota, plan, limit, used };
  // Monitors keep the monitors API's details shape (`limit` names the quota, `max` the number).
  if (quota === 'monitors') return new ApiError('MONITOR_LIMIT_EXCEEDED', `the ${plan} plan allows ${limit} monitors`, { quota, plan, used, limit: 'monitors', max: limit });
  return new ApiError('QUOTA_EXCEEDED', `the ${plan} plan allows ${limit} ${quota.replace('_', ' ')}`, details,
    { 'X-RateLimit-Limit': String(limit), 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': new Date().toISOString() });
}

/**
 * Refuse a monitor interval shorter than the account plan's `min_interval_s`: 403 FEATURE_LOCKED
 * with `details {quota: 'min_interval_s', plan, limit, used}` (`used` = the interval asked for, s).
 * Heartbeat and control-plane checks have no node interval: callers pass only node-run intervals.
 */
export async function assertMinInterval(deps: QuotaDeps, user_id: string, interval_s: number | undefined): Promise<void> {
  if (interval_s === undefined) return;
  const { plan, quotas } = await accountQuotas(deps, user_id);
  if (interval_s < quotas.min_interval_s) {
    throw new ApiError('FEATURE_LOCKED', `intervals under ${quotas.min_interval_s} s need a higher plan than ${plan}`,
      { quota: 'min_interval_s', plan, limit: quotas.min_interval_s, used: interval_s, fields: [{ path: 'interval_s', message: `at least ${quotas.min_interval_s} on the ${plan} plan` }] });
  }
}
