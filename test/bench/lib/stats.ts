/** Small statistics for benchmark scripts: figures are printed, never asserted. */

/** Median of `xs` (mean of the two middle values for an even count); NaN for an empty list. */
export function median(xs: number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * Nearest-rank quantile of `xs` (`q` in 0..1): the smallest value with at least q·n values at or
 * below it (the p95 of 30 samples is the 29th smallest). NaN for an empty list.
 */
export function quantile(xs: number[], q: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}

/** Arithmetic mean; NaN for an empty list. */
export function mean(xs: number[]): number {
  return xs.length === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** `x` with `digits` decimals, or an em dash when it is not a finite number. */
export function fmt(x: number, digits = 1): string {
  return Number.isFinite(x) ? x.toFixed(digits) : '—';
}
