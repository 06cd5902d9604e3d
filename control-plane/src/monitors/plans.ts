import type { Config } from '../config/index.js';
import { PLAN_DEFAULTS, PLAN_QUOTA_DEFAULTS, type PlanName, type QuotaName } from '../config/plans.js';
import { CHECK_RETENTION_DAYS } from '../checks/retention.js';

/** What the deployment's plan grants every account (config/plans.ts). */
export interface PlanLimits {
  plan: PlanName;
  /** Monitors one account may have (MONITOR_LIMIT_EXCEEDED beyond). */
  monitors_max: number;
  /** Nodes a monitor runs on when created without `node_count` or with 0. */
  node_count_default: number;
  /** Nodes one monitor may ask for (MONITOR_LIMIT_EXCEEDED beyond). */
  node_count_max: number;
}

/**
 * The plan's numbers with the operator's overrides applied (VANTAGE_PLAN_*). The default
 * node count never exceeds the maximum.
 */
export function planLimits(config: Pick<Config, 'plan' | 'plan_monitors_max' | 'plan_node_count_default' | 'plan_node_count_max'>): PlanLimits {
  const base = PLAN_DEFAULTS[config.plan];
  const node_count_max = config.plan_node_count_max ?? base.node_count_max;
  return {
    plan: config.plan,
    monitors_max: config.plan_monitors_max ?? base.monitors_max,
    node_count_max,
    node_count_default: Math.min(node_count_max, config.plan_node_count_default ?? base.node_count_default),
  };
}

/** Every quota of a plan (QUOTA_NAMES), operator overrides applied. */
export type PlanQuotas = Record<QuotaName, number>;

/**
 * The quotas of `plan` (docs/api/billing.md "Plans and quotas"): PLAN_DEFAULTS and
 * PLAN_QUOTA_DEFAULTS, the deployment plan's VANTAGE_PLAN_* overrides when `plan` is the
 * deployment's plan, then VANTAGE_BILLING_PLAN_QUOTAS (per plan, per quota). `node_count` is the
 * largest node count one monitor may ask for; `checks_retention_days` the raw-check retention days.
 */
export function planQuotas(config: Pick<Config, 'plan' | 'plan_monitors_max' | 'plan_node_count_default' | 'plan_node_count_max' | 'billing_plan_quotas' | 'checks_retention_days'>, plan: PlanName): PlanQuotas {
  const base = PLAN_DEFAULTS[plan];
  const extra = PLAN_QUOTA_DEFAULTS[plan];
  const deployment = plan === config.plan;
  const quotas: PlanQuotas = {
    monitors: (deployment ? config.plan_monitors_max : undefined) ?? base.monitors_max,
    node_count: (deployment ? config.plan_node_count_max : undefined) ?? base.node_count_max,
    min_interval_s: extra.min_interval_s,
    checks_retention_days: (deployment ? config.checks_retention_days : undefined) ?? CHECK_RETENTION_DAYS[plan],
    api_calls_per_day: extra.api_calls_per_day,
    status_pages: extra.status_pages,
    mcp_tokens: extra.mcp_tokens,
  };
  return { ...quotas, ...config.billing_plan_quotas[plan] };
}
