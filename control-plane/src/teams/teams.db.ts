import type { SqlExecutor } from '../contracts.js';
import type { Sql } from '../db/sql.js';
import type { TeamRole } from './roles.js';

/** A team as one member sees it (teams joined with that member's role and the member count). */
export interface TeamRow {
  id: string;
  name: string;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
  role: TeamRole;
  member_count: number;
  /** IANA time zone of the team's windows (0059; default UTC). */
  time_zone: string;
  /** Every member must have TOTP or a passkey (0056). */
  require_2fa: boolean;
}

const COLUMNS = (ex: SqlExecutor) => ex`t.id, t.name, t.time_zone, t.require_2fa, t.created_by, t.created_at, t.updated_at, m.role,
  (SELECT count(*)::int FROM team_members c WHERE c.team_id = t.id) AS member_count`;

/** Create team `id` named `name` with `user_id` as its first owner, in one transaction. */
export async function insertTeam(sql: Sql, t: { id: string; name: string; user_id: string }): Promise<TeamRow> {
  return sql.begin(async (tx) => {
    await tx`INSERT INTO teams (id, name, created_by) VALUES (${t.id}, ${t.name}, ${t.user_id})`;
    await tx`INSERT INTO team_members (team_id, user_id, role) VALUES (${t.id}, ${t.user_id}, 'owner')`;
    return (await teamOfMember(tx as unknown as SqlExecutor, t.id, t.user_id))!;
  });
}

/** Team `team_id` as member `user_id` sees it. @returns null when there is no such team or it is not a member */
export async function teamOfMember(ex: SqlExecutor, team_id: string, user_id: string): Promise<TeamRow | null> {
  const rows = await ex<TeamRow[]>`SELECT ${COLUMNS(ex)} FROM teams t JOIN team_members m ON m.team_id = t.id AND m.user_id = ${user_id} WHERE t.id = ${team_id}`;
  return rows[0] ?? null;
}

/** The teams `user_id` belongs to, oldest first, narrowed to `only` when given (a workspace token's team). */
export async function teamsOfMember(ex: SqlExecutor, user_id: string, only: string | null): Promise<TeamRow[]> {
  return ex<TeamRow[]>`SELECT ${COLUMNS(ex)} FROM teams t JOIN team_members m ON m.team_id = t.id AND m.user_id = ${user_id}
    ${only === null ? ex`` : ex`WHERE t.id = ${only}`} ORDER BY t.created_at, t.id`;
}

/** Whether team `team_id` exists. */
export async function teamExists(ex: SqlExecutor, team_id: string): Promise<boolean> {
  const rows = await ex`SELECT 1 FROM teams WHERE id = ${team_id}`;
  return rows.length > 0;
}

/** Rename team `team_id`. */
export async function renameTeam(ex: SqlExecutor, team_id: string, name: string): Promise<void> {
  await ex`UPDATE teams SET name = ${name}, updated_at = now() WHERE id = ${team_id}`;
}

/** Set the time zone (an IANA name, checked by the route's schema) of team `team_id`. */
export async function setTeamTimeZone(ex: SqlExecutor, team_id: string, time_zone: string): Promise<void> {
  await ex`UPDATE teams SET time_zone = ${time_zone}, updated_at = now() WHERE id = ${team_id}`;
}

/**
 * Delete team `team_id` with its members and invitations, unless it still owns resources: every
 * foreign key to `teams` other than members, invitations and workspace tokens is RESTRICT
 * (migration 0046 and later ones).
 * @returns `deleted`, or the number of rows left per owning table (only tables with rows) when it owns some
 */
export async function deleteTeam(sql: Sql, team_id: string): Promise<{ deleted: true } | { remaining: Record<string, number> }> {
  try {
    await sql`DELETE FROM teams WHERE id = ${team_id}`;
    return { deleted: true };
  } catch (err) {
    if ((err as { code?: string }).code !== '23503') throw err;
    return { remaining: await remainingResources(sql, team_id) };
  }
}

/**
 * Rows still referencing team `team_id` through a RESTRICT/NO ACTION foreign key, per table:
 * read from the catalog, so tables added by later migrations are counted too.
 */
export async function remainingResources(ex: SqlExecutor, team_id: string): Promise<Record<string, number>> {
  const refs = await ex<{ table_name: string; column_name: string }[]>`
    SELECT r.relname AS table_name, a.attname AS column_name
    FROM pg_constraint c
    JOIN pg_class r ON r.oid = c.conrelid
    JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
    WHERE c.contype = 'f' AND c.confrelid = 'teams'::regclass AND c.confdeltype IN ('r', 'a')
    ORDER BY r.relname`;
  const remaining: Record<string, number> = {};
  for (const ref of refs) {
    const [row] = await ex<{ n: number }[]>`SELECT count(*)::int AS n FROM ${ex(ref.table_name)} WHERE ${ex(ref.column_name)} = ${team_id}`;
    if (row!.n > 0) remaining[ref.table_name] = (remaining[ref.table_name] ?? 0) + row!.n;
  }
  return remaining;
}
