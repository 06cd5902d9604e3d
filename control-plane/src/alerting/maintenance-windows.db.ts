import type { Sql } from '../db/sql.js';

/** A `maintenance_windows` row. */
export interface MaintenanceWindowRow {
  id: string; user_id: string; title: string | null; scope_type: 'monitor' | 'group' | 'tag' | 'all'; scope_ids: string[];
  starts_at: Date; ends_at: Date; recurrence: 'none' | 'daily' | 'weekly' | 'monthly'; recurrence_until: Date | null;
  advance_notice_minutes: number; created_at: Date; updated_at: Date;
}
export type WindowFields = Omit<MaintenanceWindowRow, 'id' | 'user_id' | 'created_at' | 'updated_at'>;

export async function listWindows(sql: Sql, user_id: string): Promise<MaintenanceWindowRow[]> {
  return sql<MaintenanceWindowRow[]>`SELECT * FROM maintenance_windows WHERE user_id = ${user_id} ORDER BY starts_at, id`;
}

/** The owner's windows that can still have an occurrence at or after `at` (for isInMaintenance). */
export async function liveWindows(sql: Sql, user_id: string, at: Date): Promise<MaintenanceWindowRow[]> {
  return sql<MaintenanceWindowRow[]>`
    SELECT * FROM maintenance_windows WHERE user_id = ${user_id} AND starts_at <= ${at}
      AND (ends_at > ${at} OR (recurrence <> 'none' AND (recurrence_until IS NULL OR recurrence_until + (ends_at - starts_at) > ${at})))`;
}

export async function getWindow(sql: Sql, user_id: string, id: string): Promise<MaintenanceWindowRow | null> {
  const [row] = await sql<MaintenanceWindowRow[]>`SELECT * FROM maintenance_windows WHERE id = ${id} AND user_id = ${user_id}`;
  return row ?? null;
}

export async function insertWindow(sql: Sql, id: string, user_id: string, w: WindowFields): Promise<MaintenanceWindowRow> {
  const [row] = await sql<MaintenanceWindowRow[]>`
    INSERT INTO maintenance_windows (id, user_id, title, scope_type, scope_ids, starts_at, ends_at, recurrence, recurrence_until, advance_notice_minutes)
    VALUES (${id}, ${user_id}, ${w.title}, ${w.scope_type}, ${w.scope_ids}, ${w.starts_at}, ${w.ends_at}, ${w.recurrence}, ${w.recurrence_until}, ${w.advance_notice_minutes})
    RETURNING *`;
  return row!;
}

export async function updateWindow(sql: Sql, user_id: string, id: string, w: WindowFields): Promise<MaintenanceWindowRow | null> {
  const [row] = await sql<MaintenanceWindowRow[]>`
    UPDATE maintenance_windows SET title = ${w.title}, scope_type = ${w.scope_type}, scope_ids = ${w.scope_ids}, starts_at = ${w.starts_at},
      ends_at = ${w.ends_at}, recurrence = ${w.recurrence}, recurrence_until = ${w.recurrence_until},
      advance_notice_minutes = ${w.advance_notice_minutes}, updated_at = now()
    WHERE id = ${id} AND user_id = ${user_id} RETURNING *`;
  return row ?? null;
}

export async function deleteWindow(sql: Sql, user_id: string, id: string): Promise<boolean> {
  return (await sql`DELETE FROM maintenance_windows WHERE id = ${id} AND user_id = ${user_id} RETURNING id`).length > 0;
}

/** Which of `ids` are the caller's monitors (kind monitor) or monitor groups (kind group). */
export async function ownedScopeIds(sql: Sql, user_id: string, kind: 'monitor' | 'group', ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = kind === 'monitor'
    ? await sql<{ id: string }[]>`SELECT id FROM monitors WHERE user_id = ${user_id} AND id IN ${sql(ids)}`
    : await sql<{ id: string }[]>`SELECT id FROM monitor_groups WHERE user_id = ${user_id} AND id IN ${sql(ids)}`;
  return new Set(rows.map((r) => r.id));
}
