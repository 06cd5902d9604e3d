/**
 * Paired, interleaved comparison of one of our measurements with a reference tool's: each pair
 * runs both back to back, the order alternating from pair to pair so neither side always follows
 * the other (a process exit, a GC). The figure is the median of the paired differences
 * (ours − reference), which cancels what both sides share (the path, the server, the machine's
 * load at that moment) and leaves what our measurement adds.
 */
import { median } from './stats.js';

/** What `pairs` measured: every pair's two values (ms) and their medians. */
export interface PairedFigure {
  ours: number[];
  reference: number[];
  /** Medians of each side and of the paired differences, ms. */
  ours_median: number;
  reference_median: number;
  diff_median: number;
  n: number;
  /** Recorded pairs dropped because that side had no answer. */
  dropped: { ours: number; reference: number };
}

/**
 * Run `n` pairs of `ours()` and `reference()` after `warmup` unrecorded pairs. A side that
 * returns null (no answer this time) drops that pair. Never runs two measurements at once.
 */
export async function pairs(n: number, warmup: number, ours: () => Promise<number | null>, reference: () => Promise<number | null>): Promise<PairedFigure> {
  const a: number[] = [];
  const b: number[] = [];
  const dropped = { ours: 0, reference: 0 };
  for (let i = 0; i < warmup + n; i++) {
    let x: number | null;
    let y: number | null;
    if (i % 2 === 0) {
      x = await ours();
      y = await reference();
    } else {
      y = await reference();
      x = await ours();
    }
    if (i < warmup) continue;
    if (x === null) dropped.ours++;
    if (y === null) dropped.reference++;
    if (x === null || y === null) continue;
    a.push(x);
    b.push(y);
  }
  return { ours: a, reference: b, ours_median: median(a), reference_median: median(b), diff_median: median(a.map((x, i) => x - b[i]!)), n: a.length, dropped };
}
