import type { Sql } from '../db/sql.js';
import type { OwnerScope } from '../teams/authorize.js';
import { ownedBy } from '../teams/owner-scope.db.js';

/** An `alert_groups` row. */
export interface AlertGroupRow { id: string; user_id: string; team_id: string | null; name: string; group_by: 'monitor_prefix' | 'tag' | 'type'; group_value: string; wait_seconds: number; created_at: Date }

/** The alert groups of the owners in `scope` (teams/authorize.ts ownerScope), oldest first. */
export async function listAlertGroups(sql: Sql, scope: OwnerScope): Promise<AlertGroupRow[]> {
  return sql<AlertGroupRow[]>`SELECT * FROM alert_groups WHERE ${ownedBy(sql, scope)} ORDER BY created_at, id`;
}

/** An alert group by id, or null (routes then authorize on its user_id/team_id). */
export async function getAlertGroup(sql: Sql, id: string): Promise<AlertGroupRow | null> {
  const [row] = await sql<AlertGroupRow[]>`SELECT * FROM alert_groups WHERE id = ${id}`;
  return row ?? null;
}

/** @returns the row, or null when its owner (the person, or the team) already groups by that (group_by, group_value): 0052_alert_groups_per_owner.sql */
export async function insertAlertGroup(sql: Sql, g: Omit<AlertGroupRow, 'created_at'>): Promise<AlertGroupRow | null> {
  const [row] = await sql<AlertGroupRow[]>`
    INSERT INTO alert_groups (id, user_id, team_id, name, group_by, group_value, wait_seconds)
    VALUES (${g.id}, ${g.user_id}, ${g.team_id}, ${g.name}, ${g.group_by}, ${g.group_value}, ${g.wait_seconds})
    ON CONFLICT DO NOTHING RETURNING *`;
  return row ?? null;
}

/**
 * Change a group whose owner afterwards is `owner` (the route authorized it; an owner other than the
 * stored one is a move, teams/move.ts, and `team_id` is then written too).
 * @returns the row, null when missing, `conflict` when another group of that owner has that (group_by, group_value)
 */
export async function updateAlertGroup(sql: Sql, owner: { user_id: string; team_id: string | null }, id: string, g: Pick<AlertGroupRow, 'name' | 'group_by' | 'group_value' | 'wait_seconds'>): Promise<AlertGroupRow | null | 'conflict'> {
  const same = owner.team_id === null ? sql`team_id IS NULL AND user_id = ${owner.user_id}` : sql`team_id = ${owner.team_id}`;
  const [clash] = await sql`SELECT id FROM alert_groups WHERE ${same} AND group_by = ${g.group_by} AND group_value = ${g.group_value} AND id <> ${id}`;
  if (clash) return 'conflict';
  const [row] = await sql<AlertGroupRow[]>`
    UPDATE alert_groups SET name = ${g.name}, group_by = ${g.group_by}, group_value = ${g.group_value}, wait_seconds = ${g.wait_seconds}, team_id = ${owner.team_id}
    WHERE id = ${id} RETURNING *`;
  return row ?? null;
}

/** Delete an alert group (the route authorized it). @returns whether it existed */
export async function deleteAlertGroup(sql: Sql, id: string): Promise<boolean> {
  return (await sql`DELETE FROM alert_groups WHERE id = ${id} RETURNING id`).length > 0;
}
