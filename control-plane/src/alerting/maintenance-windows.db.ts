import type { Sql } from '../db/sql.js';
import type { OwnerScope } from '../teams/authorize.js';
import { ownedBy } from '../teams/owner-scope.db.js';

/** A `maintenance_windows` row. */
export interface MaintenanceWindowRow {
  id: string; user_id: string; team_id: string | null; title: string | null; scope_type: 'monitor' | 'group' | 'tag' | 'all'; scope_ids: string[];
  starts_at: Date; ends_at: Date; recurrence: 'none' | 'daily' | 'weekly' | 'monthly'; recurrence_until: Date | null;
  advance_notice_minutes: number; created_at: Date; updated_at: Date;
}
export type WindowFields = Omit<MaintenanceWindowRow, 'id' | 'user_id' | 'team_id' | 'created_at' | 'updated_at'>;

/** The windows of the owners in `scope` (teams/authorize.ts ownerScope), by start. */
export async function listWindows(sql: Sql, scope: OwnerScope): Promise<MaintenanceWindowRow[]> {
  return sql<MaintenanceWindowRow[]>`SELECT * FROM maintenance_windows WHERE ${ownedBy(sql, scope)} ORDER BY starts_at, id`;
}

/**
 * The windows of a monitor's owner (its team's when `owner.team_id` is set, else its creator's
 * personal ones) that can still have an occurrence at or after `at` (for isInMaintenance).
 */
export async function liveWindows(sql: Sql, owner: { user_id: string; team_id?: string | null }, at: Date): Promise<MaintenanceWindowRow[]> {
  const whose = owner.team_id ? sql`team_id = ${owner.team_id}` : sql`team_id IS NULL AND user_id = ${owner.user_id}`;
  return sql<MaintenanceWindowRow[]>`
    SELECT * FROM maintenance_windows WHERE ${whose} AND starts_at <= ${at}
      AND (ends_at > ${at} OR (recurrence <> 'none' AND (recurrence_until IS NULL OR recurrence_until + (ends_at - starts_at) > ${at})))`;
}

/** A window by id, or null (routes then authorize on its user_id/team_id). */
export async function getWindow(sql: Sql, id: string): Promise<MaintenanceWindowRow | null> {
  const [row] = await sql<MaintenanceWindowRow[]>`SELECT * FROM maintenance_windows WHERE id = ${id}`;
  return row ?? null;
}

/** Insert a window of `owner`. */
export async function insertWindow(sql: Sql, id: string, owner: { user_id: string; team_id: string | null }, w: WindowFields): Promise<MaintenanceWindowRow> {
  const [row] = await sql<MaintenanceWindowRow[]>`
    INSERT INTO maintenance_windows (id, user_id, team_id, title, scope_type, scope_ids, starts_at, ends_at, recurrence, recurrence_until, advance_notice_minutes)
    VALUES (${id}, ${owner.user_id}, ${owner.team_id}, ${w.title}, ${w.scope_type}, ${w.scope_ids}, ${w.starts_at}, ${w.ends_at}, ${w.recurrence}, ${w.recurrence_until}, ${w.advance_notice_minutes})
    RETURNING *`;
  return row!;
}

/** Change a window (the route authorized it; `team_id` given: a move, teams/move.ts); null when it is gone. */
export async function updateWindow(sql: Sql, id: string, w: WindowFields, team_id?: string | null): Promise<MaintenanceWindowRow | null> {
  const [row] = await sql<MaintenanceWindowRow[]>`
    UPDATE maintenance_windows SET title = ${w.title}, scope_type = ${w.scope_type}, scope_ids = ${w.scope_ids}, starts_at = ${w.starts_at},
      ends_at = ${w.ends_at}, recurrence = ${w.recurrence}, recurrence_until = ${w.recurrence_until},
      advance_notice_minutes = ${w.advance_notice_minutes}, team_id = ${team_id === undefined ? sql`team_id` : team_id}, updated_at = now()
    WHERE id = ${id} RETURNING *`;
  return row ?? null;
}

/** Delete a window (the route authorized it). @returns whether it existed */
export async function deleteWindow(sql: Sql, id: string): Promise<boolean> {
  return (await sql`DELETE FROM maintenance_windows WHERE id = ${id} RETURNING id`).length > 0;
}

/** Which of `ids` are monitors (kind monitor) or monitor groups (kind group) in `scope` (the window's own owner: route-kit.ts sameOwner). */
export async function ownedScopeIds(sql: Sql, scope: OwnerScope, kind: 'monitor' | 'group', ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = kind === 'monitor'
    ? await sql<{ id: string }[]>`SELECT id FROM monitors WHERE ${ownedBy(sql, scope)} AND id IN ${sql(ids)}`
    : await sql<{ id: string }[]>`SELECT id FROM monitor_groups WHERE ${ownedBy(sql, scope)} AND id IN ${sql(ids)}`;
  return new Set(rows.map((r) => r.id));
}
