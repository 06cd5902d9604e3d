import type { StatsSummary, Uptime } from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';
import type { SqlExecutor } from '../contracts.js';
import type { ChangeRow } from '../checks/decide.db.js';
import { listStateChanges } from '../checks/history.db.js';
import { rollupMarks } from '../checks/jobs.db.js';
import { checkRetention } from '../checks/retention.js';
import { monitorStatsCells } from '../checks/stats.db.js';
import { statsOfCells, statsSources } from '../checks/stats.js';
import { monitorUptime } from '../checks/uptime.js';

/** What a report shows of one monitor over its window, read from the history's rollups. */
export interface MonitorEvidence {
  monitor_id: string;
  name: string;
  type: string;
  target: string;
  uptime: Uptime;
  overall: StatsSummary;
  /** Per node: its checks (rounds it reported), failures and response-time percentiles. */
  nodes: Array<{ node_id: string | null; country: string | null } & StatsSummary>;
  /** State changes inside the window, oldest first (at most {@link CHANGES_MAX}). */
  changes: ChangeRow[];
  changes_total: number;
}

/** State changes a report lists per monitor. */
export const CHANGES_MAX = 200;
const DAY_MS = 86_400_000;

/**
 * Evidence of `monitors` over [from, to): uptime (monitorUptime: daily and hourly round rollups,
 * rounds at the edges), per-node statistics (checks/stats.ts statsOfCells grouped by node over
 * stats.db.ts monitorStatsCells, series and cells in one statement: check rollups where the
 * rollup job has them, raw checks for the rest) and state changes. Never scans raw checks of
 * the whole window. `now` bounds the rounds retention.
 */
export async function gatherEvidence(
  sql: SqlExecutor, config: Config, monitors: Array<{ id: string; name: string; type: string; target: string }>, from: Date, to: Date, now: Date = new Date(),
): Promise<MonitorEvidence[]> {
  const retention = checkRetention(config);
  const marks = await rollupMarks(sql);
  // Buckets as long as the window: per node, at most two cells (the window may straddle a bucket edge).
  const span_s = Math.max(1, Math.ceil((to.getTime() - from.getTime()) / 1000));
  const sources = statsSources(from, to, span_s, marks);
  return Promise.all(monitors.map(async (m) => {
    const [uptime, read, changes] = await Promise.all([
      monitorUptime(sql, m.id, from, to, null, new Date(now.getTime() - retention.rounds_days * DAY_MS)),
      monitorStatsCells(sql, m.id, sources, span_s),
      listStateChanges(sql, m.id, from, to, undefined, CHANGES_MAX, 0),
    ]);
    const stats = statsOfCells(read.context.series, from, to, span_s, 'node', sources, read.cells);
    return {
      monitor_id: m.id, name: m.name, type: m.type, target: m.target, uptime, overall: stats.overall,
      nodes: (stats.groups ?? []).map((g) => ({ node_id: g.node_id, country: g.country, ...g.overall })),
      changes: [...changes.rows].sort((a, b) => a.changed_at.getTime() - b.changed_at.getTime()), changes_total: changes.total,
    };
  }));
}
