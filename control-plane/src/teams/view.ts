import type { Team, TeamInvite, TeamMember } from '@vantage/shared-protocol';
import type { TeamInviteRow } from './team-invites.db.js';
import type { TeamMemberRow } from './team-members.db.js';
import type { TeamRow } from './teams.db.js';

/** A team as the API shows it to one member (docs/api/teams.md). */
export function toTeam(row: TeamRow): Team {
  return { id: row.id, name: row.name, role: row.role, member_count: row.member_count, time_zone: row.time_zone, require_2fa: row.require_2fa, created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString() };
}

/** A team member as the API shows it (docs/api/teams.md "Members"). */
export function toTeamMember(row: TeamMemberRow): TeamMember {
  return { user_id: row.user_id, email: row.email, display_name: row.display_name, role: row.role, joined_at: row.joined_at.toISOString() };
}

/** An invitation as the API shows it (docs/api/teams.md "Invitations"): status from its times, at `now`. */
export function toTeamInvite(row: TeamInviteRow, now: Date = new Date()): TeamInvite {
  return {
    id: row.id, team_id: row.team_id, email: row.email, role: row.role,
    status: row.accepted_at ? 'accepted' : row.revoked_at ? 'revoked' : row.expires_at <= now ? 'expired' : 'pending',
    invited_by: row.invited_by, created_at: row.created_at.toISOString(), expires_at: row.expires_at.toISOString(),
    accepted_at: row.accepted_at?.toISOString() ?? null, accepted_by: row.accepted_by,
  };
}
