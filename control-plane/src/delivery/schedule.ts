/** Spread of a retry delay around its nominal value: ±20 %, so receivers recovering from an outage are not hit by every queued message in the same second. */
export const RETRY_JITTER = 0.2;

/**
 * When to try a delivery again after a failed attempt (docs/architecture/delivery.md "Retries").
 * `retry_step` counts the retries already scheduled since the delivery was queued (or redelivered);
 * `delays_ms` is the schedule (config `delivery_retry_delays_ms`: 5 s, 5 min, 30 min, 2 h, 5 h,
 * 10 h, 10 h). A failure that is not retriable, or one past the end of the schedule, is final.
 * @param random a uniform [0, 1) source (tests pass a fixed one)
 * @returns ms until the next attempt, or null when the delivery has failed for good
 */
export function nextRetryDelayMs(retry_step: number, retriable: boolean, delays_ms: readonly number[], random: () => number = Math.random): number | null {
  if (!retriable || retry_step >= delays_ms.length) return null;
  const nominal = delays_ms[retry_step]!;
  return Math.max(0, Math.round(nominal * (1 + RETRY_JITTER * (2 * random() - 1))));
}
