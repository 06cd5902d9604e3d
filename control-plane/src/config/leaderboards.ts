import { z } from 'zod';

/** Leaderboards (docs/api/leaderboards.md): the public opt-out form's rate limit. */
export const leaderboardsConfigSchema = z.object({
  /**
   * Opt-out requests (`POST /v1/leaderboards/opt-outs`) one source IP may send per
   * `rate_limit_window_s` (VANTAGE_LEADERBOARD_OPT_OUT_RATE_LIMIT), on top of the general rate
   * limit; beyond it 429 RATE_LIMIT_EXCEEDED with Retry-After.
   */
  leaderboard_opt_out_rate_limit: z.coerce.number().int().min(1).max(10_000).default(5),
});
