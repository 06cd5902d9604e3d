import { z } from 'zod';
import { idSchema } from '../ids.js';

/*
 * Who owns a monitor or monitor group (docs/api/monitors.md "Teams"): its creator alone
 * (personal, `team_id` null) or a team, whose members act on it by role (docs/api/teams.md).
 */

/** `team_id` of a create body: the team that will own it (member or above there); absent or null: personal. */
export const monitorTeamIdInput = idSchema('team').nullable().optional()
  .describe('the team that owns it (you need member or above there); absent or null: personal (a workspace token: its team)');

/** `team_id` of a PATCH body: move it into that team, or out of its team with null (write access on both sides). */
export const monitorTeamIdPatch = idSchema('team').nullable().optional()
  .describe('move it into this team, or to its creator\'s personal monitors with null; needs member or above on both sides');

/** The `team_id` of a monitor or group as returned: its team, or null when personal. */
export const monitorTeamIdOutput = z.string().nullable().describe('the team that owns it, null when personal');

/** `?team_id=` of the monitor lists: only that team's (absent: everything you can read). */
export const monitorTeamIdQuery = idSchema('team').optional()
  .describe('only this team\'s (absent: your own and those of every team you are in)');

/**
 * `GET /v1/monitors/export` and `POST /v1/monitors/import` query: `team_id` picks the owner
 * exported or imported into (absent: your personal monitors; a workspace token: its team).
 * @example { "team_id": "team_01jd3k6w9z4q8r2t7v5x1y3b6c" }
 */
export const monitorTransferQuerySchema = z.object({
  team_id: idSchema('team').optional().describe('the team to export or import into (absent: your personal monitors)'),
});
