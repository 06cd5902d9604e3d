import { z } from 'zod';

/**
 * Check history (docs/architecture/checks.md; control-plane/src/checks/). Each field is read once
 * in main.ts (VANTAGE_<FIELD>).
 */
export const checksConfigSchema = z.object({
  /**
   * Days raw checks and rounds are kept on the deployment's plan (whole days: a day's partition is
   * dropped once all of it is older than the longest retention any account has, and an account
   * keeping fewer days loses its checks of each day once all of it is older). Default: the plan's
   * (free 30, pro 90, business 365; checks/retention.ts). Accounts on another plan (a
   * subscription) keep that plan's days (docs/api/billing.md "Plans and quotas").
   */
  checks_retention_days: z.coerce.number().int().min(1).max(3660).optional(),
  /**
   * Days rounds are kept, and how old a result may be and still be accepted (default 8: nodes keep
   * results and the control plane keeps a node's ended placements 7 days). At most the raw
   * retention.
   */
  checks_rounds_retention_days: z.coerce.number().int().min(1).max(3660).default(8),
  /** Days hourly rollups (uptime, response-time percentiles) and state changes are kept (default 2 years). */
  checks_rollup_retention_days: z.coerce.number().int().min(1).max(36_600).default(730),
  /**
   * Added to a check's run budget (its timeout, capped at the interval) to give a round's
   * deadline, ms: past it, a round is judged without the nodes that have not reported.
   */
  checks_round_grace_ms: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
  /**
   * How often each instance looks for rounds to judge, ms. Besides this poll, a batch stored by this
   * instance that leaves a round ready (past its deadline, or complete from one node) wakes the
   * verdict job at once (checks/verdict-wake.ts).
   */
  checks_decide_interval_ms: z.coerce.number().int().min(20).max(60_000).default(1_000),
  /** How often each instance looks for due partition, rollup and retention work, ms. */
  checks_jobs_interval_ms: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  /** How often an open event stream (GET /v1/monitors/{id}/stream) looks for new checks and state changes, ms. */
  checks_stream_poll_ms: z.coerce.number().int().min(50).max(60_000).default(1_000),
  /**
   * How long after it is stored a check goes out on event streams, ms: longer than any batch takes
   * to commit, so the stream's order is final and Last-Event-ID resumes exactly.
   */
  checks_stream_settle_ms: z.coerce.number().int().min(0).max(60_000).default(3_000),
});
