import type { MonitorState } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';
import type { OwnerScope } from '../teams/authorize.js';
import { ownedBy } from '../teams/owner-scope.db.js';

/*
 * Reads that dashboard widgets need and no other feature had: several monitors' uptime at once,
 * from the round rollups only (0025 round_rollups, 0063 round_rollups_daily), never from raw
 * checks or rounds. Single-monitor reads are the checks feature's (checks/history.db.ts).
 */

/** A monitor as widgets name it. */
export interface WidgetMonitor {
  id: string;
  name: string;
  state: MonitorState;
}

/**
 * The monitors of `scope` (a dashboard's owner), by name: `ids` of them only when given (in any
 * order; ids that are not the owner's are left out), else all of them, at most `limit`.
 */
export async function ownerMonitors(ex: SqlExecutor, scope: OwnerScope, ids: string[] | undefined, limit: number): Promise<WidgetMonitor[]> {
  return ex<WidgetMonitor[]>`
    SELECT id, name, state FROM monitors
    WHERE ${ownedBy(ex, scope)} ${ids ? ex`AND id = ANY(${ids}::text[])` : ex``}
    ORDER BY name, id LIMIT ${limit}`;
}

/** Seconds by verdict over a range (round_rollups counters). */
export interface UptimeSeconds {
  up_s: number;
  degraded_s: number;
  down_s: number;
  maintenance_s: number;
  no_data_s: number;
}

const SUMS = (ex: SqlExecutor) => ex`
  sum(up_s)::float8 AS up_s, sum(degraded_s)::float8 AS degraded_s, sum(down_s)::float8 AS down_s,
  sum(maintenance_s)::float8 AS maintenance_s, sum(no_data_s)::float8 AS no_data_s`;

/**
 * Where the hour-aligned range [from, to) is read: whole UTC days from round_rollups_daily, the
 * hours before the first and after the last whole day from round_rollups (checks/uptime.ts
 * rollupRanges' split). 90 days read 90 daily rows and at most 46 hourly rows per monitor.
 * (`= ANY(ids)` measured faster here than `IN (SELECT unnest(ids))`, whose per-monitor index
 * scans cost 3-4 times more for 1,000 monitors.)
 */
function rollupParts(ex: SqlExecutor, monitors: ReturnType<SqlExecutor>, days: [Date, Date] | null, hours: Array<[Date, Date]>) {
  return [
    ...(days ? [ex`SELECT monitor_id, day AS at, up_s, degraded_s, down_s, maintenance_s, no_data_s FROM round_rollups_daily
      WHERE ${monitors} AND day >= ${days[0]} AND day < ${days[1]}`] : []),
    ...hours.map(([a, b]) => ex`SELECT monitor_id, hour AS at, up_s, degraded_s, down_s, maintenance_s, no_data_s FROM round_rollups
      WHERE ${monitors} AND hour >= ${a} AND hour < ${b}`),
  ];
}

/**
 * The uptime seconds of each of `monitor_ids` summed over the hour-aligned range (`days` and
 * `hours` as checks/uptime.ts rollupRanges splits it), one statement. Monitors without any
 * rollup row are absent.
 */
export async function uptimeTotals(ex: SqlExecutor, monitor_ids: string[], days: [Date, Date] | null, hours: Array<[Date, Date]>): Promise<Array<UptimeSeconds & { monitor_id: string }>> {
  const parts = rollupParts(ex, ex`monitor_id = ANY(${monitor_ids}::text[])`, days, hours);
  if (monitor_ids.length === 0 || parts.length === 0) return [];
  return ex<Array<UptimeSeconds & { monitor_id: string }>>`
    SELECT monitor_id, ${SUMS(ex)} FROM (${parts.reduce((a, b) => ex`${a} UNION ALL ${b}`)}) x GROUP BY monitor_id`;
}

/**
 * The uptime seconds of each of `monitor_ids` per bucket of `bucket_s` seconds aligned to the
 * epoch (3600: hours, 86400: UTC days), over the hour-aligned range split as for
 * {@link uptimeTotals}. `b` is the bucket's start, epoch seconds. Empty buckets are absent.
 */
export async function uptimeBuckets(
  ex: SqlExecutor, monitor_ids: string[], days: [Date, Date] | null, hours: Array<[Date, Date]>, bucket_s: number,
): Promise<Array<UptimeSeconds & { monitor_id: string; b: number }>> {
  const parts = rollupParts(ex, ex`monitor_id = ANY(${monitor_ids}::text[])`, days, hours);
  if (monitor_ids.length === 0 || parts.length === 0) return [];
  return ex<Array<UptimeSeconds & { monitor_id: string; b: number }>>`
    SELECT monitor_id, (floor(extract(epoch FROM at) / ${bucket_s}) * ${bucket_s})::float8 AS b, ${SUMS(ex)}
    FROM (${parts.reduce((a, b) => ex`${a} UNION ALL ${b}`)}) x GROUP BY 1, 2`;
}

/** How many of the owner's alert events started in [from, to), by status (listEvents' scope: the policy's owner). */
export async function alertEventCounts(ex: SqlExecutor, scope: OwnerScope, from: Date, to: Date, monitor_ids?: string[]): Promise<Record<'firing' | 'acknowledged' | 'resolved', number>> {
  const rows = await ex<{ status: 'firing' | 'acknowledged' | 'resolved'; n: number }[]>`
    SELECT e.status, count(*)::int AS n FROM alert_events e JOIN alert_policies p ON p.id = e.policy_id
    WHERE ${ownedBy(ex, scope, 'p')} AND e.started_at >= ${from} AND e.started_at < ${to}
      ${monitor_ids ? ex`AND e.monitor_id = ANY(${monitor_ids}::text[])` : ex``}
    GROUP BY 1`;
  const out = { firing: 0, acknowledged: 0, resolved: 0 };
  for (const r of rows) out[r.status] = r.n;
  return out;
}
