import type { Context } from 'hono';
import { isId } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { authorize, type Actor } from './authorize.js';
import type { Access } from './roles.js';
import { teamExists } from './teams.db.js';

/**
 * Authorize `access` to team `team_id` itself through the one authorization function
 * (authorize.ts): a team the caller is not in, or no team at all, is 404 TEAM_NOT_FOUND; a role
 * too weak for `access` is 403 FORBIDDEN with the role it would need (docs/api/teams.md "Roles").
 */
export async function authorizeTeam(c: Context<AppEnv>, deps: Pick<AppDeps, 'sql'>, team_id: string, access: Access): Promise<Actor> {
  const owner = isId('team', team_id) && (await teamExists(deps.sql, team_id)) ? { user_id: '', team_id } : null;
  return authorize(c, deps, owner, access, 'TEAM_NOT_FOUND', 'team');
}

/**
 * Refuse what only an account acting for itself may do (create a team, accept an invitation):
 * a workspace token acts for its one team only (docs/api/teams.md "Workspace tokens").
 * @throws ApiError FORBIDDEN (403) for a workspace token
 */
export function requireAccountActor(actor: Actor, what: string): void {
  if (actor.team_only !== null) throw new ApiError('FORBIDDEN', `a workspace token acts for its team only: it cannot ${what}; use a session or an account key`, { team_id: actor.team_only });
}
