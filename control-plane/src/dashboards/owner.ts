import type { Owner, OwnerScope } from '../teams/authorize.js';

/**
 * The resources a dashboard shows: exactly its owner's (a team's dashboard shows the team's
 * monitors, events and nodes; a personal one its creator's personal ones), whoever looks at it,
 * its owner or, through its share token, anyone.
 */
export function scopeOf(owner: Owner): OwnerScope {
  return owner.team_id === null ? { user_id: owner.user_id, team_ids: [] } : { user_id: null, team_ids: [owner.team_id] };
}
