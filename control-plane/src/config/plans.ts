import { z } from 'zod';
import { MONITOR_LIMITS } from '@vantage/shared-protocol';

/**
 * Plans an operator may put the deployment on until billing exists. `self_hosted` (the default)
 * is for a deployment a team runs for itself: no quota that billing would sell; free, pro and
 * business are the hosted service's tiers, for an operator who wants their limits.
 */
export const PLAN_NAMES = ['self_hosted', 'free', 'pro', 'business'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

/**
 * What each plan grants (ours: the API reference gives no numbers): `monitors_max` monitors per account,
 * `node_count_default` nodes for a monitor created without `node_count` (or with 0), and
 * `node_count_max` nodes one monitor may ask for. self_hosted: monitors bounded only by the
 * largest VANTAGE_PLAN_MONITORS_MAX accepts (1 000 000, a bound on a mistake, not a quota), nodes
 * per monitor by what a monitor may ask for at all (MONITOR_LIMITS.node_count_max, 100: placement
 * puts a monitor on at most that many nodes).
 */
export const PLAN_DEFAULTS: Record<PlanName, { monitors_max: number; node_count_default: number; node_count_max: number }> = {
  self_hosted: { monitors_max: 1_000_000, node_count_default: 3, node_count_max: MONITOR_LIMITS.node_count_max },
  free: { monitors_max: 20, node_count_default: 3, node_count_max: 5 },
  pro: { monitors_max: 200, node_count_default: 3, node_count_max: 10 },
  business: { monitors_max: 1000, node_count_default: 5, node_count_max: 20 },
};

/**
 * The quotas billing enforces per account besides the three above (docs/api/billing.md "Plans and
 * quotas"; ours, the API reference gives no numbers): `min_interval_s` shortest monitor interval
 * (shorter: FEATURE_LOCKED), `api_calls_per_day` calls made with API keys and PATs per UTC day
 * (beyond: QUOTA_EXCEEDED, then api_pack credits), `status_pages` and `mcp_tokens` live ones per
 * account. self_hosted: bounds on a mistake, not quotas. Operators replace any number per plan
 * with VANTAGE_BILLING_PLAN_QUOTAS.
 */
export const PLAN_QUOTA_DEFAULTS: Record<PlanName, { min_interval_s: number; api_calls_per_day: number; status_pages: number; mcp_tokens: number }> = {
  self_hosted: { min_interval_s: 10, api_calls_per_day: 1_000_000_000, status_pages: 1_000_000, mcp_tokens: 1_000_000 },
  free: { min_interval_s: 300, api_calls_per_day: 1_000, status_pages: 1, mcp_tokens: 2 },
  pro: { min_interval_s: 60, api_calls_per_day: 50_000, status_pages: 10, mcp_tokens: 20 },
  business: { min_interval_s: 60, api_calls_per_day: 500_000, status_pages: 50, mcp_tokens: 100 },
};

/** Every quota a plan sets (docs/api/billing.md "Plans and quotas"); `checks_retention_days` is applied per account by the check history's retention job (checks/account-retention.ts). */
export const QUOTA_NAMES = ['monitors', 'node_count', 'min_interval_s', 'checks_retention_days', 'api_calls_per_day', 'status_pages', 'mcp_tokens'] as const;
export type QuotaName = (typeof QUOTA_NAMES)[number];

/** Plan configuration (docs/api/monitors.md "Plans"): every account is on the deployment's plan. */
export const planConfigSchema = z.object({
  /**
   * The plan every account is on (VANTAGE_PLAN): self_hosted (default: no monitor quota, up to
   * 100 nodes per monitor, raw checks kept 90 days), free, pro or business (docs/api/monitors.md
   * "Plans").
   */
  plan: z.enum(PLAN_NAMES).default('self_hosted'),
  /** Monitors per account, replacing the plan's number (VANTAGE_PLAN_MONITORS_MAX). */
  plan_monitors_max: z.coerce.number().int().min(0).max(1_000_000).optional(),
  /** Nodes for a monitor created without `node_count`, replacing the plan's (VANTAGE_PLAN_NODE_COUNT_DEFAULT; never above the maximum). */
  plan_node_count_default: z.coerce.number().int().min(1).max(MONITOR_LIMITS.node_count_max).optional(),
  /** Nodes one monitor may ask for, replacing the plan's (VANTAGE_PLAN_NODE_COUNT_MAX). */
  plan_node_count_max: z.coerce.number().int().min(1).max(MONITOR_LIMITS.node_count_max).optional(),
  /**
   * Monitor intervals accepted besides 60, 300 and 1800 s (VANTAGE_MONITOR_EXTRA_INTERVALS_S,
   * comma list of seconds, 10-86400: the node protocol's assignment bounds), for every monitor
   * type but browser (which keeps its 300 s minimum). Default none. For demos and labs that need
   * rounds faster than a minute (`pnpm start` uses 10); docs/api/monitors.md "Create and update".
   * The account's plan still bounds them from below (its `min_interval_s` quota, 10 s on the
   * self_hosted plan; VANTAGE_BILLING_PLAN_QUOTAS changes it).
   */
  monitor_extra_intervals_s: z.array(z.coerce.number().int().min(10).max(86_400)).max(20).default([]),
});
