import { LEADERBOARD_METHODOLOGY_VERSION, type LeaderboardEntry } from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';
import type { SqlExecutor } from '../contracts.js';
import { monitorSeries } from '../checks/history.db.js';
import { rollupMarks } from '../checks/jobs.db.js';
import { checkRetention } from '../checks/retention.js';
import { monitorStats } from '../checks/stats.js';
import { monitorUptime } from '../checks/uptime.js';
import { listLeaderboardMonitors, type LeaderboardMonitorRow, type ReportFigures } from './leaderboards.db.js';
import { approvedOptOutVendors } from './opt-outs.db.js';

const DAY_MS = 86_400_000;

/** [first instant, first instant of the next month) of `year`-`month` (UTC). */
export function monthRange(year: number, month: number): { start: Date; end: Date } {
  return { start: new Date(Date.UTC(year, month - 1, 1)), end: new Date(Date.UTC(year, month, 1)) };
}

/** Sort key: higher uptime first (no data last), then lower p95 (none last), then the name. */
function byStanding(a: Omit<LeaderboardEntry, 'rank'>, b: Omit<LeaderboardEntry, 'rank'>): number {
  const ua = a.uptime ?? -1;
  const ub = b.uptime ?? -1;
  if (ua !== ub) return ub - ua;
  const pa = a.p95_ms ?? Number.POSITIVE_INFINITY;
  const pb = b.p95_ms ?? Number.POSITIVE_INFINITY;
  if (pa !== pb) return pa - pb;
  return a.vendor_name.localeCompare(b.vendor_name);
}

/**
 * The figures of the month `year`-`month` under methodology {@link LEADERBOARD_METHODOLOGY_VERSION}
 * (docs/api/leaderboards.md "Methodology"), over [month start, min(month end, now)):
 * the leaderboard monitors are grouped by category and vendor (names compared case-insensitively);
 * a vendor with an approved opt-out is left out and listed in `excluded_vendors`. Per vendor:
 * `uptime` = (up + degraded seconds) / seconds with data, summed over its monitors (the monitors'
 * uptime, checks/uptime.ts); `incidents` = their down spells; p50/p95 of the response time over all
 * its checks, overall and per node country (checks/stats.ts, from the check rollups and histograms).
 * Vendors are ranked within their category by uptime, then p95, then name.
 */
export async function computeFigures(sql: SqlExecutor, config: Config, year: number, month: number, now: Date): Promise<ReportFigures> {
  const { start, end } = monthRange(year, month);
  const to = end < now ? end : now;
  const [marks, opted_out, rollup_marks] = await Promise.all([listLeaderboardMonitors(sql), approvedOptOutVendors(sql), rollupMarks(sql)]);
  const raw_from = new Date(now.getTime() - checkRetention(config).rounds_days * DAY_MS);
  const groups = new Map<string, LeaderboardMonitorRow[]>();
  const excluded = new Map<string, string>();
  for (const m of marks) {
    const vendor = m.vendor_name.toLowerCase();
    if (opted_out.has(vendor)) {
      if (!excluded.has(vendor)) excluded.set(vendor, m.vendor_name);
      continue;
    }
    const key = `${m.category}\u0000${vendor}`;
    groups.set(key, [...(groups.get(key) ?? []), m]);
  }
  const span_s = Math.max(1, Math.ceil((to.getTime() - start.getTime()) / 1000));
  const rows = await Promise.all([...groups.values()].map(async (monitors): Promise<Omit<LeaderboardEntry, 'rank'>> => {
    const [uptimes, series] = await Promise.all([
      Promise.all(monitors.map((m) => monitorUptime(sql, m.monitor_id, start, to, null, raw_from))),
      Promise.all(monitors.map((m) => monitorSeries(sql, m.monitor_id))).then((s) => s.flat()),
    ]);
    const stats = await monitorStats(sql, series, start, to, span_s, 'country', rollup_marks);
    const up_s = uptimes.reduce((n, u) => n + u.up_s + u.degraded_s, 0);
    const monitored_s = uptimes.reduce((n, u) => n + u.monitored_s, 0);
    const uptime = monitored_s > 0 ? up_s / monitored_s : null;
    return {
      category: monitors[0]!.category, vendor_name: monitors[0]!.vendor_name, monitors: monitors.length,
      uptime, uptime_percent: uptime === null ? null : Math.round(uptime * 100_000) / 1000,
      incidents: uptimes.reduce((n, u) => n + u.incidents, 0),
      checks: stats.overall.checks, p50_ms: stats.overall.p50_ms, p95_ms: stats.overall.p95_ms,
      regions: (stats.groups ?? []).map((g) => ({ country: g.country, checks: g.overall.checks, p50_ms: g.overall.p50_ms, p95_ms: g.overall.p95_ms }))
        .sort((a, b) => (a.country ?? '~').localeCompare(b.country ?? '~')),
    };
  }));
  const entries: LeaderboardEntry[] = [];
  for (const category of [...new Set(rows.map((r) => r.category))].sort()) {
    rows.filter((r) => r.category === category).sort(byStanding).forEach((r, i) => entries.push({ rank: i + 1, ...r }));
  }
  return {
    entries, excluded_vendors: [...excluded.values()].sort((a, b) => a.localeCompare(b)),
    data_from: start, data_to: to, computed_at: now, methodology_version: LEADERBOARD_METHODOLOGY_VERSION,
  };
}
