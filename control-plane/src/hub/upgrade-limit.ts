import type { RateCount } from '../db/rate-limit.js';

/** Most source addresses an instance tracks at once; past it, windows that ended are dropped first. */
const MAX_TRACKED = 100_000;

/**
 * Fixed-window count of WebSocket upgrade requests per source address, kept in this instance's
 * memory (docs/architecture/hub.md, rate limits). Upgrades come in storms (every node of a
 * restarted control plane reconnects within seconds): a Postgres UPSERT per upgrade made them
 * queue on one counter row (every node behind one NAT, or a test host, shares it) and miss the
 * upgrade decision deadline. The limit therefore holds per instance, not per deployment: N
 * instances admit up to N times `limit` from one address per window.
 */
export class UpgradeCounter {
  readonly #window_ms: number;
  readonly #counts = new Map<string, { window_start: number; count: number }>();

  /** @param window_s window length, seconds (windows aligned on the epoch like the shared limiter's) */
  constructor(window_s: number) {
    this.#window_ms = window_s * 1000;
  }

  /** Count one upgrade from `address` now. @returns the count in the current window and when it resets */
  hit(address: string, now_ms = Date.now()): RateCount {
    const window_start = Math.floor(now_ms / this.#window_ms) * this.#window_ms;
    let entry = this.#counts.get(address);
    if (!entry || entry.window_start !== window_start) {
      if (!entry && this.#counts.size >= MAX_TRACKED) this.#prune(window_start);
      entry = { window_start, count: 0 };
      this.#counts.set(address, entry);
    }
    entry.count += 1;
    return { count: entry.count, reset_at: new Date(window_start + this.#window_ms) };
  }

  /** Drop windows that ended; if every tracked window is current, drop the oldest-inserted half. */
  #prune(current_start: number): void {
    for (const [address, e] of this.#counts) if (e.window_start < current_start) this.#counts.delete(address);
    if (this.#counts.size < MAX_TRACKED) return;
    let drop = Math.floor(this.#counts.size / 2);
    for (const address of this.#counts.keys()) {
      if (drop-- <= 0) break;
      this.#counts.delete(address);
    }
  }
}
