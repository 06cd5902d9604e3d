import type { MonitorState, MonitorStatus, MonitorType } from '@vantage/shared-protocol';
import type postgres from 'postgres';
import type { SqlExecutor } from '../contracts.js';
import type { Sql } from '../db/sql.js';
import type { Owner, OwnerScope } from '../teams/authorize.js';

/** A `monitors` row (0020_monitors.sql) without the heartbeat token hash, plus its placement. */
export interface MonitorRow {
  id: string;
  /** Its creator (private targets and node trust still go by the creator's nodes). */
  user_id: string;
  /** The team that owns it, or null: its creator's personal monitor (0046_teams.sql). */
  team_id: string | null;
  name: string;
  type: MonitorType;
  target: string | null;
  config: Record<string, unknown>;
  interval_s: number;
  node_count: number;
  group_id: string | null;
  tags: string[];
  status: MonitorStatus;
  state: MonitorState;
  state_changed_at: Date;
  private_target: boolean;
  heartbeat_token_preview: string | null;
  /** Bumped on every change (placement compares it with what each node holds). */
  revision: number;
  last_check_at: Date | null;
  created_at: Date;
  updated_at: Date;
  /** Nodes the monitor is placed on; empty until placement assigns it. */
  node_ids: string[];
  /** Uptime of the last 24 hours, 0..1, from the check history's hourly rollups (0025_checks.sql monitor_uptime_24h); null without judged rounds. */
  uptime_24h: number | null;
}

/** What a monitor is made of, validated (monitors/spec.ts). */
export type MonitorFields = Pick<MonitorRow, 'name' | 'target' | 'config' | 'interval_s' | 'node_count' | 'group_id' | 'tags' | 'private_target'>;

// node_ids: the nodes of the monitor's live placement (monitor_placements, 0024), by id; uptime_24h
// from the check history's hourly rollups: the body of 0025_checks.sql monitor_uptime_24h written
// out (the same 25 rows and formula; uptime.test.ts compares the two): Postgres cannot inline a
// function with an aggregate, and its call per row was about half of a 100-row page's time
// (EXPLAIN ANALYZE 9.2 → 4.6 ms, docs/benchmarks.md "Monitor list, uptime and stats latency");
// the subquery is planned with the statement.
const COLUMNS = (sql: SqlExecutor) => sql`
  id, user_id, team_id, name, type, target, config, interval_s, node_count, group_id, tags, status, state,
  state_changed_at, private_target, heartbeat_token_preview, revision::int AS revision, last_check_at,
  created_at, updated_at,
  ARRAY(SELECT p.node_id FROM monitor_placements p WHERE p.monitor_id = monitors.id AND p.ended_at IS NULL ORDER BY p.node_id) AS node_ids,
  (SELECT CASE WHEN sum(r.up_s + r.degraded_s + r.down_s) > 0
      THEN sum(r.up_s + r.degraded_s)::double precision / sum(r.up_s + r.degraded_s + r.down_s) END
    FROM round_rollups r WHERE r.monitor_id = monitors.id AND r.hour >= date_trunc('hour', now()) - interval '24 hours') AS uptime_24h`;

/** Outcome of an insert: the row, or why not. */
export type InsertOutcome = { row: MonitorRow } | { refused: 'limit' | 'name_taken' };

/** SQL condition "owned by exactly `owner`": its team's rows, or the user's personal rows. */
function ownerIs(ex: SqlExecutor, owner: Owner) {
  return owner.team_id === null ? ex`team_id IS NULL AND user_id = ${owner.user_id}` : ex`team_id = ${owner.team_id}`;
}

/** True when `err` is a violation of the per-owner name indexes (0051_monitor_names_per_owner.sql). */
function isNameTaken(err: unknown): boolean {
  return (err as { code?: string }).code === '23505' && /_name_key$/.test((err as { constraint_name?: string }).constraint_name ?? '');
}

/**
 * Insert a monitor for `m.user_id` and `m.team_id` (null: personal) unless its owner already has
 * `max` (counted under a per-owner advisory lock, so concurrent creates cannot both pass) or a
 * monitor of that name (names are unique per owner: the team, or the user's personal monitors).
 * @param heartbeat the check-in token's hash and preview (heartbeat monitors only)
 */
export async function insertMonitor(
  sql: Sql,
  m: MonitorFields & { id: string; user_id: string; team_id: string | null; type: MonitorType; heartbeat: { hash: string; preview: string } | null },
  max: number,
): Promise<InsertOutcome> {
  try {
    return await sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(hashtext(${`monitors:${m.team_id ?? m.user_id}`}))`;
      const [count] = await tx<{ n: number }[]>`SELECT count(*)::int AS n FROM monitors WHERE ${ownerIs(tx, m)}`;
      if (count!.n >= max) return { refused: 'limit' as const };
      const [row] = await tx<MonitorRow[]>`
        INSERT INTO monitors (id, user_id, team_id, name, type, target, config, interval_s, node_count, group_id, tags,
          private_target, heartbeat_token_hash, heartbeat_token_preview)
        VALUES (${m.id}, ${m.user_id}, ${m.team_id}, ${m.name}, ${m.type}, ${m.target}, ${tx.json(m.config as never)}, ${m.interval_s},
          ${m.node_count}, ${m.group_id}, ${m.tags}, ${m.private_target}, ${m.heartbeat?.hash ?? null}, ${m.heartbeat?.preview ?? null})
        RETURNING ${COLUMNS(tx)}`;
      return { row: row! };
    });
  } catch (err) {
    if (isNameTaken(err)) return { refused: 'name_taken' };
    throw err;
  }
}

/** Filters of the monitor list (all optional; `group_id` `none` = ungrouped). */
export interface MonitorFilters {
  status?: MonitorStatus;
  state?: MonitorState;
  type?: MonitorType;
  group_id?: string;
  tag?: string;
  q?: string;
}

/**
 * One page of the monitors in `scope` (teams/authorize.ts ownerScope) matching `f`, newest first
 * (created_at, then id, both descending), with the total that match; `page` counts from 1.
 * The scope's owners are read apart (the personal monitors, then each team's), each from its own
 * index in that order (0061_monitor_read_indexes.sql), and merged: a page reads `page × limit`
 * index entries per owner at most, never every matching row sorted; the total is a count beside
 * it in the same statement. One statement, one round trip (a second only for a page past the end,
 * to count). `column`: one more column, named, read for the page's `monitors` rows in the same
 * statement (alerting/noise-rules.db.ts flapColumn), returned as `extra`. The rows are returned
 * as read: they also carry `total` and that column under its own name.
 */
export async function listMonitors<X = never>(sql: Sql, scope: OwnerScope, f: MonitorFilters, page: number, limit: number,
  column?: { name: string; sql: postgres.Fragment }): Promise<{ rows: Array<MonitorRow & { extra?: X }>; total: number }> {
  // Personal rows (team_id IS NULL) and team rows never overlap: the branches are disjoint.
  const owners = [
    ...(scope.user_id !== null ? [sql`team_id IS NULL AND user_id = ${scope.user_id}`] : []),
    ...(scope.team_ids.length > 0 ? [sql`team_id = ANY(${scope.team_ids}::text[])`] : []),
  ];
  if (owners.length === 0) return { rows: [], total: 0 };
  const where: postgres.Fragment[] = [];
  if (f.status) where.push(sql`status = ${f.status}`);
  if (f.state) where.push(sql`state = ${f.state}`);
  if (f.type) where.push(sql`type = ${f.type}`);
  if (f.group_id === 'none') where.push(sql`group_id IS NULL`);
  else if (f.group_id) where.push(sql`group_id = ${f.group_id}`);
  if (f.tag) where.push(sql`tags @> ARRAY[${f.tag}::text]`);
  if (f.q) where.push(sql`strpos(lower(name), lower(${f.q})) > 0`);
  const cond = (owner: postgres.Fragment) => where.reduce((a, b) => sql`${a} AND ${b}`, owner);
  const offset = (page - 1) * limit;
  // Each owner's first offset + limit rows in list order (a LIMIT the index order serves), merged.
  const firsts = owners
    .map((o) => sql`(SELECT id, created_at FROM monitors WHERE ${cond(o)} ORDER BY created_at DESC, id DESC LIMIT ${offset + limit})`)
    .reduce((a, b) => sql`${a} UNION ALL ${b}`);
  const total = owners
    .map((o) => sql`(SELECT count(*) FROM monitors WHERE ${cond(o)})`)
    .reduce((a, b) => sql`${a} + ${b}`);
  // The page's ids first, so the per-row columns (node_ids, uptime_24h) are read for its rows only.
  const rows = await sql<Array<MonitorRow & { total: number } & Record<string, unknown>>>`
    WITH page AS (SELECT id FROM (${firsts}) f ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${offset})
    SELECT ${COLUMNS(sql)}, (${total})::int AS total${column ? sql`, ${column.sql}` : sql``} FROM page JOIN monitors USING (id)
    ORDER BY created_at DESC, id DESC`;
  let n = rows[0]?.total ?? 0;
  if (rows.length === 0 && page > 1) {
    const [row] = await sql<{ n: number }[]>`SELECT (${total})::int AS n`;
    n = row!.n;
  }
  // The rows as read, not copied: a rest-spread copy per row (to take `total` and the extra
  // column off) was a tenth of a list request's CPU, and deleting them instead left the objects in
  // V8's slow dictionary form (docs/benchmarks.md "Monitor list, uptime and stats latency"). The
  // rows keep `total` (and the extra column under its own name); callers pick fields (view.ts toMonitor).
  if (column) for (const row of rows) row.extra = row[column.name];
  return { rows: rows as unknown as Array<MonitorRow & { extra?: X }>, total: n };
}

/** Every monitor of exactly `owner` (a team's, or a user's personal ones), oldest first (export). */
export async function allMonitors(sql: Sql, owner: Owner): Promise<MonitorRow[]> {
  return sql<MonitorRow[]>`SELECT ${COLUMNS(sql)} FROM monitors WHERE ${ownerIs(sql, owner)} ORDER BY created_at, id`;
}

/**
 * Who owns monitor `id` (its creator and team), whoever it is, or null when there is none: what
 * authorization needs (teams/authorize.ts authorize) for routes that read the monitor's history
 * but not its record (one primary-key row, none of the record's per-row columns).
 */
export async function findMonitorOwner(sql: SqlExecutor, id: string): Promise<{ id: string; user_id: string; team_id: string | null } | null> {
  const [row] = await sql<{ id: string; user_id: string; team_id: string | null }[]>`SELECT id, user_id, team_id FROM monitors WHERE id = ${id}`;
  return row ?? null;
}

/**
 * The monitor `id`, whoever owns it, or null: the caller decides access from its
 * `user_id`/`team_id` (teams/authorize.ts authorize).
 */
export async function findMonitor(sql: SqlExecutor, id: string): Promise<MonitorRow | null> {
  const [row] = await sql<MonitorRow[]>`SELECT ${COLUMNS(sql)} FROM monitors WHERE id = ${id}`;
  return row ?? null;
}

/**
 * Replace monitor `id`, still owned by `seen` (the owner authorization saw), with `fields` and
 * the owner `team_id` (a move into or out of a team; its type and creator never change); bumps
 * `revision`. Moving into an owner counts that owner's quota (`max`) under its advisory lock.
 * @returns the row; null when it is gone or changed owner meanwhile; `'name_taken'` when another
 *   monitor of the (new) owner has the name; `'limit'` when the new owner is at `max`
 */
export async function updateMonitor(
  sql: Sql, seen: Owner, id: string, m: MonitorFields & { team_id: string | null }, max: number,
): Promise<MonitorRow | null | 'name_taken' | 'limit'> {
  try {
    return await sql.begin(async (tx) => {
      if (m.team_id !== seen.team_id) {
        const to: Owner = { user_id: seen.user_id, team_id: m.team_id };
        await tx`SELECT pg_advisory_xact_lock(hashtext(${`monitors:${to.team_id ?? to.user_id}`}))`;
        const [count] = await tx<{ n: number }[]>`SELECT count(*)::int AS n FROM monitors WHERE ${ownerIs(tx, to)}`;
        if (count!.n >= max) return 'limit' as const;
      }
      const [row] = await tx<MonitorRow[]>`
        UPDATE monitors SET name = ${m.name}, target = ${m.target}, config = ${tx.json(m.config as never)},
          interval_s = ${m.interval_s}, node_count = ${m.node_count}, group_id = ${m.group_id}, tags = ${m.tags},
          private_target = ${m.private_target}, team_id = ${m.team_id}, revision = revision + 1, updated_at = now()
        WHERE id = ${id} AND team_id IS NOT DISTINCT FROM ${seen.team_id}
        RETURNING ${COLUMNS(tx)}`;
      return row ?? null;
    });
  } catch (err) {
    if (isNameTaken(err)) return 'name_taken';
    throw err;
  }
}

/**
 * Move monitor `id` (authorized by the caller) from status `from` to `to` with state `state` (docs/api/monitors.md),
 * bumping `revision`; `then` runs in the same transaction with the new row (events are queued
 * there, so they commit with the change).
 * @returns the row, or null when the monitor is gone or not in status `from`
 */
export async function changeMonitorStatus(
  sql: Sql, id: string, from: MonitorStatus, to: MonitorStatus, state: MonitorState,
  then: (tx: SqlExecutor, row: MonitorRow) => Promise<unknown>,
): Promise<MonitorRow | null> {
  return sql.begin(async (tx) => {
    const [row] = await tx<MonitorRow[]>`
      UPDATE monitors SET status = ${to}, state = ${state}, state_changed_at = now(), revision = revision + 1, updated_at = now()
      WHERE id = ${id} AND status = ${from}
      RETURNING ${COLUMNS(tx)}`;
    if (row) await then(tx, row);
    return row ?? null;
  });
}

/** Delete monitor `id` (authorized by the caller) for good. @returns the deleted row, or null when it is gone */
export async function deleteMonitor(sql: SqlExecutor, id: string): Promise<MonitorRow | null> {
  const [row] = await sql<MonitorRow[]>`DELETE FROM monitors WHERE id = ${id} RETURNING ${COLUMNS(sql)}`;
  return row ?? null;
}

/**
 * Give heartbeat monitor `id` (authorized by the caller) a new check-in token (hash and preview);
 * the old token stops matching in the same statement.
 * @returns the row, or null when it is gone or not a heartbeat monitor
 */
export async function rotateHeartbeatToken(sql: Sql, id: string, token: { hash: string; preview: string }): Promise<MonitorRow | null> {
  const [row] = await sql<MonitorRow[]>`
    UPDATE monitors SET heartbeat_token_hash = ${token.hash}, heartbeat_token_preview = ${token.preview}, updated_at = now()
    WHERE id = ${id} AND type = 'heartbeat'
    RETURNING ${COLUMNS(sql)}`;
  return row ?? null;
}

/** The heartbeat monitor whose check-in token hashes to `hash` (monitors/heartbeat.ts), or null. */
export async function findMonitorByHeartbeatHash(sql: Sql, hash: string): Promise<MonitorRow | null> {
  const [row] = await sql<MonitorRow[]>`SELECT ${COLUMNS(sql)} FROM monitors WHERE heartbeat_token_hash = ${hash} AND type = 'heartbeat'`;
  return row ?? null;
}

/** Names of `owner`'s monitors (import checks names before creating). */
export async function monitorNames(sql: Sql, owner: Owner): Promise<Set<string>> {
  const rows = await sql<{ name: string }[]>`SELECT name FROM monitors WHERE ${ownerIs(sql, owner)}`;
  return new Set(rows.map((r) => r.name));
}

/** How many monitors `owner` has (the plan's quota counts them per owner: a team, or a user's personal ones). */
export async function countMonitors(sql: Sql, owner: Owner): Promise<number> {
  const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM monitors WHERE ${ownerIs(sql, owner)}`;
  return row!.n;
}
