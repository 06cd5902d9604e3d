import { pruneEndedSessions } from '../accounts/sessions.db.js';
import type { Sql } from '../db/sql.js';
import type { Logger } from '../log.js';

/** Sessions are kept this long after they end (expiry or logout), ms: a week for support questions. */
export const ENDED_SESSION_KEEP_MS = 7 * 24 * 3600_000;
/** How often ended sessions are pruned, ms. */
const PRUNE_EVERY_MS = 3600_000;

/**
 * Delete sessions ended more than ENDED_SESSION_KEEP_MS ago, with the refresh-token history each
 * keeps for reuse detection (one row per rotation, so it would otherwise grow with every refresh
 * for ever). Runs at start and hourly on every instance; the DELETE is idempotent, so instances
 * need no coordination.
 * @returns stop(): clears the timer
 */
export function startSessionPruner(deps: { sql: Sql; log: Logger }): () => void {
  const log = deps.log.child({ module: 'jobs.prune-sessions' });
  const prune = () => {
    pruneEndedSessions(deps.sql, new Date(Date.now() - ENDED_SESSION_KEEP_MS))
      .then((n) => { if (n > 0) log.info({ deleted: n }, 'ended sessions pruned'); })
      .catch((err) => log.warn({ err }, 'session prune failed'));
  };
  prune();
  const timer = setInterval(prune, PRUNE_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
