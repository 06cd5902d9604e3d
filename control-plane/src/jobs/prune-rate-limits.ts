import type { Config } from '../config/index.js';
import { pruneRateLimits } from '../db/rate-limit.js';
import type { Sql } from '../db/sql.js';
import type { Logger } from '../log.js';

/**
 * Delete rate-limit counters of windows that ended (one row per bucket and window, so per-IP
 * buckets would otherwise grow without bound). Runs every window on every instance; the DELETE is
 * idempotent, so instances need no coordination. Windows older than two lengths are removed.
 * @returns stop(): clears the timer
 */
export function startRateLimitPruner(deps: { sql: Sql; log: Logger; config: Pick<Config, 'rate_limit_window_s'> }): () => void {
  const window_ms = deps.config.rate_limit_window_s * 1000;
  const log = deps.log.child({ module: 'jobs.prune-rate-limits' });
  const timer = setInterval(() => {
    pruneRateLimits(deps.sql, new Date(Date.now() - 2 * window_ms))
      .then((n) => { if (n > 0) log.debug({ deleted: n }, 'rate-limit windows pruned'); })
      .catch((err) => log.warn({ err }, 'rate-limit prune failed'));
  }, Math.max(window_ms, 10_000));
  timer.unref();
  return () => clearInterval(timer);
}
