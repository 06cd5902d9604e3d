import { resolveTime, UPTIME_PERIODS, type CheckListQuery, type uptimeQuerySchema } from '@vantage/shared-protocol';
import type { z } from 'zod';
import { artifactUrlHook } from '../artifacts/urls.js';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { monitorSeries } from './history.db.js';
import { checksPage } from './pack-reads.js';
import { checkRetention } from './retention.js';
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
 * /v1/monitors/{id}/checks and /uptime routes and the MCP tools. Access is the caller's to decide
 * first (teams/authorize.ts); these only read.
 */
export function historyReads(deps: Pick<AppDeps, 'sql' | 'generic_sql' | 'config'>) {
  const retention = checkRetention(deps.config);
  // Uptime's one statement runs on generic plans (db/sql.ts genericPlanClient).
  const uptime_sql = deps.generic_sql ?? deps.sql;
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
      return monitorUptime(uptime_sql, id, w.from, w.to, w.period, new Date(now - retention.rounds_days * DAY_MS));
    },
    /** {@link uptime} and the monitor's owner (null: none) in one statement, for the caller to authorize before answering. */
    uptimeAndOwner(id: string, w: { from: Date; to: Date; period: keyof typeof UPTIME_PERIODS | null }, now = Date.now()) {
      return monitorUptimeAndOwner(uptime_sql, id, w.from, w.to, w.period, new Date(now - retention.rounds_days * DAY_MS));
    },
  };
}
