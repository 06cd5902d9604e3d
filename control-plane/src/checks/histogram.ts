/*
 * Response-time histograms with logarithmic buckets, the layout of DDSketch (Masson, Rim & Lee,
 * "DDSketch: a fast and fully-mergeable quantile sketch with relative-error guarantees", VLDB
 * 2019): bucket i > 0 holds the values in (MIN_MS * GAMMA^(i-1), MIN_MS * GAMMA^i], bucket 0 the
 * values up to MIN_MS, with GAMMA = (1 + ALPHA) / (1 - ALPHA). Any quantile read back is within
 * ALPHA (2 %) of a sample value, and two histograms merge by adding their counts: hourly rollups
 * (per monitor, node and hour) add up to any longer bucket, any set of nodes or countries.
 *
 * Stored packed in an int4[] (check_rollups.rt_hist): one entry per non-empty bucket,
 * `index << 22 | count`. The SQL twin of bucketIndex is check_rt_bucket() (migration
 * 0025_checks.sql); both must stay the same formula.
 */

/** Relative accuracy of a quantile read from a histogram. */
export const HISTOGRAM_ALPHA = 0.02;
/** Values at or below this (ms) share bucket 0. */
export const HISTOGRAM_MIN_MS = 0.01;
/** Highest bucket index (values above MIN_MS * GAMMA^511, about 2 hours, share it). */
export const HISTOGRAM_MAX_INDEX = 511;
const GAMMA = (1 + HISTOGRAM_ALPHA) / (1 - HISTOGRAM_ALPHA);
const LN_GAMMA = Math.log(GAMMA);
const COUNT_BITS = 22;
const COUNT_MAX = 2 ** COUNT_BITS - 1;

/** Bucket counts by index. */
export type Histogram = Map<number, number>;

/** The bucket a response time (ms) falls in. */
export function bucketIndex(ms: number): number {
  if (!(ms > HISTOGRAM_MIN_MS)) return 0;
  return Math.min(HISTOGRAM_MAX_INDEX, Math.ceil(Math.log(ms / HISTOGRAM_MIN_MS) / LN_GAMMA));
}

/**
 * The value (ms) a bucket stands for: the point within ALPHA of both of its bounds (DDSketch's
 * 2 * GAMMA^i / (GAMMA + 1)); bucket 0 stands for MIN_MS.
 */
export function bucketValue(index: number): number {
  if (index <= 0) return HISTOGRAM_MIN_MS;
  return (HISTOGRAM_MIN_MS * 2 * GAMMA ** index) / (GAMMA + 1);
}

/** Add `count` samples of bucket `index` to `h`. */
export function addToHistogram(h: Histogram, index: number, count = 1): void {
  h.set(index, (h.get(index) ?? 0) + count);
}

/** Add every count of `from` to `into`. */
export function mergeHistogram(into: Histogram, from: Histogram): void {
  for (const [i, n] of from) addToHistogram(into, i, n);
}

/**
 * Packed form (int4[]): `index << 22 | count` per non-empty bucket, ascending. A count above
 * 2^22 - 1 (no hourly row comes near: one node checks a monitor at most 60 times an hour) is
 * split over several entries of the same index, so nothing is lost.
 */
export function packHistogram(h: Histogram): number[] {
  const out: number[] = [];
  for (const i of [...h.keys()].sort((a, b) => a - b)) {
    let n = h.get(i)!;
    while (n > 0) {
      const part = Math.min(n, COUNT_MAX);
      out.push(i * 2 ** COUNT_BITS + part);
      n -= part;
    }
  }
  return out;
}

/** Add the packed entries `packed` (see packHistogram) to `into` (a new histogram when not given). */
export function unpackHistogram(packed: readonly number[], into: Histogram = new Map()): Histogram {
  for (const v of packed) addToHistogram(into, Math.floor(v / 2 ** COUNT_BITS), v % 2 ** COUNT_BITS);
  return into;
}

/** Number of samples in `h`. */
export function histogramCount(h: Histogram): number {
  let n = 0;
  for (const c of h.values()) n += c;
  return n;
}

/**
 * The `q`-quantile (0..1) of `h`, ms: the value of the bucket holding the sample of rank
 * ceil(q * n) (nearest rank), clamped to [`min_ms`, `max_ms`] when those exact bounds are known.
 * @returns null for an empty histogram
 */
export function histogramQuantile(h: Histogram, q: number, min_ms?: number | null, max_ms?: number | null): number | null {
  return histogramQuantiles(h, [q], min_ms, max_ms)[0]!;
}

/**
 * Several quantiles of `h` at once, as {@link histogramQuantile} gives each, in the order of
 * `qs`, from one pass over the buckets in order (a stats bucket asks for p50, p95 and p99).
 * @returns one value per quantile, ms; all null for an empty histogram
 */
export function histogramQuantiles(h: Histogram, qs: readonly number[], min_ms?: number | null, max_ms?: number | null): Array<number | null> {
  const n = histogramCount(h);
  if (n === 0) return qs.map(() => null);
  const ranks = qs.map((q) => Math.max(1, Math.ceil(q * n)));
  const out: number[] = qs.map(() => 0);
  const indices = [...h.keys()].sort((a, b) => a - b);
  let seen = 0;
  let left = qs.length;
  for (let k = 0; k < indices.length && left > 0; k++) {
    const i = indices[k]!;
    const before = seen;
    seen += h.get(i)!;
    for (let j = 0; j < ranks.length; j++) {
      if (ranks[j]! > before && ranks[j]! <= seen) {
        out[j] = bucketValue(i);
        left--;
      }
    }
  }
  return out.map((v) => (min_ms != null && v < min_ms ? min_ms : max_ms != null && v > max_ms ? max_ms : v));
}
