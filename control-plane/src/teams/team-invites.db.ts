import type { SqlExecutor } from '../contracts.js';
import type { Sql } from '../db/sql.js';
import type { TeamRole } from './roles.js';

/** A team_invites row (migration 0046); only the token's sha256 is stored. */
export interface TeamInviteRow {
  id: string;
  team_id: string;
  email: string;
  role: Exclude<TeamRole, 'owner'>;
  invited_by: string | null;
  created_at: Date;
  expires_at: Date;
  accepted_at: Date | null;
  accepted_by: string | null;
  revoked_at: Date | null;
}

const COLUMNS = (ex: SqlExecutor) => ex`id, team_id, email, role, invited_by, created_at, expires_at, accepted_at, accepted_by, revoked_at`;

/**
 * Store an invitation valid for `expires_in_s` seconds from now. Earlier pending invitations of
 * the same team to the same address (any case) are revoked: the newest one is the only usable
 * one. Run it in a transaction (with the invitation e-mail).
 */
export async function insertTeamInvite(tx: SqlExecutor, i: {
  id: string; team_id: string; email: string; role: TeamInviteRow['role']; token_hash: string; invited_by: string; expires_in_s: number;
}): Promise<TeamInviteRow> {
  await tx`UPDATE team_invites SET revoked_at = now()
    WHERE team_id = ${i.team_id} AND lower(email) = lower(${i.email}) AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()`;
  const rows = await tx<TeamInviteRow[]>`
    INSERT INTO team_invites (id, team_id, email, role, token_hash, invited_by, expires_at)
    VALUES (${i.id}, ${i.team_id}, ${i.email}, ${i.role}, ${i.token_hash}, ${i.invited_by}, now() + make_interval(secs => ${i.expires_in_s}))
    RETURNING ${COLUMNS(tx)}`;
  return rows[0]!;
}

/** Invitations of team `team_id`, newest first (every status). */
export async function listTeamInvites(ex: SqlExecutor, team_id: string): Promise<TeamInviteRow[]> {
  return ex<TeamInviteRow[]>`SELECT ${COLUMNS(ex)} FROM team_invites WHERE team_id = ${team_id} ORDER BY created_at DESC, id DESC`;
}

/**
 * Revoke a pending invitation of team `team_id`.
 * @returns false when the team has no pending (unaccepted, unrevoked) invitation with this id
 */
export async function revokeTeamInvite(ex: SqlExecutor, team_id: string, id: string): Promise<boolean> {
  const rows = await ex`UPDATE team_invites SET revoked_at = now()
    WHERE id = ${id} AND team_id = ${team_id} AND accepted_at IS NULL AND revoked_at IS NULL RETURNING id`;
  return rows.length > 0;
}

class AlreadyMember extends Error {}

/**
 * Accept the invitation whose token hashes to `token_hash` for account `user_id`: only a pending
 * (unaccepted, unrevoked, unexpired) one addressed to that account's e-mail (any case). The
 * invitation is used and the membership added in one transaction, so an account that is already a
 * member leaves the invitation usable.
 * @returns the team and role joined, `invalid` (no such usable invitation for this account) or
 *   `member_exists`
 */
export async function acceptTeamInvite(sql: Sql, token_hash: string, user_id: string): Promise<{ team_id: string; role: TeamRole } | 'invalid' | 'member_exists'> {
  try {
    return await sql.begin(async (tx) => {
      const [invite] = await tx<{ team_id: string; role: TeamRole }[]>`
        UPDATE team_invites SET accepted_at = now(), accepted_by = ${user_id}
        WHERE token_hash = ${token_hash} AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()
          AND lower(email) = (SELECT lower(email) FROM users WHERE id = ${user_id})
        RETURNING team_id, role`;
      if (!invite) return 'invalid' as const;
      const added = await tx`INSERT INTO team_members (team_id, user_id, role) VALUES (${invite.team_id}, ${user_id}, ${invite.role})
        ON CONFLICT (team_id, user_id) DO NOTHING RETURNING user_id`;
      if (added.length === 0) throw new AlreadyMember();
      return invite;
    });
  } catch (err) {
    if (err instanceof AlreadyMember) return 'member_exists';
    throw err;
  }
}
