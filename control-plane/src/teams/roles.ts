/**
 * Team roles and what each may do (docs/api/teams.md "Roles"), strongest last: a `viewer` reads
 * the team's resources, a `member` also creates, changes and deletes them, an `admin` also
 * manages the team's members and invitations (not its owners), an `owner` also renames or deletes
 * the team and manages owners.
 */
export const TEAM_ROLES = ['viewer', 'member', 'admin', 'owner'] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];

/**
 * What an operation needs of a resource: `read` (GET), `write` (create, change, delete, and every
 * action such as pause or ack), `manage` (the team's members and invitations), `own` (the team
 * itself: rename, delete, owners).
 */
export type Access = 'read' | 'write' | 'manage' | 'own';

const LEAST_ROLE: Record<Access, TeamRole> = { read: 'viewer', write: 'member', manage: 'admin', own: 'owner' };

/** The weakest role that grants `access` (docs/api/teams.md "Roles"). */
export function leastRoleFor(access: Access): TeamRole {
  return LEAST_ROLE[access];
}

/** Whether `role` grants `access`. */
export function roleGrants(role: TeamRole, access: Access): boolean {
  return TEAM_ROLES.indexOf(role) >= TEAM_ROLES.indexOf(LEAST_ROLE[access]);
}
