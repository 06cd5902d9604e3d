import type { Uptime, UptimePeriod } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';
import type { Owner } from '../teams/authorize.js';
import type { RoundRollupRow } from './history.db.js';
import { uptimeReads } from './uptime.db.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const floorHour = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS;
const ceilHour = (ms: number) => Math.ceil(ms / HOUR_MS) * HOUR_MS;

/**
 * Where the whole hours [from, to) (epoch ms, hour-aligned) are read: the whole UTC days among
 * them from the daily rows, the hours before and after those from the hourly rows.
 */
export function rollupRanges(from: number, to: number): { days: [number, number] | null; hours: Array<[number, number]> } {
  const day_from = Math.ceil(from / DAY_MS) * DAY_MS;
  const day_to = Math.floor(to / DAY_MS) * DAY_MS;
  if (day_from >= day_to) return { days: null, hours: from < to ? [[from, to]] : [] };
  return { days: [day_from, day_to], hours: ([[from, day_from], [day_to, to]] as Array<[number, number]>).filter(([a, b]) => a < b) };
}

type Totals = Omit<RoundRollupRow, 'hour'>;
const zero = (): Totals => ({ up_s: 0, degraded_s: 0, down_s: 0, maintenance_s: 0, no_data_s: 0, rounds_up: 0, rounds_degraded: 0, rounds_down: 0, rounds_no_data: 0 });

function add(t: Totals, r: Totals, share = 1): void {
  for (const k of Object.keys(t) as Array<keyof Totals>) t[k] += r[k] * share;
}

/**
 * A monitor's uptime over [from, to) (docs/api/monitors.md "Uptime"): whole UTC days from its
 * round_rollups_daily, the other whole hours from its round_rollups ({@link rollupRanges}; one
 * statement), the partial hours at either end from its judged rounds (each counts the part of
 * its interval inside the range); when those rounds are past the rounds retention (`raw_from`), the
 * edge hour's rollup counts in proportion to its overlap. Incidents and time to recovery come
 * from the state changes' down spells, counted in the statement (uptime.db.ts `spells`). Rounds
 * no node reported count in `no_data_s` only: the ratio is over the time with data. Everything is
 * read in one statement (uptime.db.ts).
 */
export async function monitorUptime(sql: SqlExecutor, monitor_id: string, from: Date, to: Date, period: UptimePeriod | null, raw_from: Date): Promise<Uptime> {
  return (await monitorUptimeAndOwner(sql, monitor_id, from, to, period, raw_from)).uptime;
}

/**
 * {@link monitorUptime} and the monitor's owner (null: no such monitor), read in the same
 * statement: what a route that authorizes from the owner (teams/authorize.ts) needs, in one round
 * trip. Nothing of the answer may be shown before that authorization.
 */
export async function monitorUptimeAndOwner(sql: SqlExecutor, monitor_id: string, from: Date, to: Date, period: UptimePeriod | null, raw_from: Date): Promise<{ uptime: Uptime; owner: Owner | null }> {
  const f = from.getTime();
  const t = to.getTime();
  // Whole hours [inner.from, inner.to) are read summed; the partial hours at either end, apart.
  const inner = { from: Math.min(ceilHour(f), t), to: Math.max(floorHour(t), Math.min(ceilHour(f), t)) };
  const edges: Array<[number, number]> = [];
  if (f < inner.from) edges.push([f, inner.from]);
  if (inner.to < t) edges.push([inner.to, t]);
  // Partial hours still within the rounds retention are read from their rounds.
  const rawEdges = edges.filter(([a, b]) => b > a && floorHour(a) >= raw_from.getTime());
  // Every read in one statement (uptime.db.ts): one round trip on one connection.
  const r = rollupRanges(inner.from, inner.to);
  const dates = ([a, b]: [number, number]): [Date, Date] => [new Date(a), new Date(b)];
  const { sums, spells, owner, edge_hours: edgeRows, edge_rounds: edgeRounds } = await uptimeReads(sql, monitor_id, {
    days: r.days && dates(r.days), hours: r.hours.map(dates),
    edge_hours: edges.filter(([a]) => floorHour(a) < raw_from.getTime()).map(([a]) => new Date(floorHour(a))),
    edge_rounds: rawEdges.map(dates), timeline: [from, to],
  });
  const totals = zero();
  add(totals, sums);
  // Edge hours past the rounds retention: their hour's row, in proportion to the overlap.
  for (const r of edgeRows) {
    const h = r.hour.getTime();
    add(totals, r, (Math.min(h + HOUR_MS, t) - Math.max(h, f)) / HOUR_MS);
  }
  for (const round of edgeRounds) {
    const start = round.scheduled_at.getTime();
    const s = Math.max(0, (Math.min(start + round.interval_s * 1000, t) - start) / 1000);
    const c = zero();
    if (!round.counted) c.maintenance_s = s;
    else {
      c[`${round.verdict}_s`] = s;
      c[`rounds_${round.verdict}`] = 1;
    }
    add(totals, c);
  }
  // Whole seconds first, and the ratio from them: the figures shown agree with each other
  // (a round still running counts its elapsed part, a fraction of a second that rounding would
  // otherwise keep in the ratio but drop from the seconds).
  const up_s = Math.round(totals.up_s);
  const degraded_s = Math.round(totals.degraded_s);
  const down_s = Math.round(totals.down_s);
  const monitored = up_s + degraded_s + down_s;
  const ratio = monitored > 0 ? (up_s + degraded_s) / monitored : null;
  const mttr_s = spells.recovered_s.length > 0 ? spells.recovered_s.reduce((a, b) => a + b, 0) / spells.recovered_s.length : null;
  const uptime: Uptime = {
    from: from.toISOString(), to: to.toISOString(), period,
    uptime: ratio === null ? null : Math.round(ratio * 1e6) / 1e6,
    uptime_percent: ratio === null ? null : Math.round(ratio * 1e5) / 1e3,
    monitored_s: monitored, up_s, degraded_s,
    downtime_s: down_s, maintenance_s: Math.round(totals.maintenance_s), no_data_s: Math.round(totals.no_data_s),
    incidents: spells.incidents, mttr_s: mttr_s === null ? null : Math.round(mttr_s * 1000) / 1000,
    rounds: { up: Math.round(totals.rounds_up), degraded: Math.round(totals.rounds_degraded), down: Math.round(totals.rounds_down), no_data: Math.round(totals.rounds_no_data) },
  };
  return { uptime, owner };
}
