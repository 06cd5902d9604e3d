import { STATS_BUCKET_STEPS_S, type Stats, type StatsBucket, type StatsSummary } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';
import { addCountsToHistogram, addToHistogram, bucketIndex, Histogram, histogramQuantiles, mergeHistogram, unpackHistogram } from './histogram.js';
import type { SeriesRow } from './history.db.js';
import type { RollupMarks } from './jobs.db.js';
import { decodeBlock } from './pack-codec.js';
import { statsCells, type StatsCellRow } from './stats.db.js';

const HOUR_MS = 3_600_000;

/** The bucket width for a range when none is asked for: the first step giving at most 100 buckets, seconds. */
export function autoBucketS(span_ms: number): number {
  for (const s of STATS_BUCKET_STEPS_S) if (span_ms / (s * 1000) <= 100) return s;
  return STATS_BUCKET_STEPS_S[STATS_BUCKET_STEPS_S.length - 1]!;
}

/** The quantiles a summary gives: p50, p95, p99. */
const QUANTILES = [0.5, 0.95, 0.99] as const;

/** A time in ms to the µs, as the stats answer gives them (null stays null). */
const ms3 = (v: number | null): number | null => (v === null ? null : Math.round(v * 1000) / 1000);

/** Mergeable totals of a set of checks. */
class Acc {
  checks = 0;
  failures = 0;
  rt_count = 0;
  rt_sum = 0;
  rt_min: number | null = null;
  rt_max: number | null = null;
  hist = new Histogram();

  add(checks: number, failures: number, rt_count: number, sum: number, min: number | null, max: number | null): void {
    this.checks += checks;
    this.failures += failures;
    this.rt_count += rt_count;
    this.rt_sum += sum;
    if (min !== null) this.rt_min = this.rt_min === null ? min : Math.min(this.rt_min, min);
    if (max !== null) this.rt_max = this.rt_max === null ? max : Math.max(this.rt_max, max);
  }

  merge(o: Acc): void {
    this.add(o.checks, o.failures, o.rt_count, o.rt_sum, o.rt_min, o.rt_max);
    mergeHistogram(this.hist, o.hist);
  }

  summary(): StatsSummary {
    const [p50, p95, p99] = histogramQuantiles(this.hist, QUANTILES, this.rt_min, this.rt_max);
    return {
      checks: this.checks, failures: this.failures,
      failure_rate: this.checks > 0 ? Math.round((this.failures / this.checks) * 1e6) / 1e6 : null,
      p50_ms: ms3(p50!), p95_ms: ms3(p95!), p99_ms: ms3(p99!),
      min_ms: ms3(this.rt_min), avg_ms: ms3(this.rt_count > 0 ? this.rt_sum / this.rt_count : null), max_ms: ms3(this.rt_max),
    };
  }
}

/** Totals per group key (series id) and time bucket. */
type Grid = Map<number, Map<number, Acc>>;

function cell(grid: Grid, series_id: number, b: number): Acc {
  let row = grid.get(series_id);
  if (!row) grid.set(series_id, (row = new Map()));
  let acc = row.get(b);
  if (!acc) row.set(b, (acc = new Acc()));
  return acc;
}

/**
 * Where each part of [from, to) is read: daily rollups for whole days (when buckets are whole days),
 * hourly rollups for whole hours (when buckets are whole hours), raw checks for the rest: as far
 * as the rollup job has gone (`marks`). A rollup segment starts at the day or hour `from` falls in
 * (that partial day or hour counts whole).
 */
export function statsSources(from: Date, to: Date, bucket_s: number, marks: RollupMarks): Array<{ source: 'day' | 'hour' | 'raw'; from: Date; to: Date }> {
  const out: Array<{ source: 'day' | 'hour' | 'raw'; from: Date; to: Date }> = [];
  let at = from.getTime();
  const t = to.getTime();
  const push = (source: 'day' | 'hour' | 'raw', a: number, b: number, unit: number) => {
    if (b > a) out.push({ source, from: new Date(Math.floor(a / unit) * unit), to: new Date(b) });
  };
  if (bucket_s % 3600 === 0 && marks.hours_until && marks.hours_until.getTime() > at) {
    const hours_end = Math.min(t, marks.hours_until.getTime());
    if (bucket_s % 86_400 === 0 && marks.days_from && marks.days_until && marks.days_until.getTime() > at) {
      const days_from = marks.days_from.getTime();
      const days_end = Math.min(hours_end, marks.days_until.getTime());
      if (at < days_from) {
        push('hour', at, Math.min(days_from, hours_end), HOUR_MS);
        at = Math.min(days_from, hours_end);
      }
      if (at < days_end) {
        push('day', at, days_end, 86_400_000);
        at = days_end;
      }
    }
    if (at < hours_end) {
      push('hour', at, hours_end, HOUR_MS);
      at = hours_end;
    }
  }
  if (at < t) out.push({ source: 'raw', from: new Date(at), to });
  return out;
}

/**
 * Response-time and failure statistics of a monitor's checks in [from, to) per time bucket
 * (docs/api/monitors.md "Stats"), overall and, with `group_by`, per node or per country.
 * Buckets are aligned to the epoch (a day bucket starts at 00:00 UTC). Rollups are read where
 * statsSources says (daily and hourly, up to the rollup job's `marks`), raw checks for the rest
 * (packed ones included: checks/pack.ts), all in one statement (stats.db.ts statsCells).
 */
export async function monitorStats(
  sql: SqlExecutor, series: SeriesRow[], from: Date, to: Date, bucket_s: number, group_by: 'node' | 'country' | undefined, marks: RollupMarks,
): Promise<Stats> {
  const sources = statsSources(from, to, bucket_s, marks);
  const cells = await statsCells(sql, sources, series.map((s) => s.id), bucket_s);
  return statsOfCells(series, from, to, bucket_s, group_by, sources, cells);
}

/**
 * The statistics answer ({@link monitorStats}) from cells already read over `sources` (what
 * statsSources gave for the same range, bucket and marks): stats.db.ts statsCells or
 * monitorStatsCells rows of `series`.
 */
export function statsOfCells(
  series: SeriesRow[], from: Date, to: Date, bucket_s: number, group_by: 'node' | 'country' | undefined,
  sources: ReturnType<typeof statsSources>, cells: StatsCellRow[],
): Stats {
  const grid: Grid = new Map();
  const raw = sources.find((p) => p.source === 'raw');
  for (const c of cells) {
    if (c.data !== null) {
      // Packed checks of the raw part (stats.db.ts statsCells), totalled here as SQL totals raw ones.
      for (const k of decodeBlock(c.hour!, c.data, false)) {
        const at = k.scheduled_at.getTime();
        if (!raw || at < raw.from.getTime() || at >= raw.to.getTime()) continue;
        const acc = cell(grid, c.series_id, Math.floor(at / 1000 / bucket_s));
        const rt = k.response_ms;
        acc.add(1, k.success ? 0 : 1, rt === null ? 0 : 1, rt ?? 0, rt, rt);
        if (rt !== null) addToHistogram(acc.hist, bucketIndex(rt));
      }
      continue;
    }
    const acc = cell(grid, c.series_id, c.b!);
    acc.add(c.checks, c.failures, c.rt_count, c.rt_sum_ms, c.rt_min_ms, c.rt_max_ms);
    if (c.rt_hist) unpackHistogram(c.rt_hist, acc.hist);
    else if (c.hist_idx) addCountsToHistogram(acc.hist, c.hist_idx, c.hist_n!);
  }

  const first_b = Math.floor(from.getTime() / 1000 / bucket_s);
  const last_b = Math.ceil(to.getTime() / 1000 / bucket_s) - 1;
  // Every group has the same buckets: their start times are formatted once.
  const starts: string[] = [];
  for (let b = first_b; b <= last_b; b++) starts.push(new Date(b * bucket_s * 1000).toISOString());
  const series_of = (key: (s: SeriesRow) => string) => {
    const groups = new Map<string, SeriesRow[]>();
    for (const s of series) groups.set(key(s), [...(groups.get(key(s)) ?? []), s]);
    return groups;
  };
  const build = (members: SeriesRow[]): { overall: StatsSummary; buckets: StatsBucket[] } => {
    const total = new Acc();
    const empty = new Acc();
    const buckets: StatsBucket[] = [];
    for (let b = first_b; b <= last_b; b++) {
      // A bucket one member has checks in is that member's cell as it is (summaries only read);
      // several are merged into a new one.
      let acc: Acc | null = null;
      let merged = false;
      for (const s of members) {
        const c = grid.get(s.id)?.get(b);
        if (!c) continue;
        if (acc === null) acc = c;
        else {
          if (!merged) {
            const m = new Acc();
            m.merge(acc);
            acc = m;
            merged = true;
          }
          acc.merge(c);
        }
      }
      acc ??= empty;
      total.merge(acc);
      buckets.push({ start: starts[b - first_b]!, ...acc.summary() });
    }
    return { overall: total.summary(), buckets };
  };

  const all = build(series);
  let groups: Stats['groups'] = null;
  if (group_by === 'node') {
    // The control plane's own checks (heartbeat, domain_expiry) have no node: their group's node_id is null.
    groups = [...series_of((s) => s.node_id ?? '')].map(([node_id, members]) => ({ node_id: node_id || null, country: members[0]!.country, ...build(members) }));
  } else if (group_by === 'country') {
    groups = [...series_of((s) => s.country ?? '')].map(([country, members]) => ({ node_id: null, country: country || null, ...build(members) }));
  }
  return {
    from: from.toISOString(), to: to.toISOString(), bucket_s, source: sources.some((p) => p.source !== 'raw') ? 'rollup' : 'raw',
    overall: all.overall, buckets: all.buckets, groups,
  };
}
