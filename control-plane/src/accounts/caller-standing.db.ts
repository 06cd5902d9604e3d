import type { SqlExecutor } from '../contracts.js';
import type { TeamRole } from '../teams/roles.js';

/**
 * What every authenticated request needs to know about its caller beyond the credential itself,
 * read in the credential's own statement (one round trip instead of three):
 * - `two_factor_owed`: the account or one of its teams requires 2FA and the account has neither
 *   TOTP nor a passkey (docs/api/accounts.md "Two-factor policy and recovery codes");
 * - `team_roles`: the caller's role in each team it belongs to (docs/api/teams.md "Roles").
 * Read per request, never cached: a removed member or a new policy takes effect on the next request.
 */
export interface CallerStanding {
  two_factor_owed: boolean;
  team_roles: ReadonlyMap<string, TeamRole>;
}

/** The row fields {@link standingColumns} adds. */
export interface StandingFields {
  two_factor_owed: boolean;
  team_roles: Record<string, TeamRole> | null;
}

/**
 * The select-list columns of a caller's standing for the `users` row aliased `u`: the one
 * definition of "2FA setup owed" (two-factor-policy.db.ts twoFactorSetupOwed reads it too) and
 * the roles teams/memberships.db.ts rolesOfUser lists.
 */
export function standingColumns(ex: SqlExecutor) {
  return ex`
    (u.require_2fa OR EXISTS (SELECT 1 FROM team_members m JOIN teams t ON t.id = m.team_id WHERE m.user_id = u.id AND t.require_2fa))
      AND u.totp_secret IS NULL AND NOT EXISTS (SELECT 1 FROM passkeys p WHERE p.user_id = u.id) AS two_factor_owed,
    (SELECT json_object_agg(m.team_id, m.role) FROM team_members m WHERE m.user_id = u.id) AS team_roles`;
}

/** A row's {@link StandingFields} as a {@link CallerStanding}. */
export function toStanding(row: StandingFields): CallerStanding {
  return { two_factor_owed: row.two_factor_owed, team_roles: new Map(Object.entries(row.team_roles ?? {})) };
}
