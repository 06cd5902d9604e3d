import { z } from '@hono/zod-openapi';
import { requireAuth } from '../middleware/auth.js';
import type { Owner, OwnerScope } from '../teams/authorize.js';

/** Shared pieces of the alerting routers. */
export const READ = [requireAuth({ scope: 'read' })];
export const WRITE = [requireAuth({ scope: 'write' })];
export const TAGS = ['alerting'];
export const idParam = (example: string) => z.object({ id: z.string().max(64).openapi({ param: { name: 'id', in: 'path' }, example }) });

/**
 * The owner of a stored alerting row (its creator and team), for teams/authorize.ts authorize.
 * A row without `team_id` (none of ours) is personal.
 */
export function ownerOf(row: { user_id: string; team_id?: string | null }): Owner {
  return { user_id: row.user_id, team_id: row.team_id ?? null };
}

/**
 * The scope of exactly one owner's resources (with owner-scope.db.ts ownedBy): what a resource may
 * refer to. A team's policy, silence or window refers only to that team's monitors, groups and
 * channels; a personal one only to its creator's personal ones (docs/api/alerting.md "Teams").
 */
export function sameOwner(owner: Owner): OwnerScope {
  return owner.team_id === null ? { user_id: owner.user_id, team_ids: [] } : { user_id: null, team_ids: [owner.team_id] };
}
