import type { MaintenanceCalendar, SqlExecutor } from '../contracts.js';
import type { MaintenanceWindowRow } from './maintenance-windows.db.js';
import { isInMaintenance, type MonitorRef } from './windows.js';

/** The monitors `ids` (scope facts and the owner's time zone) and their owners' windows, in one read. */
async function windowFacts(tx: SqlExecutor, ids: string[]): Promise<{ monitors: Map<string, MonitorRef & { user_id: string; tz: string }>; windows: Map<string, MaintenanceWindowRow[]> }> {
  const rows = await tx<Array<MonitorRef & { user_id: string; tz: string }>>`
    SELECT m.id, m.user_id, m.group_id, m.tags, u.timezone AS tz FROM monitors m JOIN users u ON u.id = m.user_id WHERE m.id = ANY(${ids}::text[])`;
  const owners = [...new Set(rows.map((r) => r.user_id))];
  const windows = owners.length === 0 ? [] : await tx<MaintenanceWindowRow[]>`SELECT * FROM maintenance_windows WHERE user_id = ANY(${owners}::text[])`;
  const byOwner = new Map<string, MaintenanceWindowRow[]>();
  for (const w of windows) byOwner.set(w.user_id, [...(byOwner.get(w.user_id) ?? []), w]);
  return { monitors: new Map(rows.map((r) => [r.id, r])), windows: byOwner };
}

/**
 * The maintenance windows as the check history sees them (contracts.ts MaintenanceCalendar): a
 * round is in maintenance when a window of the monitor's owner covers the monitor and has an
 * occurrence containing the round's start (windows.ts isInMaintenance, in the owner's time zone).
 */
export function createMaintenanceCalendar(): MaintenanceCalendar {
  return {
    async covered(tx, rounds) {
      const out = new Set<string>();
      if (rounds.length === 0) return out;
      const { monitors, windows } = await windowFacts(tx, [...new Set(rounds.map((r) => r.monitor_id))]);
      for (const r of rounds) {
        const m = monitors.get(r.monitor_id);
        const ws = m ? windows.get(m.user_id) : undefined;
        if (m && ws && isInMaintenance(m, ws, m.tz, r.at)) out.add(`${r.monitor_id}/${r.at.getTime()}`);
      }
      return out;
    },
  };
}
