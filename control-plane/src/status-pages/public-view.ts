import type { MonitorState, PublicIncident, PublicStatusPage, PublicUptimeDay } from '@vantage/shared-protocol';
import { nextOccurrenceStart, occurrenceAt, windowCovers } from '../alerting/windows.js';
import { roundRollupDays, type RoundRollupDay } from '../checks/history.db.js';
import type { SqlExecutor } from '../contracts.js';
import { listUpdates, pageIncidents } from '../incidents/incidents.db.js';
import { toIncidentUpdate } from '../incidents/incident-view.js';
import type { MaintenanceWindowRow } from '../alerting/maintenance-windows.db.js';
import { shownMonitors, windowsBetween, type ShownMonitor } from './public-view.db.js';
import { listComponents, type StatusPageRow } from './status-pages.db.js';

type Level = PublicUptimeDay['level'];
const DAY_MS = 86_400_000;
/** How far ahead scheduled maintenance is announced (the longest advance notice a window takes, 10080 minutes). */
export const MAINTENANCE_AHEAD_MS = 7 * DAY_MS;
/** At most this many incidents on a page (open ones first in time order, then resolved ones). */
const INCIDENTS_MAX = 50;
const RANK: Record<Level, number> = { no_data: 0, up: 1, maintenance: 2, degraded: 3, down: 4 };
const worst = (levels: Level[]): Level => levels.reduce<Level>((a, b) => (RANK[b] > RANK[a] ? b : a), 'no_data');

/** A monitor's state as a page shows it: paused and pending have no data to show. */
export function publicState(state: MonitorState): Level {
  return state === 'paused' || state === 'pending' ? 'no_data' : state;
}

type Sums = Pick<RoundRollupDay, 'up_s' | 'degraded_s' | 'down_s' | 'maintenance_s' | 'no_data_s'>;

/**
 * One day of a bar from its summed round rollups (docs/api/status-pages.md "Uptime bars"): `down`
 * when any round was down, else `degraded` when any was, else `up`; with no judged round,
 * `maintenance` when the day had maintenance, else `no_data`. Uptime counts degraded as up, over
 * the judged time only.
 */
export function dayOf(date: string, s: Sums): PublicUptimeDay {
  const monitored = s.up_s + s.degraded_s + s.down_s;
  const level: Level = monitored === 0 ? (s.maintenance_s > 0 ? 'maintenance' : 'no_data') : s.down_s > 0 ? 'down' : s.degraded_s > 0 ? 'degraded' : 'up';
  return {
    date, level, uptime_percent: monitored > 0 ? Math.round(((s.up_s + s.degraded_s) / monitored) * 1e5) / 1e3 : null,
    up_s: Math.round(s.up_s), degraded_s: Math.round(s.degraded_s), down_s: Math.round(s.down_s),
    maintenance_s: Math.round(s.maintenance_s), no_data_s: Math.round(s.no_data_s),
  };
}

/** A maintenance occurrence a page announces: the window, its advance notice, the components it covers. */
export interface PageMaintenance {
  window_id: string;
  title: string | null;
  starts_at: Date;
  ends_at: Date;
  advance_notice_minutes: number;
  component_ids: string[];
}

/**
 * The occurrences of the owner's maintenance `windows` (public-view.db.ts windowsBetween, from
 * `now` to 7 days on) that cover a monitor of a component (`membersOf`): the one running at
 * `now`, else the next one starting within 7 days, by start.
 */
export function pageMaintenance(
  found: { windows: MaintenanceWindowRow[]; time_zone: string }, components: Array<{ id: string; monitor_id: string | null; group_id: string | null }>,
  membersOf: (c: { monitor_id: string | null; group_id: string | null }) => ShownMonitor[], now: Date,
): PageMaintenance[] {
  const horizon = now.getTime() + MAINTENANCE_AHEAD_MS;
  return found.windows.flatMap((w) => {
    const covered = components.filter((c) => membersOf(c).some((m) => windowCovers(w, m))).map((c) => c.id);
    if (covered.length === 0) return [];
    const current = occurrenceAt(w, found.time_zone, now);
    const next = current ? null : nextOccurrenceStart(w, found.time_zone, now);
    const occurrence = current ?? (next && next.getTime() < horizon ? { starts_at: next, ends_at: new Date(next.getTime() + w.ends_at.getTime() - w.starts_at.getTime()) } : null);
    return occurrence ? [{ window_id: w.id, title: w.title, ...occurrence, advance_notice_minutes: w.advance_notice_minutes, component_ids: covered }] : [];
  }).sort((a, b) => a.starts_at.getTime() - b.starts_at.getTime());
}

/** The UTC dates (YYYY-MM-DD) of the `days` days ending with the day of `now`, oldest first. */
export function historyDates(now: Date, days: number): string[] {
  const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  return Array.from({ length: days }, (_, i) => new Date(today - (days - 1 - i) * DAY_MS).toISOString().slice(0, 10));
}

/**
 * Everything the public page of `page` shows at `now` (docs/api/status-pages.md "The public
 * page"): per component its current state (its monitors' worst) and one bar per UTC day from
 * the stored hourly round rollups (never the raw checks); open incidents, incidents resolved in
 * the history span with their published postmortems; maintenance windows covering a component's
 * monitor, active now or starting within 7 days.
 */
export async function buildPublicView(sql: SqlExecutor, page: StatusPageRow, now: Date): Promise<PublicStatusPage> {
  const dates = historyDates(now, page.history_days);
  const from = new Date(`${dates[0]}T00:00:00Z`);
  const to = new Date(Date.parse(`${dates[dates.length - 1]}T00:00:00Z`) + DAY_MS);
  const components = await listComponents(sql, [page.id]);
  const monitors = await shownMonitors(sql, components.flatMap((c) => c.monitor_id ?? []), components.flatMap((c) => c.group_id ?? []));
  const [days, incidents, maintenance] = await Promise.all([
    roundRollupDays(sql, monitors.map((m) => m.id), from, to),
    pageIncidents(sql, page.id, from, INCIDENTS_MAX),
    windowsBetween(sql, page, now, new Date(now.getTime() + MAINTENANCE_AHEAD_MS)),
  ]);
  const updates = await listUpdates(sql, incidents.map((i) => i.id));
  const membersOf = (c: { monitor_id: string | null; group_id: string | null }): ShownMonitor[] =>
    monitors.filter((m) => (c.monitor_id !== null ? m.id === c.monitor_id : m.group_id === c.group_id));

  const shown = components.map((c) => {
    const members = membersOf(c);
    const ids = new Set(members.map((m) => m.id));
    const byDate = new Map<string, Sums>();
    for (const d of days) {
      if (!ids.has(d.monitor_id)) continue;
      const s = byDate.get(d.day) ?? { up_s: 0, degraded_s: 0, down_s: 0, maintenance_s: 0, no_data_s: 0 };
      for (const k of ['up_s', 'degraded_s', 'down_s', 'maintenance_s', 'no_data_s'] as const) s[k] += d[k];
      byDate.set(d.day, s);
    }
    const bar = dates.map((date) => dayOf(date, byDate.get(date) ?? { up_s: 0, degraded_s: 0, down_s: 0, maintenance_s: 0, no_data_s: 0 }));
    const up = bar.reduce((a, d) => a + d.up_s + d.degraded_s, 0);
    const monitored = bar.reduce((a, d) => a + d.up_s + d.degraded_s + d.down_s, 0);
    return {
      id: c.id, name: c.display_name, section: c.section, state: worst(members.map((m) => publicState(m.state))),
      uptime_percent: monitored > 0 ? Math.round((up / monitored) * 1e5) / 1e3 : null, days: bar,
    };
  });

  const onPage = new Set(components.map((c) => c.id));
  const toPublic = (i: (typeof incidents)[number]): PublicIncident => ({
    id: i.id, title: i.title, status: i.status, impact: i.impact, component_ids: i.component_ids.filter((id) => onPage.has(id)),
    started_at: i.started_at.toISOString(), resolved_at: i.resolved_at?.toISOString() ?? null,
    updates: updates.filter((u) => u.incident_id === i.id).map(toIncidentUpdate), postmortem_md: i.postmortem_md,
  });

  const windows = pageMaintenance(maintenance, components, membersOf, now)
    .map(({ title, starts_at, ends_at, component_ids }) => ({ title, starts_at: starts_at.toISOString(), ends_at: ends_at.toISOString(), component_ids }));

  return {
    slug: page.slug, title: page.title, description: page.description, theme: page.theme, logo_url: page.logo_url, history_days: page.history_days,
    status: worst(shown.map((c) => c.state)), components: shown,
    active_incidents: incidents.filter((i) => i.status !== 'resolved').map(toPublic),
    maintenance: windows,
    past_incidents: incidents.filter((i) => i.status === 'resolved').map(toPublic),
    generated_at: now.toISOString(),
  };
}
