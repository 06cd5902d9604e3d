import type { Config } from '../config/index.js';
import type { PlanName } from '../config/plans.js';

/**
 * Days raw checks are kept on each plan (docs/api/monitors.md "Checks", docs/api/billing.md "Plans and quotas"); rollups are kept longer.
 * self_hosted keeps 90: checks are the disk a deployment pays for (about 170 bytes each for the
 * rounds retention, then about 18 packed (pack.ts); three a minute for a monitor on three nodes:
 * about 12 MB per monitor over 90 days), while uptime and response-time history come from the
 * rollups, kept 2 years whatever the plan.
 */
export const CHECK_RETENTION_DAYS: Record<PlanName, number> = { self_hosted: 90, free: 30, pro: 90, business: 365 };

/** How long what is kept, days: raw checks, rounds, and rollups with state changes. */
export interface CheckRetention {
  /** Raw checks: whole partitions older than this go (accounts whose plan keeps fewer days lose theirs sooner: account-retention.ts). */
  raw_days: number;
  /**
   * Rounds: as long as results can still arrive for them (a result older than this is refused),
   * since a late result replays the state over every round after its own. Uptime reads them only
   * for the partial hours at a range's ends; everything else reads the hourly rollups.
   */
  rounds_days: number;
  rollup_days: number;
}

/**
 * The deployment's retention: raw checks `raw_days` when given (the longest any account keeps:
 * account-retention.ts rawDaysInUse), else `checks_retention_days` when set, else the plan's;
 * rounds `checks_rounds_retention_days` (never longer than the raw checks); rollups
 * `checks_rollup_retention_days` (never shorter than the raw checks).
 */
export function checkRetention(config: Pick<Config, 'plan' | 'checks_retention_days' | 'checks_rounds_retention_days' | 'checks_rollup_retention_days'>, raw_days_in_use?: number): CheckRetention {
  const raw_days = raw_days_in_use ?? config.checks_retention_days ?? CHECK_RETENTION_DAYS[config.plan];
  return { raw_days, rounds_days: Math.min(raw_days, config.checks_rounds_retention_days), rollup_days: Math.max(raw_days, config.checks_rollup_retention_days) };
}
