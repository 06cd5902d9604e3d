/**
 * The offset between CLOCK_REALTIME (the clock of the kernel's packet timestamps) and
 * process.hrtime (CLOCK_MONOTONIC), so a kernel receive timestamp can be compared with the
 * hrtime taken just before sendto(2).
 *
 * Both clocks run at the same rate (NTP slews them alike); their difference changes only when
 * the wall clock is stepped (settimeofday, an NTP step, a leap second). Node has no precise
 * wall-clock read, and performance.timeOrigin was seen 0.16 ms or more off its hrtime origin, so
 * the offset is measured at the instant Date.now() ticks to a new millisecond: spin reading
 * hrtime and Date.now() until the millisecond changes, with consecutive hrtime reads less than
 * 5 µs apart. Two such readings must agree within 5 µs, else the measurement is retried (the
 * first reading of a process was once seen 0.1 ms off); on an idle machine they agree within
 * 0.1 µs. Costs about 2 ms of CPU (up to 12 on a busy machine), once per process and again
 * after a step is detected.
 */

const MAX_BRACKET_NS = 5_000n;
const MAX_DISAGREEMENT_NS = 5_000n;

/** One reading: realtime ns − hrtime ns at a millisecond tick, or null when the spin was interrupted. */
function readOffset(): bigint | null {
  const start = Date.now();
  let before = process.hrtime.bigint();
  for (;;) {
    const h = process.hrtime.bigint();
    const now = Date.now();
    if (now !== start) {
      if (h - before > MAX_BRACKET_NS) return null; // preempted around the tick
      return BigInt(now) * 1_000_000n - h;
    }
    before = h;
    if (now - start > 3) return null; // never expected: Date.now() stopped moving
  }
}

/** Two agreeing readings, or null after `tries` attempts. */
function measureOffset(tries = 12): bigint | null {
  let last: bigint | null = null;
  for (let i = 0; i < tries; i++) {
    const offset = readOffset();
    if (offset === null) continue;
    if (last !== null) {
      const d = offset - last;
      if (d < MAX_DISAGREEMENT_NS && d > -MAX_DISAGREEMENT_NS) return offset;
    }
    last = offset;
  }
  return null;
}

let offset_ns: bigint | null | undefined;
/** After a failed measurement, when to try again (hrtime ns): a busy machine is not spun on every packet. */
let retry_at_ns = 0n;
const RETRY_AFTER_NS = 10_000_000_000n;

/**
 * realtime ns − hrtime ns, measured on first use and again whenever Date.now() disagrees with it
 * by more than 2 ms (the wall clock was stepped). Null when no stable measurement was possible
 * (a very busy machine): callers then keep their user-space timestamps.
 */
export function realtimeOffsetNs(): bigint | null {
  if (offset_ns !== undefined && offset_ns !== null) {
    const estimate_ms = (process.hrtime.bigint() + offset_ns) / 1_000_000n;
    const drift = BigInt(Date.now()) - estimate_ms;
    if (drift <= 2n && drift >= -2n) return offset_ns;
  }
  const now = process.hrtime.bigint();
  if (offset_ns === null && now < retry_at_ns) return null;
  offset_ns = measureOffset();
  if (offset_ns === null) retry_at_ns = now + RETRY_AFTER_NS;
  return offset_ns;
}
