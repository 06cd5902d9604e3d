import type { Sql } from '../db/sql.js';
import type { OwnerScope } from '../teams/authorize.js';
import { ownedBy } from '../teams/owner-scope.db.js';

/** An `alert_silences` row. */
export interface SilenceRow { id: string; user_id: string; team_id: string | null; monitor_id: string | null; reason: string; starts_at: Date; ends_at: Date; created_at: Date }

/** The silences of the owners in `scope` (teams/authorize.ts ownerScope), latest start first. */
export async function listSilences(sql: Sql, scope: OwnerScope): Promise<SilenceRow[]> {
  return sql<SilenceRow[]>`SELECT * FROM alert_silences WHERE ${ownedBy(sql, scope)} ORDER BY starts_at DESC, id`;
}

/**
 * The silences still running or to come at `at` of a monitor's owner (for activeSilence): its
 * team's when `owner.team_id` is set, else its creator's personal ones.
 */
export async function liveSilences(sql: Sql, owner: { user_id: string; team_id?: string | null }, at: Date): Promise<SilenceRow[]> {
  const whose = owner.team_id ? sql`team_id = ${owner.team_id}` : sql`team_id IS NULL AND user_id = ${owner.user_id}`;
  return sql<SilenceRow[]>`SELECT * FROM alert_silences WHERE ${whose} AND ends_at > ${at}`;
}

/** A silence by id, or null (routes then authorize on its user_id/team_id). */
export async function getSilence(sql: Sql, id: string): Promise<SilenceRow | null> {
  const [row] = await sql<SilenceRow[]>`SELECT * FROM alert_silences WHERE id = ${id}`;
  return row ?? null;
}

export async function insertSilence(sql: Sql, s: Omit<SilenceRow, 'created_at'>): Promise<SilenceRow> {
  const [row] = await sql<SilenceRow[]>`
    INSERT INTO alert_silences (id, user_id, team_id, monitor_id, reason, starts_at, ends_at)
    VALUES (${s.id}, ${s.user_id}, ${s.team_id}, ${s.monitor_id}, ${s.reason}, ${s.starts_at}, ${s.ends_at}) RETURNING *`;
  return row!;
}

/** Change a silence (the route authorized it; `team_id` given: a move, teams/move.ts); null when it is gone. */
export async function updateSilence(sql: Sql, id: string, p: { reason: string; starts_at: Date; ends_at: Date; team_id?: string | null }): Promise<SilenceRow | null> {
  const { team_id } = p;
  const [row] = await sql<SilenceRow[]>`
    UPDATE alert_silences SET reason = ${p.reason}, starts_at = ${p.starts_at}, ends_at = ${p.ends_at}, team_id = ${team_id === undefined ? sql`team_id` : team_id}
    WHERE id = ${id} RETURNING *`;
  return row ?? null;
}

/** Delete a silence (the route authorized it). @returns whether it existed */
export async function deleteSilence(sql: Sql, id: string): Promise<boolean> {
  return (await sql`DELETE FROM alert_silences WHERE id = ${id} RETURNING id`).length > 0;
}
