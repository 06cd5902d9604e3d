/** Reconnect delays of issue 5 item 3: exponential from 2 s, capped at 60 s, with jitter. */
export interface BackoffOptions {
  min_ms: number;
  max_ms: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { min_ms: 2_000, max_ms: 60_000 };

/**
 * Delay before reconnect attempt `attempt` (0-based), ms: uniform in [min_ms, ceiling] where the
 * ceiling doubles per attempt, `min(max_ms, min_ms * 2^(attempt+1))` ("full jitter" with a floor;
 * AWS architecture blog "Exponential Backoff And Jitter"). So it is always within
 * [min_ms, max_ms], and nodes cut off together do not come back in step.
 * @param random a number in [0, 1) (Math.random by default; tests pass fixed values).
 */
export function backoffDelay(attempt: number, opts: BackoffOptions = DEFAULT_BACKOFF, random: number = Math.random()): number {
  const ceiling = Math.min(opts.max_ms, opts.min_ms * 2 ** Math.min(attempt + 1, 30));
  return Math.round(opts.min_ms + (ceiling - opts.min_ms) * random);
}
