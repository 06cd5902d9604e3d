import type { SqlExecutor } from '../contracts.js';
import type { Owner } from '../teams/authorize.js';
import type { RoundRollupRow } from './history.db.js';
import type { Verdict } from './verdict.js';

/*
 * The reads of one uptime answer (checks/uptime.ts monitorUptime) in ONE statement: rollup sums,
 * edge hours, edge rounds, the state timeline and the monitor's owner (for authorization), told
 * apart by a `kind` column. One round trip on one connection instead of five statements on five:
 * on two shared cores the slowest of five backends to be scheduled set the request's time.
 * The timeline comes back as one text value (`state ms,state ms,…`), not a row per state change:
 * a monitor's 90 days held 180 changes, whose rows were most of what the process parsed and
 * allocated per answer. Its down spells are counted here ({@link downSpells}): counted in the
 * statement with window functions, they were two thirds of its time (90 days: 0.44 ms at p50
 * with them, 0.30 with the text; docs/benchmarks.md "Monitor list, uptime and stats latency").
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
  /**
   * Down spells overlapping the timeline's range, from the change in force before its start and
   * the changes in it (superseded ones left out; same instant: in the order recorded): how many
   * (`incidents`), and the length in seconds of each that ended in it by going back to up or
   * degraded, oldest first (`recovered_s`; a pause or maintenance ends a spell without a recovery).
   * Instants count to the millisecond, as a Date holds them.
   */
  spells: { incidents: number; recovered_s: number[] };
  /** The monitor's creator and team (teams/authorize.ts), or null when there is no such monitor. */
  owner: Owner | null;
}

const KIND = { sums: 0, hour: 1, round: 2 } as const;

interface Row extends Totals {
  kind: number;
  at: Date | null;
  interval_s: number | null;
  verdict: Verdict | null;
  counted: boolean | null;
  state_before: string | null;
  state_changes: string | null;
  owned: boolean | null;
  user_id: string | null;
  team_id: string | null;
}

/** A state change as the timeline's text gives it: `state epoch_ms` (the instant cut to the millisecond). */
function timelineEntry(sql: SqlExecutor) {
  return sql`to_state || ' ' || round(date_part('epoch', date_trunc('milliseconds', changed_at)) * 1000)::bigint`;
}

/**
 * The state timeline of `[from, to)` in one row: `state_before`, the change in force before `from`
 * (null: none), and `state_changes`, the changes in the range joined by commas, in the order
 * recorded within a millisecond (null: none); superseded changes left out. Each is
 * {@link timelineEntry}; `date_part` of an instant cut to the millisecond is within a millionth
 * of the whole millisecond, so the rounding is exact.
 */
function timelineRow(sql: SqlExecutor, monitor_id: string, [from, to]: [Date, Date]) {
  const live = sql`monitor_id = ${monitor_id} AND superseded_at IS NULL`;
  return sql`
    SELECT (SELECT ${timelineEntry(sql)} FROM monitor_state_changes
        WHERE ${live} AND changed_at < ${from} ORDER BY changed_at DESC, id DESC LIMIT 1) AS state_before,
      (SELECT string_agg(${timelineEntry(sql)}, ',' ORDER BY date_trunc('milliseconds', changed_at), id) FROM monitor_state_changes
        WHERE ${live} AND changed_at >= ${from} AND changed_at < ${to}) AS state_changes`;
}

/**
 * The down spells of a timeline (see {@link UptimeRows} `spells`) from {@link timelineRow}'s two
 * values: the change in force before the range, then the changes in it, each against the state
 * before it. A spell starts at a `down` after anything else (or first), ends at the first other
 * state after it, and recovers when that is up or degraded; its length runs from its start (the
 * latest start so far: starts only grow along the timeline) to that change, in whole milliseconds.
 */
function downSpells(state_before: string | null, state_changes: string | null): UptimeRows['spells'] {
  const entries = [...(state_before === null ? [] : [state_before]), ...(state_changes === null ? [] : state_changes.split(','))];
  let prev: string | null = null;
  let since = 0;
  let incidents = 0;
  const recovered_s: number[] = [];
  for (const entry of entries) {
    const space = entry.indexOf(' ');
    const state = entry.slice(0, space);
    const at_ms = Number(entry.slice(space + 1));
    if (state === 'down' && prev !== 'down') {
      incidents += 1;
      since = at_ms;
    } else if (prev === 'down' && (state === 'up' || state === 'degraded')) {
      recovered_s.push((at_ms - since) / 1000);
    }
    prev = state;
  }
  return { incidents, recovered_s };
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
    sql`SELECT ${KIND.sums}::int AS kind, NULL::timestamptz AS at, NULL::int AS interval_s, NULL::text AS verdict, NULL::boolean AS counted,
        sums.*, s.state_before, s.state_changes, o.id IS NOT NULL AS owned, o.user_id, o.team_id
      FROM (SELECT coalesce(sum(up_s), 0)::float8 AS up_s, coalesce(sum(degraded_s), 0)::float8 AS degraded_s, coalesce(sum(down_s), 0)::float8 AS down_s,
          coalesce(sum(maintenance_s), 0)::float8 AS maintenance_s, coalesce(sum(no_data_s), 0)::float8 AS no_data_s,
          coalesce(sum(rounds_up), 0)::float8 AS rounds_up, coalesce(sum(rounds_degraded), 0)::float8 AS rounds_degraded,
          coalesce(sum(rounds_down), 0)::float8 AS rounds_down, coalesce(sum(rounds_no_data), 0)::float8 AS rounds_no_data
        FROM (${ranges.length > 0 ? ranges.reduce((a, b) => sql`${a} UNION ALL ${b}`) : sql`SELECT ${totals} FROM round_rollups WHERE false`}) x) sums,
        (${timelineRow(sql, monitor_id, plan.timeline)}) s
        LEFT JOIN monitors o ON o.id = ${monitor_id}`,
    ...(plan.edge_hours.length > 0 ? [sql`SELECT ${KIND.hour}, hour, NULL, NULL, NULL, ${totals}, NULL, NULL, NULL, NULL, NULL FROM round_rollups
      WHERE monitor_id = ${monitor_id} AND hour = ANY(${plan.edge_hours.map((h) => h.toISOString())}::timestamptz[])`] : []),
    ...plan.edge_rounds.map(([from, to]) => sql`SELECT ${KIND.round}, scheduled_at, interval_s, verdict, counted, ${none}, NULL, NULL, NULL, NULL, NULL FROM check_rounds
      WHERE monitor_id = ${monitor_id} AND scheduled_at >= ${from} AND scheduled_at < ${to} AND verdict IS NOT NULL`),
  ];
  const rows = await sql<Row[]>`${parts.reduce((a, b) => sql`${a} UNION ALL ${b}`)}`;
  const out: UptimeRows = { sums: null as unknown as Totals, edge_hours: [], edge_rounds: [], spells: { incidents: 0, recovered_s: [] }, owner: null };
  for (const r of rows) {
    const t: Totals = {
      up_s: r.up_s, degraded_s: r.degraded_s, down_s: r.down_s, maintenance_s: r.maintenance_s, no_data_s: r.no_data_s,
      rounds_up: r.rounds_up, rounds_degraded: r.rounds_degraded, rounds_down: r.rounds_down, rounds_no_data: r.rounds_no_data,
    };
    if (r.kind === KIND.sums) {
      out.sums = t;
      out.spells = downSpells(r.state_before, r.state_changes);
      out.owner = r.owned ? { user_id: r.user_id!, team_id: r.team_id } : null;
    } else if (r.kind === KIND.hour) out.edge_hours.push({ hour: r.at!, ...t });
    else out.edge_rounds.push({ scheduled_at: r.at!, interval_s: r.interval_s!, verdict: r.verdict!, counted: r.counted! });
  }
  return out;
}
