import { z } from 'zod';
import { isIanaTimezone } from './account.js';
import { textString } from './parse.js';

/**
 * Team (workspace) wire shapes (docs/api/teams.md): teams, their members and invitations. Every
 * request string is a {@link textString}: NUL and lone surrogates are refused (400 VALIDATION_FAILED).
 */

/** Team roles, weakest first (docs/api/teams.md "Roles"). */
export const TEAM_ROLE_NAMES = ['viewer', 'member', 'admin', 'owner'] as const;
/** Roles an invitation may offer: every role but owner (an owner promotes a member afterwards). */
export const TEAM_INVITE_ROLES = ['viewer', 'member', 'admin'] as const;
/** Invitation validity bounds, seconds: 5 minutes to 30 days, 7 days by default (ours). */
export const TEAM_INVITE_EXPIRES_IN_S = { min: 300, max: 30 * 86_400, default: 7 * 86_400 } as const;

const teamName = textString().trim().min(1).max(100);
const emailSchema = textString().trim().max(254).pipe(z.email());

/**
 * `POST /v1/teams` body: `name` 1-100 characters (trimmed; names need not be unique).
 * @example { "name": "Platform" }
 */
export const teamCreateSchema = z.strictObject({ name: teamName });
/** A team's time zone: an IANA name (default UTC); its resources' mute and recurring maintenance windows are local to it. */
const teamTimeZone = textString().max(64).refine(isIanaTimezone, { message: 'must be an IANA time zone name' });
/**
 * `PATCH /v1/teams/{id}` body: a new `name` (owners), a `time_zone` (owners and admins), `require_2fa`
 * (owners and admins: every member must have TOTP or a passkey, docs/api/accounts.md "Two-factor
 * policy and recovery codes"); omitted = unchanged.
 * @example { "name": "Platform SRE", "time_zone": "Europe/Berlin" }
 */
export const teamPatchSchema = z.strictObject({ name: teamName.optional(), time_zone: teamTimeZone.optional(), require_2fa: z.boolean().optional() });

/**
 * A team as its member sees it: `role` is the caller's own role in it.
 * @example { "id": "team_01jd3k6w9z4q8r2t7v5x1y3b6c", "name": "Platform", "role": "owner", "member_count": 3, "time_zone": "UTC", "created_at": "2026-11-28T10:00:00.000Z", "updated_at": "2026-11-28T10:00:00.000Z" }
 */
export const teamSchema = z.object({
  id: z.string(),
  name: z.string(),
  role: z.enum(TEAM_ROLE_NAMES),
  member_count: z.number().int(),
  /** IANA time zone of the team's mute and recurring maintenance windows (default UTC). */
  time_zone: z.string(),
  /** Whether every member must have two-factor authentication (TOTP or a passkey). */
  require_2fa: z.boolean(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
/** `GET /v1/teams`: the caller's teams, a plain array, oldest first. */
export const teamListSchema = z.array(teamSchema);

/**
 * A member of a team: its account, display name and role, and when it joined.
 * @example { "user_id": "u_01jd3k6w9z4q8r2t7v5x1y3b6c", "email": "ops@example.com", "display_name": "Ops", "role": "admin", "joined_at": "2026-11-28T10:00:00.000Z" }
 */
export const teamMemberSchema = z.object({
  user_id: z.string(),
  email: z.string(),
  display_name: z.string().nullable(),
  role: z.enum(TEAM_ROLE_NAMES),
  joined_at: z.iso.datetime(),
});
/** `GET /v1/teams/{id}/members`: a plain array, owners first, then by joining time. */
export const teamMemberListSchema = z.array(teamMemberSchema);
/** `PATCH /v1/teams/{id}/members/{user_id}` body: the member's new role. @example { "role": "admin" } */
export const teamMemberPatchSchema = z.strictObject({ role: z.enum(TEAM_ROLE_NAMES) });

/**
 * `POST /v1/teams/{id}/invites` body: the invitee's `email` (the account that accepts must have
 * it, any case), the `role` it will get (default member; never owner), `expires_in_s`
 * 300-2592000 (default 604800, 7 days).
 * @example { "email": "dev@example.com", "role": "member" }
 */
export const teamInviteCreateSchema = z.strictObject({
  email: emailSchema,
  role: z.enum(TEAM_INVITE_ROLES).default('member'),
  expires_in_s: z.number().int().min(TEAM_INVITE_EXPIRES_IN_S.min).max(TEAM_INVITE_EXPIRES_IN_S.max).default(TEAM_INVITE_EXPIRES_IN_S.default),
});

/**
 * A team invitation (never its token): `status` `pending` (usable), `accepted`, `expired` or
 * `revoked`.
 * @example { "id": "tinv_01jd3k6w9z4q8r2t7v5x1y3b6c", "team_id": "team_01jd3k6w9z4q8r2t7v5x1y3b6c", "email": "dev@example.com", "role": "member", "status": "pending", "invited_by": "u_…", "created_at": "…", "expires_at": "…", "accepted_at": null, "accepted_by": null }
 */
export const teamInviteSchema = z.object({
  id: z.string(),
  team_id: z.string(),
  email: z.string(),
  role: z.enum(TEAM_INVITE_ROLES),
  status: z.enum(['pending', 'accepted', 'expired', 'revoked']),
  invited_by: z.string().nullable(),
  created_at: z.iso.datetime(),
  expires_at: z.iso.datetime(),
  accepted_at: z.iso.datetime().nullable(),
  accepted_by: z.string().nullable(),
});
/**
 * Invitation create answer: the invitation, its `token` (`tit_…`, shown exactly once, also sent
 * by e-mail) and how the e-mail left (`queued`, or `logged` without SMTP).
 */
export const createdTeamInviteSchema = teamInviteSchema.extend({ token: z.string(), email_delivery: z.enum(['queued', 'logged']) });
/** `GET /v1/teams/{id}/invites`: a plain array, newest first. */
export const teamInviteListSchema = z.array(teamInviteSchema);

/** `POST /v1/teams/invites/accept` body: the `tit_…` token from the invitation. @example { "token": "tit_…" } */
export const teamInviteAcceptSchema = z.strictObject({ token: textString().min(1).max(200) });

export type Team = z.infer<typeof teamSchema>;
export type TeamMember = z.infer<typeof teamMemberSchema>;
export type TeamInvite = z.infer<typeof teamInviteSchema>;
export type CreatedTeamInvite = z.infer<typeof createdTeamInviteSchema>;
