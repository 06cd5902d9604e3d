import { z } from 'zod';

/** Plans an operator may put the deployment on until billing exists (pro and business). */
export const PLAN_NAMES = ['free', 'pro', 'business'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

/**
 * What each plan grants (ours: the API reference gives no numbers): `monitors_max` monitors per account,
 * `node_count_default` nodes for a monitor created without `node_count` (or with 0), and
 * `node_count_max` nodes one monitor may ask for.
 */
export const PLAN_DEFAULTS: Record<PlanName, { monitors_max: number; node_count_default: number; node_count_max: number }> = {
  free: { monitors_max: 20, node_count_default: 3, node_count_max: 5 },
  pro: { monitors_max: 200, node_count_default: 3, node_count_max: 10 },
  business: { monitors_max: 1000, node_count_default: 5, node_count_max: 20 },
};

/**
 * Plan configuration (docs/api/monitors.md "Plans"): every account is on `plan`
 * (VANTAGE_PLAN, default free); VANTAGE_PLAN_MONITORS_MAX, VANTAGE_PLAN_NODE_COUNT_DEFAULT and
 * VANTAGE_PLAN_NODE_COUNT_MAX override that plan's numbers.
 */
export const planConfigSchema = z.object({
  plan: z.enum(PLAN_NAMES).default('free'),
  plan_monitors_max: z.coerce.number().int().min(0).max(1_000_000).optional(),
  plan_node_count_default: z.coerce.number().int().min(1).max(100).optional(),
  plan_node_count_max: z.coerce.number().int().min(1).max(100).optional(),
  /**
   * Monitor intervals accepted besides 60, 300 and 1800 s (VANTAGE_MONITOR_EXTRA_INTERVALS_S,
   * comma list of seconds, 10-86400: the node protocol's assignment bounds), for every monitor
   * type but browser (which keeps its 300 s minimum). Default none. For demos and labs that need
   * rounds faster than a minute (`pnpm start` uses 10); docs/api/monitors.md "Create and update".
   */
  monitor_extra_intervals_s: z.array(z.coerce.number().int().min(10).max(86_400)).max(20).default([]),
});
