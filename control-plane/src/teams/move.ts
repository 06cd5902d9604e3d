import type { Context } from 'hono';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { actorOf, allows, authorize, type Owner } from './authorize.js';

/** Where a PATCH `team_id` leaves a resource: its owner afterwards, and whether that changed. */
export interface MoveOutcome {
  owner: Owner;
  moved: boolean;
}

/**
 * The owner of a resource after a PATCH that may carry `team_id` (docs/api/teams.md "Moving a
 * resource"; the caller has already been authorized to change the resource where it is): `team_id`
 * undefined keeps the owner; a team id moves it into that team, which needs `member` or above there
 * too; null moves it out of its team into its creator's personal resources, which only the creator
 * may do. The creator (`user_id`) never changes.
 *
 * @param current the resource's owner as stored
 * @param team_id the body's `team_id` (undefined: not given)
 * @param what    the resource in words for the message (`monitor`, `alert channel`)
 * @throws ApiError TEAM_NOT_FOUND (404) for a team the caller is not in; FORBIDDEN (403) for a
 *   viewer there, or for anyone but the creator taking it out of its team (`details.team_id`)
 */
export async function ownerAfterMove(
  c: Context<AppEnv>, deps: Pick<AppDeps, 'sql'>, current: Owner, team_id: string | null | undefined, what: string,
): Promise<MoveOutcome> {
  const owner: Owner = { user_id: current.user_id, team_id: team_id !== undefined ? team_id : current.team_id };
  const moved = owner.team_id !== current.team_id;
  if (moved && owner.team_id !== null) await authorize(c, deps, owner, 'write', 'TEAM_NOT_FOUND', 'team');
  if (moved && owner.team_id === null && !allows(await actorOf(c, deps), owner, 'write')) {
    throw new ApiError('FORBIDDEN', `only the ${what}'s creator can take it out of its team (into their personal resources)`, { team_id: current.team_id });
  }
  return { owner, moved };
}
