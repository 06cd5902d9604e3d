import { z } from 'zod';
import { idSchema } from '../ids.js';

/*
 * Who owns an alerting resource (docs/api/alerting.md "Teams"): its creator, and the team it
 * belongs to (`team_id`, null: personal). Members act on a team's channels, policies, silences,
 * groups, windows and events by role (docs/api/teams.md "Roles").
 */

/**
 * The `team_id` of a create body: the team the new resource belongs to (the caller needs `member`
 * or above there: 404 TEAM_NOT_FOUND when not a member, 403 FORBIDDEN for a viewer); absent or
 * null: personal (a workspace token's resources belong to its team).
 */
export const alertTeamIdInput = idSchema('team').nullable().optional()
  .describe('the team that owns it (you need member or above there); absent or null: personal');

/**
 * The `team_id` of a PATCH body: move the resource into that team (member or above there too), or
 * with null out of its team into its creator's personal resources (the creator only); absent:
 * unchanged (docs/api/teams.md "Moving a resource").
 */
export const alertTeamIdPatch = idSchema('team').nullable().optional()
  .describe('move it into this team, or to its creator\'s personal resources with null; needs member or above on both sides');

/** The `team_id` of a resource as returned: its team, or null when personal. */
export const alertTeamIdOutput = z.string().nullable().describe('the team that owns it, null when personal');

/** `?team_id=` of the alerting lists: only that team's resources (absent: everything you can read). */
export const alertOwnerQuerySchema = z.object({ team_id: idSchema('team').optional() });
