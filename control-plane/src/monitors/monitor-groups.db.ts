import type { SqlExecutor } from '../contracts.js';
import type { Sql } from '../db/sql.js';
import type { Owner, OwnerScope } from '../teams/authorize.js';
import { ownedBy } from '../teams/owner-scope.db.js';

/** A `monitor_groups` row (0020_monitors.sql) with the number of monitors in the group. */
export interface GroupRow {
  id: string;
  /** Its creator. */
  user_id: string;
  /** The team that owns it, or null: its creator's personal group (0046_teams.sql). */
  team_id: string | null;
  name: string;
  sort_order: number;
  monitor_count: number;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = (sql: SqlExecutor) => sql`
  g.id, g.user_id, g.team_id, g.name, g.sort_order, g.created_at, g.updated_at,
  (SELECT count(*)::int FROM monitors m WHERE m.group_id = g.id) AS monitor_count`;

function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: string }).code === '23505';
}

/** SQL condition "owned by exactly `owner`": its team's groups, or the user's personal ones. */
function ownerIs(ex: SqlExecutor, owner: Owner) {
  return owner.team_id === null ? ex`team_id IS NULL AND user_id = ${owner.user_id}` : ex`team_id = ${owner.team_id}`;
}

/**
 * Insert a group for `user_id` and `team_id` (null: personal).
 * @returns the row, or null when its owner already has a group of that name (0051_monitor_names_per_owner.sql)
 */
export async function insertGroup(sql: SqlExecutor, g: { id: string; user_id: string; team_id: string | null; name: string; sort_order: number }): Promise<GroupRow | null> {
  const [row] = await sql<GroupRow[]>`
    WITH g AS (
      INSERT INTO monitor_groups (id, user_id, team_id, name, sort_order) VALUES (${g.id}, ${g.user_id}, ${g.team_id}, ${g.name}, ${g.sort_order})
      ON CONFLICT DO NOTHING RETURNING *)
    SELECT g.*, 0 AS monitor_count FROM g`;
  return row ?? null;
}

/** The groups in `scope` (teams/authorize.ts ownerScope) ordered by sort_order, then name (a plain list: an owner has few). */
export async function listGroups(sql: Sql, scope: OwnerScope): Promise<GroupRow[]> {
  return sql<GroupRow[]>`SELECT ${COLUMNS(sql)} FROM monitor_groups g WHERE ${ownedBy(sql, scope, 'g')} ORDER BY g.sort_order, g.name, g.id`;
}

/** The groups of exactly `owner` (a team's, or a user's personal ones), ordered as listGroups (export). */
export async function groupsOf(sql: Sql, owner: Owner): Promise<GroupRow[]> {
  return sql<GroupRow[]>`SELECT ${COLUMNS(sql)} FROM monitor_groups g WHERE ${ownerIs(sql, owner)} ORDER BY g.sort_order, g.name, g.id`;
}

/** The group `id`, whoever owns it, or null: the caller decides access from its `user_id`/`team_id` (teams/authorize.ts). */
export async function findGroup(sql: SqlExecutor, id: string): Promise<GroupRow | null> {
  const [row] = await sql<GroupRow[]>`SELECT ${COLUMNS(sql)} FROM monitor_groups g WHERE g.id = ${id}`;
  return row ?? null;
}

/**
 * Rename or reorder group `id` (authorized by the caller).
 * @returns the row; null when it is gone; `'name_taken'` when another group of its owner has that name
 */
export async function updateGroup(sql: Sql, id: string, changes: { name?: string; sort_order?: number }): Promise<GroupRow | null | 'name_taken'> {
  try {
    const [row] = await sql<GroupRow[]>`
      WITH g AS (
        UPDATE monitor_groups SET name = coalesce(${changes.name ?? null}, name),
          sort_order = coalesce(${changes.sort_order ?? null}::int, sort_order), updated_at = now()
        WHERE id = ${id} RETURNING *)
      SELECT g.*, (SELECT count(*)::int FROM monitors m WHERE m.group_id = g.id) AS monitor_count FROM g`;
    return row ?? null;
  } catch (err) {
    if (isUniqueViolation(err)) return 'name_taken';
    throw err;
  }
}

/** Delete group `id` (authorized by the caller); its monitors become ungrouped (FK ON DELETE SET NULL). @returns false when it is gone */
export async function deleteGroup(sql: Sql, id: string): Promise<boolean> {
  const rows = await sql`DELETE FROM monitor_groups WHERE id = ${id} RETURNING id`;
  return rows.length > 0;
}

/** `owner`'s groups as name → id (import matches groups by name). */
export async function groupIdsByName(sql: SqlExecutor, owner: Owner): Promise<Map<string, string>> {
  const rows = await sql<{ id: string; name: string }[]>`SELECT id, name FROM monitor_groups WHERE ${ownerIs(sql, owner)}`;
  return new Map(rows.map((r) => [r.name, r.id]));
}
