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
/** A packed entry is `index * INDEX_UNIT + count` (index << 22 | count). */
const INDEX_UNIT = 2 ** 22;
const COUNT_MAX = INDEX_UNIT - 1;

/**
 * Bucket counts, dense over the range of buckets added to: `counts[k]` samples in bucket
 * `lo + k` (some may be 0); `total` samples in all. A new histogram holds no array, and merging
 * or reading one touches only its range. Change it only through the functions below.
 */
export class Histogram {
  lo = 0;
  counts: number[] = [];
  total = 0;
}

/** The bucket a response time (ms) falls in. */
export function bucketIndex(ms: number): number {
  if (!(ms > HISTOGRAM_MIN_MS)) return 0;
  return Math.min(HISTOGRAM_MAX_INDEX, Math.ceil(Math.log(ms / HISTOGRAM_MIN_MS) / LN_GAMMA));
}

const valueOf = (index: number) => (HISTOGRAM_MIN_MS * 2 * GAMMA ** index) / (GAMMA + 1);
const BUCKET_VALUES = Array.from({ length: HISTOGRAM_MAX_INDEX + 1 }, (_, i) => valueOf(i));

/**
 * The value (ms) a bucket stands for: the point within ALPHA of both of its bounds (DDSketch's
 * 2 * GAMMA^i / (GAMMA + 1)); bucket 0 stands for MIN_MS.
 */
export function bucketValue(index: number): number {
  if (index <= 0) return HISTOGRAM_MIN_MS;
  return BUCKET_VALUES[index] ?? valueOf(index);
}

/** Widen `h`'s range to hold buckets `from` to `to` (indices, from <= to), counts kept. */
function cover(h: Histogram, from: number, to: number): void {
  const n = h.counts.length;
  if (n > 0) {
    if (from >= h.lo && to < h.lo + n) return;
    from = Math.min(from, h.lo);
    to = Math.max(to, h.lo + n - 1);
  }
  const counts = new Array<number>(to - from + 1).fill(0);
  for (let k = 0; k < n; k++) counts[h.lo - from + k] = h.counts[k]!;
  h.lo = from;
  h.counts = counts;
}

/** Add `count` samples of bucket `index` to `h`. */
export function addToHistogram(h: Histogram, index: number, count = 1): void {
  cover(h, index, index);
  h.counts[index - h.lo]! += count;
  h.total += count;
}

/** Add `counts[k]` samples of bucket `indices[k]` to `h`, for every k (parallel arrays). */
export function addCountsToHistogram(h: Histogram, indices: readonly number[], counts: readonly number[]): void {
  if (indices.length === 0) return;
  let from = indices[0]!;
  let to = from;
  for (const i of indices) {
    if (i < from) from = i;
    else if (i > to) to = i;
  }
  cover(h, from, to);
  for (let k = 0; k < indices.length; k++) {
    h.counts[indices[k]! - h.lo]! += counts[k]!;
    h.total += counts[k]!;
  }
}

/** Add every count of `from` to `into`. */
export function mergeHistogram(into: Histogram, from: Histogram): void {
  const n = from.counts.length;
  if (n === 0) return;
  cover(into, from.lo, from.lo + n - 1);
  const at = from.lo - into.lo;
  for (let k = 0; k < n; k++) into.counts[at + k]! += from.counts[k]!;
  into.total += from.total;
}

/**
 * Packed form (int4[]): `index << 22 | count` per non-empty bucket, ascending. A count above
 * 2^22 - 1 (no hourly row comes near: one node checks a monitor at most 60 times an hour) is
 * split over several entries of the same index, so nothing is lost.
 */
export function packHistogram(h: Histogram): number[] {
  const out: number[] = [];
  h.counts.forEach((c, k) => {
    for (let n = c; n > 0; n -= COUNT_MAX) out.push((h.lo + k) * INDEX_UNIT + Math.min(n, COUNT_MAX));
  });
  return out;
}

/** Add the packed entries `packed` (see packHistogram) to `into` (a new histogram when not given). */
export function unpackHistogram(packed: readonly number[], into = new Histogram()): Histogram {
  // Two passes over the entries (their range, then their counts) instead of parallel arrays for
  // addCountsToHistogram: a 90-day stats read unpacks a few hundred rollup rows, and those arrays
  // were the largest allocation of the read (about a fifth of its bytes).
  const n = packed.length;
  if (n === 0) return into;
  let from = Math.floor(packed[0]! / INDEX_UNIT);
  let to = from;
  for (let k = 1; k < n; k++) {
    const i = Math.floor(packed[k]! / INDEX_UNIT);
    if (i < from) from = i;
    else if (i > to) to = i;
  }
  cover(into, from, to);
  for (let k = 0; k < n; k++) {
    const v = packed[k]!;
    const c = v % INDEX_UNIT;
    into.counts[Math.floor(v / INDEX_UNIT) - into.lo]! += c;
    into.total += c;
  }
  return into;
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
  const n = h.total;
  const out = new Array<number | null>(qs.length).fill(null);
  if (n === 0) return out;
  let seen = 0;
  let left = qs.length;
  for (let k = 0; k < h.counts.length && left > 0; k++) {
    const before = seen;
    seen += h.counts[k]!;
    for (let j = 0; j < qs.length; j++) {
      // The rank of quantile j (nearest rank, at least 1).
      const rank = Math.max(1, Math.ceil(qs[j]! * n));
      if (rank > before && rank <= seen) {
        const v = bucketValue(h.lo + k);
        out[j] = min_ms != null && v < min_ms ? min_ms : max_ms != null && v > max_ms ? max_ms : v;
        left--;
      }
    }
  }
  return out;
}
