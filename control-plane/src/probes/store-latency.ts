/**
 * How long storing node results takes now: the slowest write since the last {@link take}, a
 * write still in flight counted by its age. Load shedding reads it once per window
 * (middleware/load-shed.ts `result_store_ms`): results waiting long to be stored is the probe
 * pipeline falling behind, even while a `SELECT 1` through the pool is still quick (a serial
 * writer whose statements grow, or the WAL behind).
 */
export class WriteLatency {
  #max_ms = 0;
  readonly #open = new Set<{ t0: number }>();

  /** A write starts now. @returns the function to call once it settled */
  start(): () => void {
    const w = { t0: performance.now() };
    this.#open.add(w);
    return () => {
      if (!this.#open.delete(w)) return;
      this.#max_ms = Math.max(this.#max_ms, performance.now() - w.t0);
    };
  }

  /** The slowest write settled since the last call, or the oldest one still open if older, ms; then starts afresh. */
  take(): number {
    const now = performance.now();
    let max_ms = this.#max_ms;
    for (const w of this.#open) max_ms = Math.max(max_ms, now - w.t0);
    this.#max_ms = 0;
    return max_ms;
  }
}
