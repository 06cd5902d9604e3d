import type { MaintenanceCalendar, SqlExecutor } from '../contracts.js';
import type { MaintenanceWindowRow } from './maintenance-windows.db.js';
import { isInMaintenance, type MonitorRef } from './windows.js';

type CalendarMonitor = MonitorRef & { user_id: string; team_id: string | null; tz: string };

/** The key of an owner's windows: its team, else its creator's personal windows. */
const ownerKey = (o: { user_id: string; team_id: string | null }) => (o.team_id !== null ? `team:${o.team_id}` : `user:${o.user_id}`);

/**
 * The monitors `ids` (scope facts, owner and its time zone: the team's, else the creator's) and their owners' windows, in
 * one read each: a team monitor's team's windows (whoever created them), a personal monitor's
 * creator's personal windows (a window a member made for the team holds no personal monitor).
 */
async function windowFacts(tx: SqlExecutor, ids: string[]): Promise<{ monitors: Map<string, CalendarMonitor>; windows: Map<string, MaintenanceWindowRow[]> }> {
  const rows = await tx<CalendarMonitor[]>`
    SELECT m.id, m.user_id, m.team_id, m.group_id, m.tags, coalesce(t.time_zone, u.timezone) AS tz
    FROM monitors m JOIN users u ON u.id = m.user_id LEFT JOIN teams t ON t.id = m.team_id WHERE m.id = ANY(${ids}::text[])`;
  const users = [...new Set(rows.filter((r) => r.team_id === null).map((r) => r.user_id))];
  const teams = [...new Set(rows.flatMap((r) => (r.team_id !== null ? [r.team_id] : [])))];
  const windows = rows.length === 0 ? [] : await tx<MaintenanceWindowRow[]>`
    SELECT * FROM maintenance_windows WHERE (team_id IS NULL AND user_id = ANY(${users}::text[])) OR team_id = ANY(${teams}::text[])`;
  const byOwner = new Map<string, MaintenanceWindowRow[]>();
  for (const w of windows) {
    const key = ownerKey({ user_id: w.user_id, team_id: w.team_id ?? null });
    byOwner.set(key, [...(byOwner.get(key) ?? []), w]);
  }
  return { monitors: new Map(rows.map((r) => [r.id, r])), windows: byOwner };
}

/**
 * The maintenance windows as the check history sees them (contracts.ts MaintenanceCalendar): a
 * round is in maintenance when a window of the monitor's owner (its team's for a team monitor, its
 * creator's personal ones otherwise) covers the monitor and has an occurrence containing the
 * round's start (windows.ts isInMaintenance, in the owner's time zone: a team's own, else the
 * creator's; as the alert engine).
 */
export function createMaintenanceCalendar(): MaintenanceCalendar {
  return {
    async covered(tx, rounds) {
      const out = new Set<string>();
      if (rounds.length === 0) return out;
      const { monitors, windows } = await windowFacts(tx, [...new Set(rounds.map((r) => r.monitor_id))]);
      for (const r of rounds) {
        const m = monitors.get(r.monitor_id);
        const ws = m ? windows.get(ownerKey(m)) : undefined;
        if (m && ws && isInMaintenance(m, ws, m.tz, r.at)) out.add(`${r.monitor_id}/${r.at.getTime()}`);
      }
      return out;
    },
  };
}
