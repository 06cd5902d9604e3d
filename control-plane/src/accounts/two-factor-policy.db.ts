import type { Sql } from '../db/sql.js';
import { standingColumns, type StandingFields } from './caller-standing.db.js';

/** Where a user stands against the two-factor policy (docs/api/accounts.md "Two-factor policy and recovery codes"). */
export interface TwoFactorStanding {
  /** The account's own `require_2fa`. */
  account: boolean;
  /** The teams of the user that require 2FA, by creation. */
  teams: Array<{ id: string; name: string }>;
  totp: boolean;
  passkeys: number;
  recovery_codes_left: number;
}

/** `user_id`'s standing in one query (passkeys: table of migration 0053). @returns null when there is no such user */
export async function twoFactorStanding(sql: Sql, user_id: string): Promise<TwoFactorStanding | null> {
  const [row] = await sql<TwoFactorStanding[]>`
    SELECT u.require_2fa AS account, u.totp_secret IS NOT NULL AS totp,
      (SELECT count(*)::int FROM passkeys p WHERE p.user_id = u.id) AS passkeys,
      (SELECT count(*)::int FROM recovery_codes r WHERE r.user_id = u.id AND r.used_at IS NULL) AS recovery_codes_left,
      COALESCE((SELECT json_agg(json_build_object('id', t.id, 'name', t.name) ORDER BY t.created_at, t.id)
        FROM team_members m JOIN teams t ON t.id = m.team_id WHERE m.user_id = u.id AND t.require_2fa), '[]'::json) AS teams
    FROM users u WHERE u.id = ${user_id}`;
  return row ?? null;
}

/**
 * Whether a policy requires 2FA of `user_id` while it has neither TOTP nor a passkey, in one
 * indexed query (every authenticated request asks it). @returns false for an unknown user
 */
export async function twoFactorSetupOwed(sql: Sql, user_id: string): Promise<boolean> {
  const [row] = await sql<StandingFields[]>`SELECT ${standingColumns(sql)} FROM users u WHERE u.id = ${user_id}`;
  return row?.two_factor_owed ?? false;
}

/** Set the account's own two-factor policy. */
export async function setAccountRequire2fa(sql: Sql, user_id: string, require_2fa: boolean): Promise<void> {
  await sql`UPDATE users SET require_2fa = ${require_2fa}, updated_at = now() WHERE id = ${user_id}`;
}

/** Set team `team_id`'s two-factor policy (PATCH /v1/teams/{id}, owners and admins). */
export async function setTeamRequire2fa(sql: Sql, team_id: string, require_2fa: boolean): Promise<void> {
  await sql`UPDATE teams SET require_2fa = ${require_2fa}, updated_at = now() WHERE id = ${team_id}`;
}
