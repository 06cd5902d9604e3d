import type { MonitorState } from '@vantage/shared-protocol';
import type { MaintenanceWindowRow } from '../alerting/maintenance-windows.db.js';
import type { SqlExecutor } from '../contracts.js';

/** A monitor shown by a page's component (directly, or as a member of a shown group). */
export interface ShownMonitor {
  id: string;
  group_id: string | null;
  tags: string[];
  state: MonitorState;
}

/** The monitors `monitor_ids` and every monitor of `group_ids`, with their current state. */
export async function shownMonitors(ex: SqlExecutor, monitor_ids: string[], group_ids: string[]): Promise<ShownMonitor[]> {
  if (monitor_ids.length === 0 && group_ids.length === 0) return [];
  return ex<ShownMonitor[]>`
    SELECT id, group_id, tags, state FROM monitors
    WHERE id = ANY(${monitor_ids}::text[]) OR group_id = ANY(${group_ids}::text[])`;
}

/**
 * The owner's maintenance windows that can have an occurrence in [from, to), and the owner's
 * time zone (the team's, else the account's) their recurrences follow.
 */
export async function windowsBetween(ex: SqlExecutor, owner: { user_id: string; team_id: string | null }, from: Date, to: Date): Promise<{ windows: MaintenanceWindowRow[]; time_zone: string }> {
  const whose = owner.team_id ? ex`team_id = ${owner.team_id}` : ex`team_id IS NULL AND user_id = ${owner.user_id}`;
  const [windows, tz] = await Promise.all([
    ex<MaintenanceWindowRow[]>`
      SELECT * FROM maintenance_windows WHERE ${whose} AND starts_at < ${to}
        AND (ends_at > ${from} OR (recurrence <> 'none' AND (recurrence_until IS NULL OR recurrence_until + (ends_at - starts_at) > ${from})))`,
    owner.team_id
      ? ex<{ time_zone: string }[]>`SELECT time_zone FROM teams WHERE id = ${owner.team_id}`
      : ex<{ time_zone: string }[]>`SELECT timezone AS time_zone FROM users WHERE id = ${owner.user_id}`,
  ]);
  return { windows, time_zone: tz[0]?.time_zone ?? 'UTC' };
}
