import type { Config } from '../config/index.js';
import { PLAN_DEFAULTS, type PlanName } from '../config/plans.js';

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
