import type { SqlExecutor } from '../contracts.js';
import type { Sql } from '../db/sql.js';

/** A `monitor_groups` row (0020_monitors.sql) with the number of monitors in the group. */
export interface GroupRow {
  id: string;
  user_id: string;
  name: string;
  sort_order: number;
  monitor_count: number;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = (sql: SqlExecutor) => sql`
  g.id, g.user_id, g.name, g.sort_order, g.created_at, g.updated_at,
  (SELECT count(*)::int FROM monitors m WHERE m.group_id = g.id) AS monitor_count`;

function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: string }).code === '23505';
}

/**
 * Insert a group for `user_id`.
 * @returns the row, or null when the account already has a group of that name
 */
export async function insertGroup(sql: SqlExecutor, g: { id: string; user_id: string; name: string; sort_order: number }): Promise<GroupRow | null> {
  const [row] = await sql<GroupRow[]>`
    WITH g AS (
      INSERT INTO monitor_groups (id, user_id, name, sort_order) VALUES (${g.id}, ${g.user_id}, ${g.name}, ${g.sort_order})
      ON CONFLICT (user_id, name) DO NOTHING RETURNING *)
    SELECT g.*, 0 AS monitor_count FROM g`;
  return row ?? null;
}

/** The account's groups ordered by sort_order, then name (a plain list: an account has few). */
export async function listGroups(sql: Sql, user_id: string): Promise<GroupRow[]> {
  return sql<GroupRow[]>`SELECT ${COLUMNS(sql)} FROM monitor_groups g WHERE g.user_id = ${user_id} ORDER BY g.sort_order, g.name, g.id`;
}

/** The group `id` of `user_id`, or null (another account's group is null too). */
export async function getGroup(sql: SqlExecutor, user_id: string, id: string): Promise<GroupRow | null> {
  const [row] = await sql<GroupRow[]>`SELECT ${COLUMNS(sql)} FROM monitor_groups g WHERE g.id = ${id} AND g.user_id = ${user_id}`;
  return row ?? null;
}

/**
 * Rename or reorder the account's group `id`.
 * @returns the row; null when it is not the account's; `'name_taken'` when another of its groups has that name
 */
export async function updateGroup(sql: Sql, user_id: string, id: string, changes: { name?: string; sort_order?: number }): Promise<GroupRow | null | 'name_taken'> {
  try {
    const [row] = await sql<GroupRow[]>`
      WITH g AS (
        UPDATE monitor_groups SET name = coalesce(${changes.name ?? null}, name),
          sort_order = coalesce(${changes.sort_order ?? null}::int, sort_order), updated_at = now()
        WHERE id = ${id} AND user_id = ${user_id} RETURNING *)
      SELECT g.*, (SELECT count(*)::int FROM monitors m WHERE m.group_id = g.id) AS monitor_count FROM g`;
    return row ?? null;
  } catch (err) {
    if (isUniqueViolation(err)) return 'name_taken';
    throw err;
  }
}

/** Delete the account's group `id`; its monitors become ungrouped (FK ON DELETE SET NULL). @returns false when it is not the account's */
export async function deleteGroup(sql: Sql, user_id: string, id: string): Promise<boolean> {
  const rows = await sql`DELETE FROM monitor_groups WHERE id = ${id} AND user_id = ${user_id} RETURNING id`;
  return rows.length > 0;
}

/** The account's groups as name → id (import matches groups by name). */
export async function groupIdsByName(sql: SqlExecutor, user_id: string): Promise<Map<string, string>> {
  const rows = await sql<{ id: string; name: string }[]>`SELECT id, name FROM monitor_groups WHERE user_id = ${user_id}`;
  return new Map(rows.map((r) => [r.name, r.id]));
}
