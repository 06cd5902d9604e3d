import { resolveTime, UPTIME_PERIODS, type CheckListQuery, type uptimeQuerySchema } from '@vantage/shared-protocol';
import type { z } from 'zod';
import { artifactUrlHook } from '../artifacts/urls.js';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { monitorSeries } from './history.db.js';
import { rollupMarks, type RollupMarks } from './jobs.db.js';
import { checksPage } from './pack-reads.js';
import { checkRetention } from './retention.js';
import { monitorStatsCells } from './stats.db.js';
import { statsOfCells, statsSources } from './stats.js';
import { toCheckItem } from './stream.js';
import { monitorUptime, monitorUptimeAndOwner } from './uptime.js';

const DAY_MS = 86_400_000;

/** VALIDATION_FAILED naming the query parameter `path`. */
export function badRange(path: string, message: string): ApiError {
  return new ApiError('VALIDATION_FAILED', `${path}: ${message}`, { fields: [{ path, message }], in: 'query' });
}

/** [from, to) from query values (relative forms resolved against `now`), with defaults; from must be before to. */
export function historyRange(q: { from?: string; to?: string }, now: number, default_from: number, default_to = now): { from: Date; to: Date } {
  const from = q.from !== undefined ? resolveTime(q.from, now) : default_from;
  const to = q.to !== undefined ? resolveTime(q.to, now) : default_to;
  if (!(from < to)) throw badRange('from', 'must be before to');
  return { from: new Date(from), to: new Date(to) };
}

/**
 * A monitor's history reads (docs/api/monitors.md "Checks and history"), shared by the
 * /v1/monitors/{id}/checks, /uptime and /stats routes and the MCP tools. Access is the caller's
 * to decide first (teams/authorize.ts); these only read.
 */
export function historyReads(deps: Pick<AppDeps, 'sql' | 'generic_sql' | 'config'>) {
  const retention = checkRetention(deps.config);
  // Uptime's and stats' one statement run on generic plans (db/sql.ts genericPlanClient).
  const generic_sql = deps.generic_sql ?? deps.sql;
  // The rollup job's marks as the last stats read found them: they move about once an hour, so
  // the next read plans its parts from them and checks them in its own statement.
  let marks: RollupMarks | null = null;
  const sameMarks = (a: RollupMarks, b: RollupMarks) =>
    (['hours_until', 'days_from', 'days_until'] as const).every((k) => (a[k]?.getTime() ?? null) === (b[k]?.getTime() ?? null));
  return {
    retention,
    /**
     * One page of monitor `id`'s checks, newest first, in [from (default -24 h), to (default now)):
     * raw ones and, past the rounds retention, packed ones alike (pack-reads.ts).
     * @returns `{items[], total, page, page_size, has_more}` (shared-protocol checkListSchema)
     * @throws ApiError VALIDATION_FAILED for a bad range
     */
    async checks(id: string, q: CheckListQuery, now = Date.now()) {
      const { from, to } = historyRange(q, now, now - DAY_MS);
      const series = await monitorSeries(deps.sql, id, q.node_id);
      const nodes = new Map(series.map((s) => [s.id, s.node_id]));
      const reach = new Date(now - retention.rounds_days * DAY_MS);
      const { rows, total } = await checksPage(deps.sql, series.map((s) => s.id), from, to, q.page_size, (q.page - 1) * q.page_size, reach);
      const signUrls = await artifactUrlHook(deps);
      const items = rows.map((row) => signUrls(toCheckItem(id, nodes.get(row.series_id)!, row)));
      return { items, total, page: q.page, page_size: q.page_size, has_more: q.page * q.page_size < total };
    },
    /**
     * Monitor `id`'s uptime over `period` (24h, 7d, 30d, 90d…), or [from, to) (default the last 24 h).
     * @returns shared-protocol uptimeSchema
     * @throws ApiError VALIDATION_FAILED when both period and from/to are given, or for a bad range
     */
    uptimeWindow(q: z.infer<typeof uptimeQuerySchema>, now = Date.now()) {
      if (q.period && (q.from !== undefined || q.to !== undefined)) throw badRange('period', 'give either period or from/to, not both');
      const period = q.period ?? (q.from === undefined && q.to === undefined ? '24h' : null);
      const { from, to } = period ? { from: new Date(now - UPTIME_PERIODS[period] * 1000), to: new Date(now) } : historyRange(q, now, now - DAY_MS);
      return { from, to, period };
    },
    /** Uptime of monitor `id` over a window from {@link uptimeWindow}. */
    uptime(id: string, w: { from: Date; to: Date; period: keyof typeof UPTIME_PERIODS | null }, now = Date.now()) {
      return monitorUptime(generic_sql, id, w.from, w.to, w.period, new Date(now - retention.rounds_days * DAY_MS));
    },
    /** {@link uptime} and the monitor's owner (null: none) in one statement, for the caller to authorize before answering. */
    uptimeAndOwner(id: string, w: { from: Date; to: Date; period: keyof typeof UPTIME_PERIODS | null }, now = Date.now()) {
      return monitorUptimeAndOwner(generic_sql, id, w.from, w.to, w.period, new Date(now - retention.rounds_days * DAY_MS));
    },
    /**
     * Monitor `id`'s statistics over [from, to) in `bucket_s` buckets (checks/stats.ts
     * monitorStats, the same answer) and its owner (null: none), for the caller to authorize
     * before answering. One statement (stats.db.ts monitorStatsCells) with the parts planned from
     * the marks the last read saw; when the rollup job has moved them since, a second one with the
     * marks the first found (as monitorStats, which reads the marks before the cells).
     * @returns `{ stats, owner }`: shared-protocol statsSchema and teams/authorize.ts Owner
     */
    async statsAndOwner(id: string, from: Date, to: Date, bucket_s: number, group_by: 'node' | 'country' | undefined) {
      const planned = marks ?? await rollupMarks(deps.sql);
      let sources = statsSources(from, to, bucket_s, planned);
      let read = await monitorStatsCells(generic_sql, id, sources, bucket_s);
      marks = read.context.marks;
      if (!sameMarks(planned, marks)) {
        sources = statsSources(from, to, bucket_s, marks);
        read = await monitorStatsCells(generic_sql, id, sources, bucket_s);
        marks = read.context.marks;
      }
      const { series, owner } = read.context;
      return { stats: statsOfCells(series, from, to, bucket_s, group_by, sources, read.cells), owner };
    },
  };
}
