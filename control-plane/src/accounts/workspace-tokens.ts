import type { Context } from 'hono';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { authorize } from '../teams/authorize.js';

/**
 * The team a new API key acts for (docs/api/teams.md "Workspace tokens"): `asked` (the body's
 * `team_id`), else the creating workspace token's own team, else none (an account key). Making a
 * workspace token is managing the team: the caller must be its admin or owner. A workspace token
 * creates keys only for its own team.
 * @returns the team id, or null for an account key
 * @throws ApiError TEAM_NOT_FOUND (404) when the caller is not a member of `asked` (or it does not
 *   exist, or a workspace token names another team); FORBIDDEN (403) when its role there is below
 *   admin (`details.required_role`), or a workspace token asks for an account key (`team_id` null)
 */
export async function workspaceOf(c: Context<AppEnv>, deps: Pick<AppDeps, 'sql'>, asked: string | null | undefined): Promise<string | null> {
  const principal = c.get('principal')!;
  const own_team = principal.team_id ?? null;
  if (asked === null && own_team !== null) {
    throw new ApiError('FORBIDDEN', 'a workspace token creates only keys of its own team', { team_id: own_team });
  }
  const team_id = asked ?? own_team;
  if (team_id === null) return null;
  await authorize(c, deps, { user_id: principal.user_id, team_id }, 'manage', 'TEAM_NOT_FOUND', 'team');
  return team_id;
}

/**
 * Refuse a workspace token creating a personal access token: it acts for its team only, and a PAT
 * is its account's (docs/api/teams.md "Workspace tokens").
 * @throws ApiError FORBIDDEN (403) when the caller is a workspace token
 */
export function refusePersonalFromWorkspace(c: Context<AppEnv>): void {
  const team_id = c.get('principal')?.team_id;
  if (team_id) throw new ApiError('FORBIDDEN', 'a workspace token cannot create personal access tokens', { team_id });
}
