/** Exponential reconnect backoff for repeated failures: from 2 s, capped at 60 s, with jitter. */
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

/**
 * When to retry after the link went down. A control plane restarts in seconds (deploys, crashes),
 * so after a link that was up the agent comes back promptly, jittered so that thousands of nodes
 * do not reconnect in step; only repeated failures beyond that back off exponentially.
 */
export interface ReconnectOptions {
  /** First retry after an established link went down: uniform in this range, ms. */
  first_ms: { min: number; max: number };
  /** Further retries while the outage is younger than `soon_window_ms`: uniform in this range, ms. */
  soon_ms: { min: number; max: number };
  soon_window_ms: number;
  /** After that (and when no link was up before): {@link backoffDelay}. */
  backoff: BackoffOptions;
}

export const DEFAULT_RECONNECT: ReconnectOptions = {
  first_ms: { min: 100, max: 1000 },
  soon_ms: { min: 1000, max: 2500 },
  soon_window_ms: 60_000,
  backoff: DEFAULT_BACKOFF,
};

/**
 * Delay before the next connection attempt, ms.
 * @param failures attempts that failed since the last established link went down (0 = first retry)
 * @param down_ms how long ago that link went down, or null when the series did not start from an
 *   established link (agent start, or a link that flapped: see {@link Connection})
 * @param random a number in [0, 1)
 */
export function reconnectDelay(failures: number, down_ms: number | null, opts: ReconnectOptions = DEFAULT_RECONNECT, random: number = Math.random()): number {
  const within = (r: { min: number; max: number }) => Math.round(r.min + (r.max - r.min) * random);
  if (down_ms !== null && failures === 0) return within(opts.first_ms);
  if (down_ms !== null && down_ms < opts.soon_window_ms) return within(opts.soon_ms);
  return backoffDelay(failures, opts.backoff, random);
}
