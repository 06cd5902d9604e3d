import type { MonitorAssignments } from '../contracts.js';
import type { Sql } from '../db/sql.js';
import { wasPlaced } from './assignments.db.js';
import { PLACEMENT_HISTORY_MS } from './placement-job.js';

/** A yes is remembered this long, ms: a node reports each of its monitors every round. */
const CACHE_MS = 60_000;
/** Remembered answers at most (then the memory starts over). */
const CACHE_MAX = 200_000;

/**
 * MonitorAssignments (contracts.ts) from placement: a node may report a monitor that is placed on
 * it, or was until less than PLACEMENT_HISTORY_MS ago (results it buffered while it ran the
 * monitor, e.g. while the control plane was unreachable, still count). A deleted monitor's
 * placements are gone, so its results are refused. Yes answers are cached for CACHE_MS.
 */
export function monitorAssignments(sql: Sql): MonitorAssignments {
  const yes = new Map<string, number>();
  return {
    async mayReport(node_id, monitor_id) {
      const key = `${node_id}/${monitor_id}`;
      const until = yes.get(key);
      if (until !== undefined && until > Date.now()) return true;
      const ok = await wasPlaced(sql, node_id, monitor_id, PLACEMENT_HISTORY_MS);
      if (ok) {
        if (yes.size >= CACHE_MAX) yes.clear();
        yes.set(key, Date.now() + CACHE_MS);
      } else yes.delete(key);
      return ok;
    },
  };
}
