import { addRateLimitHits, hitRateLimit, type RateCount } from '../db/rate-limit.js';
import type { Sql } from '../db/sql.js';
import type { Logger } from '../log.js';

/** One bucket's window as this instance knows it. */
interface Window {
  /** Start of the fixed window (database clock), ms since the epoch. */
  start_ms: number;
  reset_at: Date;
  /** The shared count as of this instance's last write of the bucket. */
  shared: number;
  /** Requests this instance counted since then, not yet written. */
  pending: number;
}

/** Buckets a {@link RateCounter} keeps at most; past it new buckets are counted in Postgres per request. */
const BUCKETS_MAX = 100_000;

/**
 * Fixed-window request counters shared by every instance through Postgres
 * (`rate_limit_counters`), counted in memory between writes (docs/api/conventions.md, rate limits).
 *
 * - `sync_ms = 0`: every request is one upsert ({@link hitRateLimit}), exact across instances.
 * - `sync_ms > 0`: a bucket's first request in a window (on this instance) is one upsert, which
 *   returns the shared count; later requests are counted here, on top of that count, and written
 *   for every bucket at once within `sync_ms` (one statement, {@link addRateLimitHits}), which
 *   brings back the other instances' counts. One instance is exact; several together admit at
 *   most what the other instances counted in their last `sync_ms` beyond the limit (the same
 *   bound as a shared-store limiter with a sync interval, e.g. Kong's `sync_rate`). Counts not yet
 *   written when the process dies are lost, as counts are advisory.
 *
 * Concurrent first requests of a bucket share its upsert. Windows that ended are forgotten at the
 * next write; at most BUCKETS_MAX buckets are held, beyond which new buckets take the upsert path.
 */
export class RateCounter {
  readonly #windows = new Map<string, Window>();
  readonly #reading = new Map<string, Promise<RateCount>>();
  /** Buckets with pending counts. */
  readonly #dirty = new Set<string>();
  #pruned_at = Date.now();
  #timer: NodeJS.Timeout | null = null;
  #writing = false;

  /**
   * @param window_s window length, seconds
   * @param sync_ms longest time a count stays unwritten, ms (0 = write every request)
   */
  constructor(private readonly sql: Sql, readonly window_s: number, readonly sync_ms: number, private readonly log: Pick<Logger, 'warn'>) {}

  /** Count one request in `bucket`. @returns the bucket's count (this request included) and the window's end */
  async hit(bucket: string): Promise<RateCount> {
    if (this.sync_ms === 0) return hitRateLimit(this.sql, bucket, this.window_s);
    const known = this.#windows.get(bucket);
    if (known && known.reset_at.getTime() > Date.now()) {
      known.pending += 1;
      this.#dirty.add(bucket);
      this.#schedule();
      return { count: known.shared + known.pending, reset_at: known.reset_at };
    }
    const reading = this.#reading.get(bucket);
    if (reading) {
      await reading.catch(() => {});
      return this.hit(bucket);
    }
    const read = hitRateLimit(this.sql, bucket, this.window_s);
    this.#reading.set(bucket, read);
    try {
      const counted = await read;
      if (this.#windows.size >= BUCKETS_MAX) this.#prune();
      if (this.#windows.size < BUCKETS_MAX || this.#windows.has(bucket)) {
        this.#windows.set(bucket, { start_ms: counted.reset_at.getTime() - this.window_s * 1000, reset_at: counted.reset_at, shared: counted.count, pending: 0 });
      }
      return counted;
    } finally {
      this.#reading.delete(bucket);
    }
  }

  /** Write every pending count now (also what the timer does). Failures are logged; their counts are dropped. */
  async flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#writing) return;
    const now = Date.now();
    if (now - this.#pruned_at > this.window_s * 1000) this.#prune();
    const batch: Array<{ bucket: string; window_start: Date; hits: number }> = [];
    for (const bucket of this.#dirty) {
      const w = this.#windows.get(bucket);
      // A window that ended is not written: its count no longer limits anything.
      if (w && w.pending > 0 && w.reset_at.getTime() > now) batch.push({ bucket, window_start: new Date(w.start_ms), hits: w.pending });
    }
    this.#dirty.clear();
    if (batch.length === 0) return;
    this.#writing = true;
    try {
      const shared = await addRateLimitHits(this.sql, batch);
      for (const { bucket, hits, window_start } of batch) {
        const w = this.#windows.get(bucket);
        if (!w || w.start_ms !== window_start.getTime()) continue;
        w.pending -= hits;
        const row = shared.get(bucket);
        if (row && row.window_start.getTime() === w.start_ms) w.shared = row.count;
        else w.shared += hits;
      }
    } catch (err) {
      this.log.warn({ err, buckets: batch.length }, 'rate-limit counts not written; dropped');
      for (const { bucket, hits } of batch) {
        const w = this.#windows.get(bucket);
        if (w) w.pending = Math.max(0, w.pending - hits);
      }
    } finally {
      this.#writing = false;
    }
    // Requests counted while this write was on its way (their buckets are dirty again).
    if (this.#dirty.size > 0) this.#schedule();
  }

  /** Forget the windows that ended. */
  #prune(): void {
    const now = Date.now();
    this.#pruned_at = now;
    for (const [bucket, w] of this.#windows) if (w.reset_at.getTime() <= now) this.#windows.delete(bucket);
  }

  #schedule(): void {
    if (this.#timer) return;
    this.#timer = setTimeout(() => void this.flush(), this.sync_ms);
    this.#timer.unref();
  }
}
