import type { MonitorState } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';
import type { RoundRollupRow } from './history.db.js';
import type { Verdict } from './verdict.js';

/*
 * The reads of one uptime answer (checks/uptime.ts monitorUptime) in ONE statement: rollup sums,
 * edge hours, edge rounds and the state timeline, told apart by a `kind` column. One round trip
 * on one connection instead of five statements on five: on two shared cores the slowest of five
 * backends to be scheduled set the request's time.
 */

/** What an uptime answer reads (every range [from, to); empty lists and null read nothing). */
export interface UptimeReadPlan {
  /** Whole UTC days summed from round_rollups_daily. */
  days: [Date, Date] | null;
  /** Hour ranges summed from round_rollups. */
  hours: Array<[Date, Date]>;
  /** Hours whose round_rollups rows are read one by one (edge hours past the rounds retention). */
  edge_hours: Date[];
  /** Ranges whose judged rounds are read (edge hours within the rounds retention). */
  edge_rounds: Array<[Date, Date]>;
  /** The state timeline's range: the change in force before `from` and every change in it. */
  timeline: [Date, Date];
}

type Totals = Omit<RoundRollupRow, 'hour'>;

/** What {@link uptimeReads} returns. */
export interface UptimeRows {
  /** The days and hours summed (zeros without rows). */
  sums: Totals;
  edge_hours: RoundRollupRow[];
  edge_rounds: Array<{ scheduled_at: Date; interval_s: number; verdict: Verdict; counted: boolean }>;
  /** The state in force before the timeline's start (the last change before it), if any. */
  before: { to_state: MonitorState; changed_at: Date } | null;
  /** Changes in the timeline's range (superseded ones left out), oldest first. */
  changes: Array<{ to_state: MonitorState; changed_at: Date }>;
}

const KIND = { sums: 0, hour: 1, round: 2, before: 3, change: 4 } as const;

interface Row extends Totals {
  kind: number;
  at: Date | null;
  id: number | null;
  to_state: MonitorState | null;
  interval_s: number | null;
  verdict: Verdict | null;
  counted: boolean | null;
}

/** Monitor `monitor_id`'s uptime rows per `plan`, in one statement (each part read by its table's primary key or the state log's index). */
export async function uptimeReads(sql: SqlExecutor, monitor_id: string, plan: UptimeReadPlan): Promise<UptimeRows> {
  const totals = sql`up_s, degraded_s, down_s, maintenance_s, no_data_s, rounds_up, rounds_degraded, rounds_down, rounds_no_data`;
  const ranges = [
    ...(plan.days ? [sql`SELECT ${totals} FROM round_rollups_daily WHERE monitor_id = ${monitor_id} AND day >= ${plan.days[0]} AND day < ${plan.days[1]}`] : []),
    ...plan.hours.map(([from, to]) => sql`SELECT ${totals} FROM round_rollups WHERE monitor_id = ${monitor_id} AND hour >= ${from} AND hour < ${to}`),
  ];
  // Columns of the kinds that do not carry totals, then typed nulls for those that do.
  const none = sql`NULL::float8, NULL::float8, NULL::float8, NULL::float8, NULL::float8, NULL::float8, NULL::float8, NULL::float8, NULL::float8`;
  const parts = [
    sql`SELECT ${KIND.sums}::int AS kind, NULL::timestamptz AS at, NULL::float8 AS id, NULL::text AS to_state, NULL::int AS interval_s,
        NULL::text AS verdict, NULL::boolean AS counted,
        coalesce(sum(up_s), 0)::float8 AS up_s, coalesce(sum(degraded_s), 0)::float8 AS degraded_s, coalesce(sum(down_s), 0)::float8 AS down_s,
        coalesce(sum(maintenance_s), 0)::float8 AS maintenance_s, coalesce(sum(no_data_s), 0)::float8 AS no_data_s,
        coalesce(sum(rounds_up), 0)::float8 AS rounds_up, coalesce(sum(rounds_degraded), 0)::float8 AS rounds_degraded,
        coalesce(sum(rounds_down), 0)::float8 AS rounds_down, coalesce(sum(rounds_no_data), 0)::float8 AS rounds_no_data
      FROM (${ranges.length > 0 ? ranges.reduce((a, b) => sql`${a} UNION ALL ${b}`) : sql`SELECT ${totals} FROM round_rollups WHERE false`}) x`,
    ...(plan.edge_hours.length > 0 ? [sql`SELECT ${KIND.hour}, hour, NULL, NULL, NULL, NULL, NULL, ${totals} FROM round_rollups
      WHERE monitor_id = ${monitor_id} AND hour = ANY(${plan.edge_hours.map((h) => h.toISOString())}::timestamptz[])`] : []),
    ...plan.edge_rounds.map(([from, to]) => sql`SELECT ${KIND.round}, scheduled_at, NULL, NULL, interval_s, verdict, counted, ${none} FROM check_rounds
      WHERE monitor_id = ${monitor_id} AND scheduled_at >= ${from} AND scheduled_at < ${to} AND verdict IS NOT NULL`),
    sql`(SELECT ${KIND.before}, changed_at, id::float8, to_state, NULL, NULL, NULL, ${none} FROM monitor_state_changes
      WHERE monitor_id = ${monitor_id} AND superseded_at IS NULL AND changed_at < ${plan.timeline[0]} ORDER BY changed_at DESC, id DESC LIMIT 1)`,
    sql`SELECT ${KIND.change}, changed_at, id::float8, to_state, NULL, NULL, NULL, ${none} FROM monitor_state_changes
      WHERE monitor_id = ${monitor_id} AND superseded_at IS NULL AND changed_at >= ${plan.timeline[0]} AND changed_at < ${plan.timeline[1]}`,
  ];
  const rows = await sql<Row[]>`${parts.reduce((a, b) => sql`${a} UNION ALL ${b}`)}`;
  const out: UptimeRows = { sums: null as unknown as Totals, edge_hours: [], edge_rounds: [], before: null, changes: [] };
  const changes: Row[] = [];
  for (const r of rows) {
    const t: Totals = {
      up_s: r.up_s, degraded_s: r.degraded_s, down_s: r.down_s, maintenance_s: r.maintenance_s, no_data_s: r.no_data_s,
      rounds_up: r.rounds_up, rounds_degraded: r.rounds_degraded, rounds_down: r.rounds_down, rounds_no_data: r.rounds_no_data,
    };
    if (r.kind === KIND.sums) out.sums = t;
    else if (r.kind === KIND.hour) out.edge_hours.push({ hour: r.at!, ...t });
    else if (r.kind === KIND.round) out.edge_rounds.push({ scheduled_at: r.at!, interval_s: r.interval_s!, verdict: r.verdict!, counted: r.counted! });
    else if (r.kind === KIND.before) out.before = { to_state: r.to_state!, changed_at: r.at! };
    else changes.push(r);
  }
  // Oldest first, as the state log orders them (the union keeps no order of its own).
  changes.sort((a, b) => a.at!.getTime() - b.at!.getTime() || a.id! - b.id!);
  out.changes = changes.map((r) => ({ to_state: r.to_state!, changed_at: r.at! }));
  return out;
}
