import type { AssertionResult, MonitorState } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';
import type { ChangeRow } from './decide.db.js';
import { decodeEntries, entriesWithDetails, type EntryRow } from './entries.db.js';

/*
 * Read queries of a monitor's history (0025_checks.sql): raw checks, state changes, rounds and
 * rollups. Callers resolve the monitor (and its owner) first.
 */

/** A (monitor, node) series of the monitor, with the node's country; node_id null: checks the control plane runs. */
export interface SeriesRow {
  id: number;
  node_id: string | null;
  country: string | null;
}

/** The monitor's series (every node that ever reported it), optionally only `node_id`'s. */
export async function monitorSeries(sql: SqlExecutor, monitor_id: string, node_id?: string): Promise<SeriesRow[]> {
  return sql<SeriesRow[]>`
    SELECT s.id, s.node_id, n.country FROM check_series s LEFT JOIN nodes n ON n.id = s.node_id
    WHERE s.monitor_id = ${monitor_id} ${node_id ? sql`AND s.node_id = ${node_id}` : sql``}
    ORDER BY s.node_id`;
}

/** A stored check as read back. */
export interface CheckRow {
  series_id: number;
  scheduled_at: Date;
  stored_at: Date;
  start_offset_ms: number;
  duration_ms: number;
  response_ms: number | null;
  success: boolean;
  error_class: string | null;
  error: string | null;
  assertions: AssertionResult[] | null;
  /** Uncompressed output (control-plane checks); node checks have `output_z` instead. */
  output: Record<string, unknown> | null;
  /** Compressed output (checks/output-codec.ts), or null. */
  output_z: Uint8Array | null;
}

/** Checks of `series` scheduled in [from, to): a page, newest first, and how many there are. */
export async function listChecks(sql: SqlExecutor, series: number[], from: Date, to: Date, limit: number, offset: number): Promise<{ rows: CheckRow[]; total: number }> {
  if (series.length === 0) return { rows: [], total: 0 };
  const [[count], rows] = await Promise.all([
    sql<{ n: number }[]>`SELECT count(*)::int AS n FROM check_entries(${series}::int4[], ${from}, ${to})`,
    entriesWithDetails(sql, sql`
      SELECT * FROM check_entries(${series}::int4[], ${from}, ${to}) ORDER BY scheduled_at DESC, series_id LIMIT ${limit} OFFSET ${offset}`,
    sql`e.scheduled_at DESC, e.series_id`),
  ]);
  return { rows: decodeEntries(rows), total: count!.n };
}

/**
 * One statement (one snapshot): where packing stands (check_packing.packed_until: null while
 * nothing is packed), how many raw checks `series` have scheduled in [from, to), and the page of
 * them at `offset` (newest first; not read at all when the page lies past them). Raw checks all
 * lie at or after packed_until (a day's raw partitions are dropped in the transaction that moves
 * it), so they come before every packed one.
 */
export async function rawChecksMarked(sql: SqlExecutor, series: number[], from: Date, to: Date, limit: number, offset: number): Promise<{
  packed_until: Date | null; raw_n: number; rows: Array<Omit<CheckRow, 'stored_at'>>;
}> {
  const rows = await sql<Array<EntryRow & { packed_until: Date | null; raw_n: number }>>`
    WITH n AS (SELECT count(*)::int AS raw_n FROM check_entries(${series}::int4[], ${from}, ${to}))
    SELECT (SELECT packed_until FROM check_packing) AS packed_until, n.raw_n, c.* FROM n LEFT JOIN LATERAL (${entriesWithDetails(sql, sql`
      SELECT * FROM check_entries(${series}::int4[], ${from}, ${to}) WHERE n.raw_n > ${offset} ORDER BY scheduled_at DESC, series_id LIMIT ${limit} OFFSET ${offset}`,
    sql`e.scheduled_at DESC, e.series_id`)}) c ON true`;
  const first = rows[0]!;
  return {
    packed_until: first.packed_until, raw_n: first.raw_n,
    rows: decodeEntries(rows.filter((r) => r.series_id !== null)).map(({ packed_until: _p, raw_n: _n, stored_at: _s, ...r }) => r),
  };
}

/**
 * Checks of `series` stored after `after` (a keyset position: stored_at in µs since the epoch,
 * series, round start in ms) and at least `settle_ms` ago (so no transaction still running can
 * commit a check before this position later), whose round started in the last `window_ms` (live
 * rounds only), in (stored_at, series, round) order, each with its stored_at in µs (exact: a Date
 * would lose the microseconds the cursor needs).
 */
export async function checksStoredAfter(
  sql: SqlExecutor, series: number[], after: { stored_us: number; series_id: number; scheduled_ms: number }, settle_ms: number, window_ms: number, limit: number,
): Promise<Array<CheckRow & { stored_us: string }>> {
  if (series.length === 0) return [];
  const rows = await entriesWithDetails<EntryRow & { stored_us: string }>(sql, sql`
    SELECT * FROM check_entries(${series}::int4[], now() - make_interval(secs => ${window_ms / 1000}), 'infinity')
    WHERE (stored_at, series_id, scheduled_at) > ('epoch'::timestamptz + ${String(Math.floor(after.stored_us))}::bigint * interval '1 microsecond',
        ${after.series_id}, ${new Date(after.scheduled_ms)})
      AND stored_at <= now() - make_interval(secs => ${settle_ms / 1000})
    ORDER BY stored_at, series_id, scheduled_at LIMIT ${limit}`,
  sql`e.stored_at, e.series_id, e.scheduled_at`, sql`, (extract(epoch FROM e.stored_at) * 1000000)::bigint::text AS stored_us`);
  return decodeEntries(rows);
}

const CHANGE_COLUMNS = (sql: SqlExecutor) => sql`
  id::float8 AS id, monitor_id, from_state, to_state, changed_at, recorded_at, source, late, reason, failing_nodes, round_at`;

/** State changes of the monitor that took effect in [from, to) (superseded ones left out): a page, newest first, and the total. */
export async function listStateChanges(sql: SqlExecutor, monitor_id: string, from: Date, to: Date, to_state: MonitorState | undefined, limit: number, offset: number): Promise<{ rows: ChangeRow[]; total: number }> {
  const cond = sql`monitor_id = ${monitor_id} AND superseded_at IS NULL AND changed_at >= ${from} AND changed_at < ${to}
    ${to_state ? sql`AND to_state = ${to_state}` : sql``}`;
  const [[count], rows] = await Promise.all([
    sql<{ n: number }[]>`SELECT count(*)::int AS n FROM monitor_state_changes WHERE ${cond}`,
    sql<ChangeRow[]>`SELECT ${CHANGE_COLUMNS(sql)} FROM monitor_state_changes WHERE ${cond} ORDER BY changed_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}`,
  ]);
  return { rows: rows.map((r) => ({ ...r, id: Number(r.id) })), total: count!.n };
}

/** State changes of the monitor recorded with an id above `after_id` (the event stream), oldest first. */
export async function stateChangesAfter(sql: SqlExecutor, monitor_id: string, after_id: number, limit: number): Promise<ChangeRow[]> {
  const rows = await sql<ChangeRow[]>`
    SELECT ${CHANGE_COLUMNS(sql)} FROM monitor_state_changes WHERE monitor_id = ${monitor_id} AND id > ${after_id} AND superseded_at IS NULL
    ORDER BY id LIMIT ${limit}`;
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}

/** The database's clock now, µs since the epoch (where a new stream starts: stored_at uses this clock). */
export async function databaseNowUs(sql: SqlExecutor): Promise<number> {
  const [row] = await sql<{ us: string }[]>`SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint::text AS us`;
  return Number(row!.us);
}

/** The highest state-change id of the monitor (0 when none): where a new stream starts. */
export async function lastStateChangeId(sql: SqlExecutor, monitor_id: string): Promise<number> {
  const [row] = await sql<{ id: number | null }[]>`SELECT max(id)::float8 AS id FROM monitor_state_changes WHERE monitor_id = ${monitor_id}`;
  return Number(row?.id ?? 0);
}

/** An hour of round_rollups. */
export interface RoundRollupRow {
  hour: Date;
  up_s: number;
  degraded_s: number;
  down_s: number;
  maintenance_s: number;
  /** Seconds of rounds no node reported by their deadline (verdict no_data). */
  no_data_s: number;
  rounds_up: number;
  rounds_degraded: number;
  rounds_down: number;
  rounds_no_data: number;
}

/** One monitor's round_rollups summed over one UTC day (`day` as YYYY-MM-DD). */
export type RoundRollupDay = Omit<RoundRollupRow, 'hour'> & { monitor_id: string; day: string };

/**
 * The hourly round_rollups of `monitor_ids` for hours in [from, to), summed per monitor and UTC
 * day: the uptime bars of status pages (docs/api/status-pages.md "Uptime bars") read these, never
 * the checks. Days without any row are absent.
 */
export async function roundRollupDays(sql: SqlExecutor, monitor_ids: string[], from: Date, to: Date): Promise<RoundRollupDay[]> {
  if (monitor_ids.length === 0) return [];
  return sql<RoundRollupDay[]>`
    SELECT monitor_id, to_char(date_trunc('day', hour AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS day,
      sum(up_s)::float8 AS up_s, sum(degraded_s)::float8 AS degraded_s, sum(down_s)::float8 AS down_s,
      sum(maintenance_s)::float8 AS maintenance_s, sum(no_data_s)::float8 AS no_data_s,
      sum(rounds_up)::float8 AS rounds_up, sum(rounds_degraded)::float8 AS rounds_degraded,
      sum(rounds_down)::float8 AS rounds_down, sum(rounds_no_data)::float8 AS rounds_no_data
    FROM round_rollups WHERE monitor_id = ANY(${monitor_ids}::text[]) AND hour >= ${from} AND hour < ${to}
    GROUP BY 1, 2`;
}
