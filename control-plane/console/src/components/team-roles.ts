import type { Team } from '@vantage/shared-protocol';
import { ROLES } from '../api/vocabulary.js';
import { t } from '../i18n/i18n.js';

/** A role in a team (docs/api/teams.md "Roles"), weakest first in ROLES. */
export type TeamRole = Team['role'];

/** Whether `role` has everything of `needed` (each role has what the roles below it have). */
export function atLeast(role: TeamRole, needed: TeamRole): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(needed);
}

/**
 * Props of a control the caller's role may not use: disabled, with the reason as its title and
 * description (the API refuses anyway, 403 FORBIDDEN). `reasonId` is the id of an element that
 * says why; empty props when allowed.
 */
export function roleGate(allowed: boolean, reasonId: string): { disabled?: true; 'aria-describedby'?: string } {
  return allowed ? {} : { disabled: true, 'aria-describedby': reasonId };
}

/** The translated name of a role. */
export function roleName(role: TeamRole): string {
  return t(`teams.role.${role}`);
}
