import type { FailingNode, MonitorState, MonitorType } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';
import { boolTexts as bools } from '../db/array-text.js';
import type { Verdict } from './verdict.js';
import type { RoundRollupRow } from './history.db.js';
import { decodeEntries, entriesWithDetails, type EntryRow } from './entries.db.js';

/*
 * SQL of the verdict job (0025_checks.sql): claim monitors with rounds to judge, lock their rounds
 * from the earliest changed one, write verdicts, state changes, rollup differences and the monitor
 * state. Every statement covers all monitors of a pass. The checks they count are those of dirty
 * rounds, which lie within the rounds retention: never packed (pack.ts packs only older days).
 */

/** A monitor claimed for judging (row locked until the pass commits). */
export interface ClaimedMonitor {
  id: string;
  user_id: string;
  name: string;
  type: MonitorType;
  target: string | null;
  state: MonitorState;
  state_changed_at: Date;
  down_quorum: number | null;
}

/**
 * Up to `limit` monitors whose earliest dirty round can be judged (past its deadline, judged
 * before and changed since, or complete: as many checks stored as nodes expected), locked FOR
 * NO KEY UPDATE SKIP LOCKED (another instance's pass, a pause or any other change of the monitor
 * row in progress, simply skips them). A monitor whose earliest dirty round still waits is not
 * claimed: its later rounds wait too (verdicts are taken in order).
 * Not FOR UPDATE: that lock also conflicts with the key-share lock every insert of a row
 * referencing the monitor holds until it commits (an alert event the engine opens, a node's first
 * check series), so a pass woken for the monitor's round skipped it and the round waited for the
 * next poll (`checks_decide_interval_ms`) with no wake left to come. The pass's own UPDATE of the
 * row takes FOR NO KEY UPDATE anyway; a delete of the monitor still conflicts with it.
 * A round is complete when its counts say so: ingest counts every check stored into its round
 * (ingest.db.ts storeNodeChecks), so no check is read here.
 */
export async function claimMonitors(tx: SqlExecutor, limit: number): Promise<ClaimedMonitor[]> {
  return tx<ClaimedMonitor[]>`
    WITH e AS (
      SELECT DISTINCT ON (monitor_id) monitor_id, scheduled_at, expected, reported, deadline_at, verdict
      FROM check_rounds WHERE dirty ORDER BY monitor_id, scheduled_at)
    SELECT m.id, m.user_id, m.name, m.type, m.target, m.state, m.state_changed_at,
      CASE WHEN jsonb_typeof(m.config->'down_quorum') = 'number' THEN (m.config->>'down_quorum')::int END AS down_quorum
    FROM monitors m JOIN e ON e.monitor_id = m.id
    WHERE e.deadline_at <= now() OR e.verdict IS NOT NULL OR e.reported >= e.expected
    ORDER BY m.id LIMIT ${limit}
    FOR NO KEY UPDATE OF m SKIP LOCKED`;
}

/** Dirty rounds of monitors that no longer exist are forgotten (they can never be judged). @returns how many */
export async function dropOrphanRounds(tx: SqlExecutor): Promise<number> {
  const rows = await tx`
    UPDATE check_rounds SET dirty = false WHERE dirty AND NOT EXISTS (SELECT 1 FROM monitors m WHERE m.id = check_rounds.monitor_id)
    RETURNING monitor_id`;
  return rows.length;
}

/** The earliest dirty round of each of `ids` (where its history must be replayed from). */
export async function earliestDirty(tx: SqlExecutor, ids: string[]): Promise<Map<string, Date>> {
  const rows = await tx<{ monitor_id: string; t0: Date }[]>`
    SELECT monitor_id, min(scheduled_at) AS t0 FROM check_rounds WHERE dirty AND monitor_id = ANY(${ids}::text[]) GROUP BY monitor_id`;
  return new Map(rows.map((r) => [r.monitor_id, r.t0]));
}

/** A round as the verdict job reads it. */
export interface RoundRow {
  monitor_id: string;
  scheduled_at: Date;
  deadline_at: Date;
  interval_s: number;
  expected: number;
  reported: number;
  failed: number;
  quorum: number | null;
  verdict: Verdict | null;
  dirty: boolean;
  late: boolean;
  counted: boolean;
}

/**
 * Every round of each monitor from its `t0` on, oldest first, locked FOR UPDATE in (monitor,
 * scheduled_at) order: the order ingest writes rounds in, so the two never deadlock, and a result
 * arriving meanwhile waits for this pass and makes its round dirty again after it.
 * @returns monitor id → its rounds, with `now` (the database clock that decides deadlines)
 */
export async function lockRoundsFrom(tx: SqlExecutor, from: Map<string, Date>): Promise<{ rounds: Map<string, RoundRow[]>; now: Date }> {
  const ids = [...from.keys()];
  const rows = await tx<Array<RoundRow & { now: Date }>>`
    SELECT r.monitor_id, r.scheduled_at, r.deadline_at, r.interval_s, r.expected::int AS expected, r.reported::int AS reported,
      r.failed::int AS failed, r.quorum::int AS quorum, r.verdict, r.dirty, r.late, r.counted, now() AS now
    FROM check_rounds r JOIN unnest(${ids}::text[], ${ids.map((id) => from.get(id)!.toISOString())}::timestamptz[]) AS u(m, t0)
      ON r.monitor_id = u.m AND r.scheduled_at >= u.t0
    ORDER BY r.monitor_id, r.scheduled_at
    FOR UPDATE OF r`;
  const rounds = new Map<string, RoundRow[]>(ids.map((id) => [id, []]));
  let now = new Date();
  for (const { now: n, ...r } of rows) {
    now = n;
    rounds.get(r.monitor_id)!.push(r);
  }
  if (rows.length === 0) now = (await tx<{ now: Date }[]>`SELECT now() AS now`)[0]!.now;
  return { rounds, now };
}

/** A state-change row as the replay needs it. */
export interface LoggedChange {
  id: number;
  monitor_id: string;
  from_state: MonitorState;
  to_state: MonitorState;
  changed_at: Date;
  source: 'verdict' | 'user' | 'maintenance';
  /** The round behind it (changes the replay made); null for changes made by hand (pause, resume, state set to maintenance). */
  round_at: Date | null;
}

/**
 * For each monitor: the state in force just before its `t0` (the last change before it; pending
 * when none), and its changes from `t0` on, oldest first (superseded ones left out).
 */
export async function changesAround(tx: SqlExecutor, from: Map<string, Date>): Promise<{ before: Map<string, { to_state: MonitorState; manual: boolean }>; after: Map<string, LoggedChange[]> }> {
  const ids = [...from.keys()];
  const t0s = ids.map((id) => from.get(id)!.toISOString());
  const [prior, later] = await Promise.all([
    tx<{ monitor_id: string; to_state: MonitorState; manual: boolean }[]>`
      SELECT u.m AS monitor_id, c.to_state, c.round_at IS NULL AS manual FROM unnest(${ids}::text[], ${t0s}::timestamptz[]) AS u(m, t0)
      CROSS JOIN LATERAL (SELECT to_state, round_at FROM monitor_state_changes
        WHERE monitor_id = u.m AND superseded_at IS NULL AND changed_at < u.t0 ORDER BY changed_at DESC, id DESC LIMIT 1) c`,
    tx<LoggedChange[]>`
      SELECT c.id::float8 AS id, c.monitor_id, c.from_state, c.to_state, c.changed_at, c.source, c.round_at
      FROM monitor_state_changes c JOIN unnest(${ids}::text[], ${t0s}::timestamptz[]) AS u(m, t0)
        ON c.monitor_id = u.m AND c.changed_at >= u.t0 AND c.superseded_at IS NULL
      ORDER BY c.monitor_id, c.changed_at, c.id`,
  ]);
  const before = new Map(prior.map((r) => [r.monitor_id, { to_state: r.to_state, manual: r.manual }]));
  const after = new Map<string, LoggedChange[]>(ids.map((id) => [id, []]));
  for (const c of later) after.get(c.monitor_id)!.push({ ...c, id: Number(c.id) });
  return { before, after };
}

/**
 * For each monitor: how many of its last `n` judged rounds before its `t0` were counted `no_data`
 * rounds in a row, newest first (a round with a report, or one not counted, ends the run): the
 * replay needs them to tell the second silent round in a row (replay.ts NO_DATA_ROUNDS).
 * @returns monitor id → count (absent: 0)
 */
export async function silentBefore(tx: SqlExecutor, from: Map<string, Date>, n: number): Promise<Map<string, number>> {
  const ids = [...from.keys()];
  if (ids.length === 0 || n <= 0) return new Map();
  const rows = await tx<{ monitor_id: string; silent: boolean[] }[]>`
    SELECT u.m AS monitor_id, array(SELECT r.verdict = 'no_data' AND r.counted FROM check_rounds r
      WHERE r.monitor_id = u.m AND r.scheduled_at < u.t0 AND r.verdict IS NOT NULL ORDER BY r.scheduled_at DESC LIMIT ${n}) AS silent
    FROM unnest(${ids}::text[], ${ids.map((id) => from.get(id)!.toISOString())}::timestamptz[]) AS u(m, t0)`;
  const out = new Map<string, number>();
  for (const r of rows) {
    const run = r.silent.findIndex((x) => !x);
    const count = run === -1 ? r.silent.length : run;
    if (count > 0) out.set(r.monitor_id, count);
  }
  return out;
}

/** Failed checks of rounds `(monitor, scheduled_at)`, with the node's country (node and country null for a control-plane check): monitor/epoch ms → failures. */
export async function failuresOf(tx: SqlExecutor, rounds: Array<{ monitor_id: string; at: Date }>): Promise<Map<string, FailingNode[]>> {
  const out = new Map<string, FailingNode[]>();
  if (rounds.length === 0) return out;
  const rows = decodeEntries(await entriesWithDetails<EntryRow & { monitor_id: string; node_id: string | null; country: string | null }>(tx, tx`
    SELECT c.*, s.monitor_id, s.node_id, n.country
    FROM unnest(${rounds.map((r) => r.monitor_id)}::text[], ${rounds.map((r) => r.at.toISOString())}::timestamptz[]) AS u(m, at)
    CROSS JOIN LATERAL check_entries(ARRAY(SELECT id FROM check_series WHERE monitor_id = u.m), u.at, u.at + interval '1 millisecond') c
    JOIN check_series s ON s.id = c.series_id
    LEFT JOIN nodes n ON n.id = s.node_id
    WHERE NOT c.success`, tx`e.node_id`, tx`, e.monitor_id, e.node_id, e.country`));
  for (const r of rows) {
    const key = `${r.monitor_id}/${r.scheduled_at.getTime()}`;
    const list = out.get(key) ?? [];
    list.push({ node_id: r.node_id, country: r.country, error: r.error });
    out.set(key, list);
  }
  return out;
}

/** A round's new outcome: `decide` rounds were dirty and are judged now; others only change `counted`. */
export interface RoundWrite {
  monitor_id: string;
  scheduled_at: Date;
  decide: boolean;
  verdict: Verdict | null;
  quorum: number | null;
  expected: number;
  reported: number;
  failed: number;
  counted: boolean;
}

/** Write verdicts and report counts (judged rounds are no longer dirty) and counted flags of locked rounds. */
export async function writeRounds(tx: SqlExecutor, w: RoundWrite[]): Promise<void> {
  if (w.length === 0) return;
  const col = <K extends keyof RoundWrite>(k: K) => w.map((x) => x[k]);
  await tx`
    UPDATE check_rounds r SET verdict = u.verdict, quorum = u.quorum::smallint, expected = u.expected::smallint, counted = u.counted,
      reported = u.reported::smallint, failed = u.failed::smallint,
      dirty = CASE WHEN u.decide THEN false ELSE r.dirty END, decided_at = CASE WHEN u.decide THEN now() ELSE r.decided_at END
    FROM unnest(${col('monitor_id')}::text[], ${w.map((x) => x.scheduled_at.toISOString())}::timestamptz[], ${bools(col('decide'))}::text[]::boolean[],
      ${col('verdict')}::text[], ${col('quorum')}::int[], ${col('expected')}::int[], ${bools(col('counted'))}::text[]::boolean[],
      ${col('reported')}::int[], ${col('failed')}::int[])
      AS u(m, at, decide, verdict, quorum, expected, counted, reported, failed)
    WHERE r.monitor_id = u.m AND r.scheduled_at = u.at`;
}

/** A state change the replay made, to record: a verdict's, or a round's in a maintenance window. */
export interface ChangeInsert {
  monitor_id: string;
  source: 'verdict' | 'maintenance';
  from_state: MonitorState;
  to_state: MonitorState;
  changed_at: Date;
  late: boolean;
  reason: string | null;
  failing_nodes: FailingNode[];
}

/** A recorded state change, as the API shows it (0025_checks.sql monitor_state_changes). */
export interface ChangeRow {
  id: number;
  monitor_id: string;
  from_state: MonitorState;
  to_state: MonitorState;
  changed_at: Date;
  recorded_at: Date;
  source: 'verdict' | 'user' | 'maintenance';
  late: boolean;
  reason: string | null;
  failing_nodes: FailingNode[];
  round_at: Date | null;
}

/** Mark `ids` superseded and record `changes` (round_at = changed_at: the round behind each). @returns the new rows */
export async function writeChanges(tx: SqlExecutor, superseded: number[], changes: ChangeInsert[]): Promise<ChangeRow[]> {
  if (superseded.length > 0) await tx`UPDATE monitor_state_changes SET superseded_at = now() WHERE id = ANY(${superseded}::bigint[])`;
  if (changes.length === 0) return [];
  const col = <K extends keyof ChangeInsert>(k: K) => changes.map((c) => c[k]);
  const rows = await tx<ChangeRow[]>`
    INSERT INTO monitor_state_changes (monitor_id, from_state, to_state, changed_at, source, late, reason, failing_nodes, round_at)
    SELECT u.m, u.f, u.t, u.at, u.source, u.late, u.reason, u.nodes, u.at
    FROM unnest(${col('monitor_id')}::text[], ${col('source')}::text[], ${col('from_state')}::text[], ${col('to_state')}::text[],
      ${changes.map((c) => c.changed_at.toISOString())}::timestamptz[], ${bools(col('late'))}::text[]::boolean[], ${col('reason')}::text[],
      ${changes.map((c) => JSON.stringify(c.failing_nodes))}::text[]::jsonb[]) WITH ORDINALITY AS u(m, source, f, t, at, late, reason, nodes, n)
    ORDER BY u.n
    RETURNING id::float8 AS id, monitor_id, from_state, to_state, changed_at, recorded_at, source, late, reason, failing_nodes, round_at`;
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}

/** What one round adds to (or, negative, takes from) its monitor-hour uptime row: the row's fields, per monitor. */
export interface RollupDelta extends RoundRollupRow {
  monitor_id: string;
}

/** The counters of round_rollups and round_rollups_daily (0025_checks.sql, 0043, 0063). */
const ROLLUP_COUNTERS = ['up_s', 'degraded_s', 'down_s', 'maintenance_s', 'rounds_up', 'rounds_degraded', 'rounds_down', 'no_data_s', 'rounds_no_data'] as const;

/**
 * Add `deltas` (already summed per monitor and hour) to round_rollups, and the same differences
 * summed per monitor and UTC day to round_rollups_daily (0063_round_rollups_daily.sql), in one
 * statement: a day's row always equals the sum of its hours' rows. Rows in key order.
 */
export async function addRollupDeltas(tx: SqlExecutor, deltas: RollupDelta[]): Promise<void> {
  if (deltas.length === 0) return;
  const list = (f: (c: (typeof ROLLUP_COUNTERS)[number]) => ReturnType<SqlExecutor>) => ROLLUP_COUNTERS.map(f).reduce((a, b) => tx`${a}, ${b}`);
  const cols = list((c) => tx`${tx(c)}`);
  const added = list((c) => tx`${tx(c)} = r.${tx(c)} + EXCLUDED.${tx(c)}`);
  const arrays = list((c) => tx`${deltas.map((d) => d[c])}::int[]`);
  await tx`
    WITH d AS MATERIALIZED (
      SELECT * FROM unnest(${deltas.map((d) => d.monitor_id)}::text[], ${deltas.map((d) => d.hour.toISOString())}::timestamptz[], ${arrays})
        AS u(monitor_id, hour, ${cols})
    ),
    hours AS (
      INSERT INTO round_rollups AS r (monitor_id, hour, ${cols})
      SELECT * FROM d ORDER BY 1, 2
      ON CONFLICT (monitor_id, hour) DO UPDATE SET ${added}
    )
    INSERT INTO round_rollups_daily AS r (monitor_id, day, ${cols})
    SELECT monitor_id, date_trunc('day', hour, 'UTC'), ${list((c) => tx`sum(${tx(c)})`)}
    FROM d GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (monitor_id, day) DO UPDATE SET ${added}`;
}

/** A monitor's new state (`changed_at` null: unchanged) and the start of its latest judged round. */
export interface MonitorWrite {
  id: string;
  state: MonitorState;
  changed_at: Date | null;
  last_round_at: Date | null;
}

/**
 * Write monitors' states and last check times. The state-change trigger is told (vantage.checks_state)
 * that this transaction records its own changes, with their reasons.
 */
export async function writeMonitors(tx: SqlExecutor, w: MonitorWrite[]): Promise<void> {
  if (w.length === 0) return;
  await tx`SELECT set_config('vantage.checks_state', 'on', true)`;
  await tx`
    UPDATE monitors m SET state = u.state, state_changed_at = coalesce(u.changed_at, m.state_changed_at),
      last_check_at = greatest(m.last_check_at, u.last_at)
    FROM unnest(${w.map((x) => x.id)}::text[], ${w.map((x) => x.state)}::text[], ${w.map((x) => x.changed_at?.toISOString() ?? null)}::timestamptz[],
      ${w.map((x) => x.last_round_at?.toISOString() ?? null)}::timestamptz[]) AS u(id, state, changed_at, last_at)
    WHERE m.id = u.id`;
  await tx`SELECT set_config('vantage.checks_state', '', true)`;
}
