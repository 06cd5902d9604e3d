import type { MonitorState, MonitorStatus, MonitorType } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';
import type { Sql } from '../db/sql.js';

/** A `monitors` row (0020_monitors.sql) without the heartbeat token hash, plus its placement. */
export interface MonitorRow {
  id: string;
  user_id: string;
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
// from the check history's hourly rollups (a few index rows per monitor).
const COLUMNS = (sql: SqlExecutor) => sql`
  id, user_id, name, type, target, config, interval_s, node_count, group_id, tags, status, state,
  state_changed_at, private_target, heartbeat_token_preview, revision::int AS revision, last_check_at,
  created_at, updated_at,
  ARRAY(SELECT p.node_id FROM monitor_placements p WHERE p.monitor_id = monitors.id AND p.ended_at IS NULL ORDER BY p.node_id) AS node_ids,
  monitor_uptime_24h(monitors.id) AS uptime_24h`;

function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: string }).code === '23505';
}

/** Outcome of an insert: the row, or why not. */
export type InsertOutcome = { row: MonitorRow } | { refused: 'limit' | 'name_taken' };

/**
 * Insert a monitor unless the account already has `max` (counted under a per-account advisory
 * lock, so concurrent creates cannot both pass) or a monitor of that name.
 * @param heartbeat the check-in token's hash and preview (heartbeat monitors only)
 */
export async function insertMonitor(
  sql: Sql,
  m: MonitorFields & { id: string; user_id: string; type: MonitorType; heartbeat: { hash: string; preview: string } | null },
  max: number,
): Promise<InsertOutcome> {
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(hashtext(${`monitors:${m.user_id}`}))`;
    const [count] = await tx<{ n: number }[]>`SELECT count(*)::int AS n FROM monitors WHERE user_id = ${m.user_id}`;
    if (count!.n >= max) return { refused: 'limit' as const };
    const [row] = await tx<MonitorRow[]>`
      INSERT INTO monitors (id, user_id, name, type, target, config, interval_s, node_count, group_id, tags,
        private_target, heartbeat_token_hash, heartbeat_token_preview)
      VALUES (${m.id}, ${m.user_id}, ${m.name}, ${m.type}, ${m.target}, ${tx.json(m.config as never)}, ${m.interval_s},
        ${m.node_count}, ${m.group_id}, ${m.tags}, ${m.private_target}, ${m.heartbeat?.hash ?? null}, ${m.heartbeat?.preview ?? null})
      ON CONFLICT (user_id, name) DO NOTHING
      RETURNING ${COLUMNS(tx)}`;
    return row ? { row } : { refused: 'name_taken' as const };
  });
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

/** One page of the account's monitors matching `f`, newest first, with the total that match. */
export async function listMonitors(sql: Sql, user_id: string, f: MonitorFilters, page: number, limit: number): Promise<{ rows: MonitorRow[]; total: number }> {
  const where = [sql`user_id = ${user_id}`];
  if (f.status) where.push(sql`status = ${f.status}`);
  if (f.state) where.push(sql`state = ${f.state}`);
  if (f.type) where.push(sql`type = ${f.type}`);
  if (f.group_id === 'none') where.push(sql`group_id IS NULL`);
  else if (f.group_id) where.push(sql`group_id = ${f.group_id}`);
  if (f.tag) where.push(sql`tags @> ARRAY[${f.tag}::text]`);
  if (f.q) where.push(sql`strpos(lower(name), lower(${f.q})) > 0`);
  const cond = where.reduce((a, b) => sql`${a} AND ${b}`);
  // The page's ids first, so the per-row columns (node_ids) are read for its rows only, not for
  // the rows the offset skips.
  const rows = await sql<Array<MonitorRow & { total: number }>>`
    WITH page AS (
      SELECT id, count(*) OVER ()::int AS total FROM monitors WHERE ${cond}
      ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${(page - 1) * limit})
    SELECT ${COLUMNS(sql)}, page.total FROM page JOIN monitors USING (id)
    ORDER BY created_at DESC, id DESC`;
  let total = rows[0]?.total ?? 0;
  if (rows.length === 0 && page > 1) {
    const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM monitors WHERE ${cond}`;
    total = row!.n;
  }
  return { rows: rows.map(({ total: _, ...row }) => row), total };
}

/** Every monitor of the account, oldest first (export). */
export async function allMonitors(sql: Sql, user_id: string): Promise<MonitorRow[]> {
  return sql<MonitorRow[]>`SELECT ${COLUMNS(sql)} FROM monitors WHERE user_id = ${user_id} ORDER BY created_at, id`;
}

/** The monitor `id` of `user_id`, or null (another account's monitor is null too). */
export async function getMonitor(sql: SqlExecutor, user_id: string, id: string): Promise<MonitorRow | null> {
  const [row] = await sql<MonitorRow[]>`SELECT ${COLUMNS(sql)} FROM monitors WHERE id = ${id} AND user_id = ${user_id}`;
  return row ?? null;
}

/**
 * Replace the account's monitor `id` with `fields` (its type never changes); bumps `revision`.
 * @returns the row; null when it is not the account's; `'name_taken'` when another of its monitors has the name
 */
export async function updateMonitor(sql: Sql, user_id: string, id: string, m: MonitorFields): Promise<MonitorRow | null | 'name_taken'> {
  try {
    const [row] = await sql<MonitorRow[]>`
      UPDATE monitors SET name = ${m.name}, target = ${m.target}, config = ${sql.json(m.config as never)},
        interval_s = ${m.interval_s}, node_count = ${m.node_count}, group_id = ${m.group_id}, tags = ${m.tags},
        private_target = ${m.private_target}, revision = revision + 1, updated_at = now()
      WHERE id = ${id} AND user_id = ${user_id}
      RETURNING ${COLUMNS(sql)}`;
    return row ?? null;
  } catch (err) {
    if (isUniqueViolation(err)) return 'name_taken';
    throw err;
  }
}

/**
 * Move the account's monitor `id` from status `from` to `to` with state `state` (docs/api/monitors.md),
 * bumping `revision`; `then` runs in the same transaction with the new row (events are queued
 * there, so they commit with the change).
 * @returns the row, or null when the monitor is not the account's or not in status `from`
 */
export async function changeMonitorStatus(
  sql: Sql, user_id: string, id: string, from: MonitorStatus, to: MonitorStatus, state: MonitorState,
  then: (tx: SqlExecutor, row: MonitorRow) => Promise<unknown>,
): Promise<MonitorRow | null> {
  return sql.begin(async (tx) => {
    const [row] = await tx<MonitorRow[]>`
      UPDATE monitors SET status = ${to}, state = ${state}, state_changed_at = now(), revision = revision + 1, updated_at = now()
      WHERE id = ${id} AND user_id = ${user_id} AND status = ${from}
      RETURNING ${COLUMNS(tx)}`;
    if (row) await then(tx, row);
    return row ?? null;
  });
}

/** Delete the account's monitor `id` for good. @returns the deleted row, or null when it is not the account's */
export async function deleteMonitor(sql: SqlExecutor, user_id: string, id: string): Promise<MonitorRow | null> {
  const [row] = await sql<MonitorRow[]>`DELETE FROM monitors WHERE id = ${id} AND user_id = ${user_id} RETURNING ${COLUMNS(sql)}`;
  return row ?? null;
}

/**
 * Give the account's heartbeat monitor `id` a new check-in token (hash and preview); the old
 * token stops matching in the same statement.
 * @returns the row, or null when it is not the account's heartbeat monitor
 */
export async function rotateHeartbeatToken(sql: Sql, user_id: string, id: string, token: { hash: string; preview: string }): Promise<MonitorRow | null> {
  const [row] = await sql<MonitorRow[]>`
    UPDATE monitors SET heartbeat_token_hash = ${token.hash}, heartbeat_token_preview = ${token.preview}, updated_at = now()
    WHERE id = ${id} AND user_id = ${user_id} AND type = 'heartbeat'
    RETURNING ${COLUMNS(sql)}`;
  return row ?? null;
}

/** The heartbeat monitor whose check-in token hashes to `hash` (monitors/heartbeat.ts), or null. */
export async function findMonitorByHeartbeatHash(sql: Sql, hash: string): Promise<MonitorRow | null> {
  const [row] = await sql<MonitorRow[]>`SELECT ${COLUMNS(sql)} FROM monitors WHERE heartbeat_token_hash = ${hash} AND type = 'heartbeat'`;
  return row ?? null;
}

/** Names of the account's monitors (import checks names before creating). */
export async function monitorNames(sql: Sql, user_id: string): Promise<Set<string>> {
  const rows = await sql<{ name: string }[]>`SELECT name FROM monitors WHERE user_id = ${user_id}`;
  return new Set(rows.map((r) => r.name));
}

/** How many monitors the account has (the plan's quota counts them). */
export async function countMonitors(sql: Sql, user_id: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM monitors WHERE user_id = ${user_id}`;
  return row!.n;
}
