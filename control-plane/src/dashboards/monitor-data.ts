import { DASHBOARD_LIMITS, STATS_BUCKETS_MAX, type Stats, type StatsSummary, type WidgetType } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';
import { rollupMarks, type RollupMarks } from '../checks/jobs.db.js';
import { monitorStatsCells } from '../checks/stats.db.js';
import { autoBucketS, statsOfCells, statsSources } from '../checks/stats.js';
import { rollupRanges } from '../checks/uptime.js';
import { ApiError } from '../errors.js';
import type { OwnerScope } from '../teams/authorize.js';
import { ownerMonitors, uptimeBuckets, uptimeTotals, type UptimeSeconds, type WidgetMonitor } from './widget-data.db.js';

/*
 * Data of monitor widgets (docs/api/dashboards.md "Widget data"): latency and checks by node from
 * the checks feature's statistics (checks/stats.ts statsOfCells over stats.db.ts
 * monitorStatsCells, one statement per monitor: daily and hourly check rollups for whole days and
 * hours, raw checks only for what the rollup job has not reached), uptime
 * from the round rollups (widget-data.db.ts). Shapes by widget type: `value` (stat, gauge),
 * `slices` (donut), `rows` (bar, table), `buckets` + `series` (timeseries, heatmap, status_strip).
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** Monitors an aggregate uptime widget (stat, gauge, donut, table, bar) reads at most. */
export const UPTIME_MONITORS_MAX = 10_000;

/** What a widget's data is computed from. */
export interface MonitorWidgetInput {
  type: WidgetType;
  metric: 'latency' | 'uptime' | 'checks_by_node';
  monitor_ids?: string[];
  options: Record<string, unknown>;
}

/** The range and owner every widget of one data request shares; `marks` read once, on first need. */
export interface DataContext {
  sql: SqlExecutor;
  scope: OwnerScope;
  from: Date;
  to: Date;
  /** Owner view: rows carry monitor ids; the public view leaves them out. */
  with_ids: boolean;
  marks: () => Promise<RollupMarks>;
  /** The same read asked by several widgets (the uptime of all monitors) runs once per request. */
  once: <T>(key: string, read: () => Promise<T>) => Promise<T>;
}

/** A context over [from, to) for `scope`. */
export function dataContext(sql: SqlExecutor, scope: OwnerScope, from: Date, to: Date, with_ids: boolean): DataContext {
  let marks: Promise<RollupMarks> | null = null;
  const reads = new Map<string, Promise<unknown>>();
  const once = <T>(key: string, read: () => Promise<T>): Promise<T> => {
    let p = reads.get(key) as Promise<T> | undefined;
    if (!p) reads.set(key, (p = read()));
    return p;
  };
  return { sql, scope, from, to, with_ids, marks: () => (marks ??= rollupMarks(sql)), once };
}

const percent = (s: UptimeSeconds) => {
  const monitored = s.up_s + s.degraded_s + s.down_s;
  return monitored > 0 ? Math.round(((s.up_s + s.degraded_s) / monitored) * 1e5) / 1e3 : null;
};
const zero = (): UptimeSeconds => ({ up_s: 0, degraded_s: 0, down_s: 0, maintenance_s: 0, no_data_s: 0 });
const addTo = (t: UptimeSeconds, r: UptimeSeconds) => {
  for (const k of Object.keys(t) as Array<keyof UptimeSeconds>) t[k] += r[k];
};
const statOf = (o: Record<string, unknown>) => ((o.stat as string | undefined) ?? 'p95') as 'p50' | 'p95' | 'p99' | 'avg';
const statValue = (s: StatsSummary, stat: 'p50' | 'p95' | 'p99' | 'avg') => s[`${stat}_ms`];
const limitOf = (o: Record<string, unknown>, dflt: number) => (o.limit as number | undefined) ?? dflt;

/** The named monitors of the owner, in the order named; a named monitor that is not the owner's (or is gone) is an error of this widget. */
async function namedMonitors(ctx: DataContext, ids: string[]): Promise<WidgetMonitor[]> {
  const found = new Map((await ownerMonitors(ctx.sql, ctx.scope, ids, ids.length)).map((m) => [m.id, m]));
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length > 0) throw new ApiError('MONITOR_NOT_FOUND', `monitor ${missing[0]} no longer exists`);
  return ids.map((id) => found.get(id)!);
}

const named = (ctx: DataContext, m: WidgetMonitor) => (ctx.with_ids ? { monitor_id: m.id, name: m.name, state: m.state } : { name: m.name, state: m.state });

/** The data of one monitor widget. @throws ApiError for this widget alone (a monitor gone, too many buckets) */
export async function monitorWidgetData(ctx: DataContext, w: MonitorWidgetInput): Promise<Record<string, unknown>> {
  if (w.metric === 'uptime') return uptimeData(ctx, w);
  const monitors = await namedMonitors(ctx, w.monitor_ids ?? []);
  const span_ms = ctx.to.getTime() - ctx.from.getTime();
  const bucket_s = (w.options.bucket_s as number | undefined) ?? autoBucketS(span_ms);
  if (span_ms / (bucket_s * 1000) > STATS_BUCKETS_MAX) {
    throw new ApiError('VALIDATION_FAILED', `options.bucket_s gives more than ${STATS_BUCKETS_MAX} buckets over this range`);
  }
  // Every monitor's cells over the same parts, planned from the request's marks: cells of several
  // monitors' series together are the cells of their union (checks/stats.ts statsOfCells).
  const sources = statsSources(ctx.from, ctx.to, bucket_s, await ctx.marks());
  const reads = await Promise.all(monitors.map((m) => monitorStatsCells(ctx.sql, m.id, sources, bucket_s)));
  const statsOf = (rs: typeof reads, group_by: 'node' | undefined) =>
    statsOfCells(rs.flatMap((r) => r.context.series), ctx.from, ctx.to, bucket_s, group_by, sources, rs.flatMap((r) => r.cells));
  const stat = statOf(w.options);
  if (w.metric === 'checks_by_node') return checksByNode(w.type, statsOf(reads, 'node'), bucket_s, stat);

  if (w.type === 'stat' || w.type === 'gauge') {
    const all = statsOf(reads, undefined);
    return { unit: 'ms', stat, value: statValue(all.overall, stat), checks: all.overall.checks };
  }
  const per = reads.map((r) => statsOf([r], undefined));
  if (w.type === 'bar' || w.type === 'table') {
    const rows = monitors.map((m, i) => ({ ...named(ctx, m), ...per[i]!.overall }));
    if (w.type === 'bar') rows.sort((a, b) => (statValue(b, stat) ?? -1) - (statValue(a, stat) ?? -1));
    return { unit: 'ms', stat, rows: rows.slice(0, limitOf(w.options, w.type === 'bar' ? 10 : 50)) };
  }
  return {
    unit: 'ms', stat, bucket_s, buckets: per[0]?.buckets.map((b) => b.start) ?? [],
    series: monitors.map((m, i) => ({ ...named(ctx, m), values: per[i]!.buckets.map((b) => statValue(b, stat)) })),
  };
}

/** A checks_by_node widget's data from the statistics `s` of its monitors grouped by node. */
function checksByNode(type: WidgetType, s: Stats, bucket_s: number, stat: 'p50' | 'p95' | 'p99' | 'avg') {
  const groups = s.groups ?? [];
  if (type === 'donut') return { unit: 'checks', slices: groups.map((g) => ({ node_id: g.node_id, country: g.country, value: g.overall.checks })) };
  if (type === 'timeseries') {
    return { unit: 'ms', stat, bucket_s, buckets: s.buckets.map((b) => b.start), series: groups.map((g) => ({ node_id: g.node_id, country: g.country, values: g.buckets.map((b) => statValue(b, stat)) })) };
  }
  const rows = groups.map((g) => ({ node_id: g.node_id, country: g.country, ...g.overall }));
  rows.sort((a, b) => (b.failure_rate ?? 0) - (a.failure_rate ?? 0) || b.checks - a.checks);
  return { unit: 'ms', stat, rows };
}

/** The range widened to whole hours (rollups are hourly) and split as checks/uptime.ts rollupRanges splits it. */
function hourRanges(ctx: DataContext): { days: [Date, Date] | null; hours: Array<[Date, Date]>; from: number; to: number } {
  const from = Math.floor(ctx.from.getTime() / HOUR_MS) * HOUR_MS;
  const to = Math.ceil(ctx.to.getTime() / HOUR_MS) * HOUR_MS;
  const r = rollupRanges(from, to);
  const d = ([a, b]: [number, number]): [Date, Date] => [new Date(a), new Date(b)];
  return { days: r.days && d(r.days), hours: r.hours.map(d), from, to };
}

async function uptimeData(ctx: DataContext, w: MonitorWidgetInput): Promise<Record<string, unknown>> {
  const strip = w.type === 'status_strip' || w.type === 'heatmap' || w.type === 'timeseries';
  const monitors = w.monitor_ids
    ? await namedMonitors(ctx, w.monitor_ids)
    : strip ? await ownerMonitors(ctx.sql, ctx.scope, undefined, limitOf(w.options, 20))
      : await ctx.once('monitors', () => ownerMonitors(ctx.sql, ctx.scope, undefined, UPTIME_MONITORS_MAX));
  const ids = monitors.map((m) => m.id);
  const r = hourRanges(ctx);
  const range = { from: new Date(r.from).toISOString(), to: new Date(r.to).toISOString() };
  if (strip) {
    // Hours for a range of two days or less, UTC days beyond.
    const bucket_s = r.to - r.from <= 2 * DAY_MS ? 3600 : 86_400;
    // Hourly cells come from hourly rows only: a whole UTC day inside the range (a 24-hour range
    // ending in the day's last hour) read from its daily row would be one cell at the day's start.
    const rows = bucket_s === 86_400
      ? await uptimeBuckets(ctx.sql, ids, r.days, r.hours, bucket_s)
      : await uptimeBuckets(ctx.sql, ids, null, [[new Date(r.from), new Date(r.to)]], bucket_s);
    const first = Math.floor(r.from / 1000 / bucket_s) * bucket_s;
    const count = Math.ceil((r.to / 1000 - first) / bucket_s);
    const cells = new Map(rows.map((x) => [`${x.monitor_id}|${x.b}`, x]));
    const starts = Array.from({ length: count }, (_, i) => first + i * bucket_s);
    return {
      unit: 'percent', ...range, bucket_s, buckets: starts.map((b) => new Date(b * 1000).toISOString()),
      series: monitors.map((m) => ({ ...named(ctx, m), values: starts.map((b) => { const c = cells.get(`${m.id}|${b}`); return c ? percent(c) : null; }) })),
    };
  }
  const totals = await ctx.once(`uptime:${w.monitor_ids ? ids.join(',') : '*'}`, async () => new Map((await uptimeTotals(ctx.sql, ids, r.days, r.hours)).map((x) => [x.monitor_id, x])));
  const all = zero();
  for (const t of totals.values()) addTo(all, t);
  if (w.type === 'stat' || w.type === 'gauge') return { unit: 'percent', ...range, value: percent(all), monitors: monitors.length };
  if (w.type === 'donut') {
    return { unit: 's', ...range, slices: (['up', 'degraded', 'down', 'maintenance', 'no_data'] as const).map((k) => ({ label: k, value: Math.round(all[`${k}_s`]) })) };
  }
  const rows = monitors.map((m) => {
    const t = totals.get(m.id) ?? zero();
    return { ...named(ctx, m), uptime_percent: percent(t), downtime_s: Math.round(t.down_s), monitored_s: Math.round(t.up_s + t.degraded_s + t.down_s) };
  });
  // Worst first (bar `order: desc` best first); monitors without data last.
  const dir = w.options.order === 'desc' ? -1 : 1;
  rows.sort((a, b) => (a.uptime_percent === null ? 1 : 0) - (b.uptime_percent === null ? 1 : 0) || dir * ((a.uptime_percent ?? 0) - (b.uptime_percent ?? 0)) || a.name.localeCompare(b.name));
  const limit = limitOf(w.options, w.type === 'bar' ? 10 : 50);
  return { unit: 'percent', ...range, value: percent(all), total: rows.length, rows: rows.slice(0, Math.min(limit, DASHBOARD_LIMITS.table_rows_max)) };
}
