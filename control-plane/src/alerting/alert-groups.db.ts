import type { Sql } from '../db/sql.js';

/** An `alert_groups` row. */
export interface AlertGroupRow { id: string; user_id: string; name: string; group_by: 'monitor_prefix' | 'tag' | 'type'; group_value: string; wait_seconds: number; created_at: Date }

export async function listAlertGroups(sql: Sql, user_id: string): Promise<AlertGroupRow[]> {
  return sql<AlertGroupRow[]>`SELECT * FROM alert_groups WHERE user_id = ${user_id} ORDER BY created_at, id`;
}

export async function getAlertGroup(sql: Sql, user_id: string, id: string): Promise<AlertGroupRow | null> {
  const [row] = await sql<AlertGroupRow[]>`SELECT * FROM alert_groups WHERE id = ${id} AND user_id = ${user_id}`;
  return row ?? null;
}

/** @returns the row, or null when the caller already groups by that (group_by, group_value) */
export async function insertAlertGroup(sql: Sql, g: Omit<AlertGroupRow, 'created_at'>): Promise<AlertGroupRow | null> {
  const [row] = await sql<AlertGroupRow[]>`
    INSERT INTO alert_groups (id, user_id, name, group_by, group_value, wait_seconds)
    VALUES (${g.id}, ${g.user_id}, ${g.name}, ${g.group_by}, ${g.group_value}, ${g.wait_seconds})
    ON CONFLICT (user_id, group_by, group_value) DO NOTHING RETURNING *`;
  return row ?? null;
}

/** @returns the row, null when missing, `conflict` when another group has that (group_by, group_value) */
export async function updateAlertGroup(sql: Sql, user_id: string, id: string, g: Pick<AlertGroupRow, 'name' | 'group_by' | 'group_value' | 'wait_seconds'>): Promise<AlertGroupRow | null | 'conflict'> {
  const [clash] = await sql`SELECT id FROM alert_groups WHERE user_id = ${user_id} AND group_by = ${g.group_by} AND group_value = ${g.group_value} AND id <> ${id}`;
  if (clash) return 'conflict';
  const [row] = await sql<AlertGroupRow[]>`
    UPDATE alert_groups SET name = ${g.name}, group_by = ${g.group_by}, group_value = ${g.group_value}, wait_seconds = ${g.wait_seconds}
    WHERE id = ${id} AND user_id = ${user_id} RETURNING *`;
  return row ?? null;
}

export async function deleteAlertGroup(sql: Sql, user_id: string, id: string): Promise<boolean> {
  return (await sql`DELETE FROM alert_groups WHERE id = ${id} AND user_id = ${user_id} RETURNING id`).length > 0;
}
