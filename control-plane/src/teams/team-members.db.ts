import type { SqlExecutor } from '../contracts.js';
import type { Sql } from '../db/sql.js';
import type { TeamRole } from './roles.js';

/** A team_members row joined with its account. */
export interface TeamMemberRow {
  user_id: string;
  email: string;
  display_name: string | null;
  role: TeamRole;
  joined_at: Date;
}

/** The members of team `team_id`: owners first, then admins, members, viewers; each by joining time. */
export async function listMembers(ex: SqlExecutor, team_id: string): Promise<TeamMemberRow[]> {
  return ex<TeamMemberRow[]>`
    SELECT m.user_id, u.email, u.display_name, m.role, m.created_at AS joined_at
    FROM team_members m JOIN users u ON u.id = m.user_id
    WHERE m.team_id = ${team_id}
    ORDER BY array_position(ARRAY['owner', 'admin', 'member', 'viewer'], m.role), m.created_at, m.user_id`;
}

/** One member of team `team_id`. @returns null when `user_id` is not a member */
export async function getMember(ex: SqlExecutor, team_id: string, user_id: string): Promise<TeamMemberRow | null> {
  const rows = await ex<TeamMemberRow[]>`
    SELECT m.user_id, u.email, u.display_name, m.role, m.created_at AS joined_at
    FROM team_members m JOIN users u ON u.id = m.user_id
    WHERE m.team_id = ${team_id} AND m.user_id = ${user_id}`;
  return rows[0] ?? null;
}

/** Whether an account with address `email` (any case) is a member of team `team_id`. */
export async function isMemberByEmail(ex: SqlExecutor, team_id: string, email: string): Promise<boolean> {
  const rows = await ex`SELECT 1 FROM team_members m JOIN users u ON u.id = m.user_id WHERE m.team_id = ${team_id} AND lower(u.email) = lower(${email})`;
  return rows.length > 0;
}

/**
 * Change member `user_id`'s role, or remove it (`role` null), unless that would leave team
 * `team_id` without an owner. The team row is locked first, so two owners demoting each other at
 * once cannot both succeed.
 * @returns `done`, `missing` (not a member) or `last_owner`
 */
export async function changeMember(sql: Sql, team_id: string, user_id: string, role: TeamRole | null): Promise<'done' | 'missing' | 'last_owner'> {
  return sql.begin(async (tx) => {
    await tx`SELECT 1 FROM teams WHERE id = ${team_id} FOR UPDATE`;
    const [current] = await tx<{ role: TeamRole }[]>`SELECT role FROM team_members WHERE team_id = ${team_id} AND user_id = ${user_id}`;
    if (!current) return 'missing' as const;
    if (current.role === 'owner' && role !== 'owner') {
      const [owners] = await tx<{ n: number }[]>`SELECT count(*)::int AS n FROM team_members WHERE team_id = ${team_id} AND role = 'owner'`;
      if (owners!.n <= 1) return 'last_owner' as const;
    }
    if (role === null) await tx`DELETE FROM team_members WHERE team_id = ${team_id} AND user_id = ${user_id}`;
    else await tx`UPDATE team_members SET role = ${role} WHERE team_id = ${team_id} AND user_id = ${user_id}`;
    return 'done' as const;
  });
}
