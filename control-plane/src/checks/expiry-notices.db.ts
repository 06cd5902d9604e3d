import type { SqlExecutor } from '../contracts.js';

/* SQL of expiry events sent (0042_expiry_notices.sql): one row per (monitor, subject, threshold). */

/**
 * Record that `subject` of `monitor_id` (`cert:…` or `domain:…`) fell below each of
 * `thresholds_days`, in `tx`, skipping thresholds recorded before (by any instance: the primary
 * key decides).
 * @returns the thresholds recorded now; empty when every one was recorded before
 */
export async function recordExpiryCrossings(tx: SqlExecutor, monitor_id: string, subject: string, thresholds_days: number[]): Promise<number[]> {
  if (thresholds_days.length === 0) return [];
  const rows = await tx<{ threshold_days: number }[]>`
    INSERT INTO expiry_notices (monitor_id, subject, threshold_days)
    SELECT ${monitor_id}, ${subject}, d FROM unnest(${thresholds_days}::int[]) AS d
    ON CONFLICT DO NOTHING RETURNING threshold_days`;
  return rows.map((r) => r.threshold_days);
}

/** A monitor as an expiry event names it, with its config (thresholds). */
export interface ExpiryMonitorRow {
  id: string;
  user_id: string;
  name: string;
  type: string;
  target: string | null;
  config: Record<string, unknown>;
}

/** The monitors `ids` that exist (active or paused), for their expiry events. */
export async function expiryMonitors(tx: SqlExecutor, ids: string[]): Promise<ExpiryMonitorRow[]> {
  if (ids.length === 0) return [];
  return tx<ExpiryMonitorRow[]>`SELECT id, user_id, name, type, target, config FROM monitors WHERE id = ANY(${ids}::text[])`;
}
