import { z } from 'zod';
import { isIanaTimezone } from './account.js';
import { idSchema } from './ids.js';
import { textString } from './parse.js';

/*
 * On-call schedule wire shapes (docs/api/teams.md "On-call schedules"). A schedule belongs to one
 * team; its rotations hand the shift from one participant to the next at a local time of day in
 * the schedule's time zone (09:00 stays 09:00 across daylight-saving changes); overrides put
 * someone else on call for a while. Every request string is a textString (NUL refused).
 */

/** On-call limits (ours). */
export const ONCALL_LIMITS = {
  name_max_chars: 100,
  rotations_max: 10,
  participants_max: 50,
  shift_length_max: 366,
  /** An override lasts at most 90 days. */
  override_max_s: 90 * 86_400,
} as const;

/** Units of a rotation's shift length. */
export const ONCALL_SHIFT_UNITS = ['hours', 'days', 'weeks'] as const;

const localDate = z.string().regex(/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, 'must be a date YYYY-MM-DD');
const handoffTime = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time of day HH:MM (00:00-23:59)');

/**
 * One rotation: `participants` (user ids of team members, in turn order; one may appear once)
 * take shifts of `shift_length` `shift_unit` each, the first starting `starts_on` at
 * `handoff_time`, local time of the schedule's `time_zone`.
 * @example { "participants": ["u_01jd3k6w9z4q8r2t7v5x1y3b6c", "u_01jd3k6w9z4q8r2t7v5x1y3b6d"], "starts_on": "2026-03-23", "handoff_time": "09:00", "shift_length": 1, "shift_unit": "weeks" }
 */
export const oncallRotationSchema = z.strictObject({
  participants: z.array(z.string().min(1).max(64)).min(1, 'a rotation needs at least one participant').max(ONCALL_LIMITS.participants_max)
    .refine((ids) => new Set(ids).size === ids.length, 'must not repeat a participant'),
  starts_on: localDate,
  handoff_time: handoffTime,
  shift_length: z.number().int().min(1).max(ONCALL_LIMITS.shift_length_max),
  shift_unit: z.enum(ONCALL_SHIFT_UNITS),
});
export type OncallRotation = z.infer<typeof oncallRotationSchema>;

const scheduleFields = {
  name: textString().trim().min(1).max(ONCALL_LIMITS.name_max_chars),
  time_zone: textString().max(64).refine(isIanaTimezone, { message: 'must be an IANA time zone name' }),
  rotations: z.array(oncallRotationSchema).max(ONCALL_LIMITS.rotations_max),
};

/**
 * `POST /v1/oncall/schedules` body: `team_id` (required: a schedule is a team's), `name` (unique
 * in the team, any case), `time_zone` (IANA, default UTC), `rotations` ([] by default). When
 * rotations overlap, the one that started last is on call.
 * @example { "team_id": "team_01jd3k6w9z4q8r2t7v5x1y3b6c", "name": "Primary", "time_zone": "Europe/Berlin", "rotations": [{ "participants": ["u_01jd3k6w9z4q8r2t7v5x1y3b6c"], "starts_on": "2026-03-23", "handoff_time": "09:00", "shift_length": 1, "shift_unit": "days" }] }
 */
export const oncallScheduleCreateSchema = z.strictObject({
  team_id: z.string().min(1).max(64),
  name: scheduleFields.name,
  time_zone: scheduleFields.time_zone.default('UTC'),
  rotations: scheduleFields.rotations.default([]),
});
export type OncallScheduleCreate = z.infer<typeof oncallScheduleCreateSchema>;

/** `PATCH /v1/oncall/schedules/{id}` body: any of `name`, `time_zone`, `rotations` (replaces all). */
export const oncallSchedulePatchSchema = z.strictObject({
  name: scheduleFields.name.optional(),
  time_zone: scheduleFields.time_zone.optional(),
  rotations: scheduleFields.rotations.optional(),
});
export type OncallSchedulePatch = z.infer<typeof oncallSchedulePatchSchema>;

/** A schedule as returned. */
export const oncallScheduleSchema = z.object({
  id: idSchema('oncall_schedule'),
  team_id: z.string(),
  name: z.string(),
  time_zone: z.string(),
  rotations: z.array(oncallRotationSchema),
  created_by: z.string().nullable(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type OncallSchedule = z.infer<typeof oncallScheduleSchema>;

/**
 * `POST /v1/oncall/schedules/{id}/overrides` body: `user_id` (a team member) is on call from
 * `starts_at` to `ends_at` (RFC 3339, at most 90 days); with `replaces_user_id` (a participant of
 * the schedule's rotations) only during that participant's shifts.
 * @example { "user_id": "u_01jd3k6w9z4q8r2t7v5x1y3b6d", "starts_at": "2026-03-28T08:00:00Z", "ends_at": "2026-03-29T08:00:00Z" }
 */
export const oncallOverrideCreateSchema = z.strictObject({
  user_id: z.string().min(1).max(64),
  starts_at: z.iso.datetime({ offset: true }),
  ends_at: z.iso.datetime({ offset: true }),
  replaces_user_id: z.string().min(1).max(64).nullable().default(null),
}).superRefine((o, ctx) => {
  const span_ms = Date.parse(o.ends_at) - Date.parse(o.starts_at);
  if (!(span_ms > 0)) ctx.addIssue({ code: 'custom', path: ['ends_at'], message: 'must be after starts_at' });
  else if (span_ms > ONCALL_LIMITS.override_max_s * 1000) ctx.addIssue({ code: 'custom', path: ['ends_at'], message: 'an override lasts at most 90 days' });
});
export type OncallOverrideCreate = z.infer<typeof oncallOverrideCreateSchema>;

/** An override as returned. */
export const oncallOverrideSchema = z.object({
  id: idSchema('oncall_override'),
  schedule_id: z.string(),
  user_id: z.string(),
  replaces_user_id: z.string().nullable(),
  starts_at: z.iso.datetime(),
  ends_at: z.iso.datetime(),
  created_by: z.string().nullable(),
  created_at: z.iso.datetime(),
});
export type OncallOverride = z.infer<typeof oncallOverrideSchema>;

/**
 * `GET /v1/oncall/schedules/{id}/on-call?at=T`: who is on call at `at` (default now). `source`
 * `override` (then `override_id`) or `rotation` (then `rotation_index`); `user_id` null when
 * nobody is (no rotation has started). `shift_start`/`shift_end` bound the current rotation shift
 * or override (null when unknown).
 * @example { "at": "2026-03-29T08:00:00.000Z", "user_id": "u_01jd3k6w9z4q8r2t7v5x1y3b6c", "source": "rotation", "rotation_index": 0, "override_id": null, "shift_start": "2026-03-29T07:00:00.000Z", "shift_end": "2026-03-30T07:00:00.000Z" }
 */
export const oncallNowSchema = z.object({
  at: z.iso.datetime(),
  user_id: z.string().nullable(),
  source: z.enum(['rotation', 'override']).nullable(),
  rotation_index: z.number().int().nullable(),
  override_id: z.string().nullable(),
  shift_start: z.iso.datetime().nullable(),
  shift_end: z.iso.datetime().nullable(),
});
export type OncallNow = z.infer<typeof oncallNowSchema>;

/** Contact methods of on-call pages: alert channel types a person can be paged on. */
export const ONCALL_CONTACT_METHODS = ['email', 'sms', 'webhook'] as const;
/** Most contact channels an account lists. */
export const ONCALL_NOTIFICATION_RULES_MAX = 5;

/**
 * `PUT /v1/oncall/notification-rules`: how you are paged when you are on call, replacing the list:
 * up to 5 of your own personal alert channels of type `email`, `sms` (sending only to the phone
 * number bound to your account) or `webhook`, no repeats; empty: your account e-mail address.
 * @example { "channel_ids": ["ach_01jd3k6w9z4q8r2t7v5x1y3b6c"] }
 */
export const oncallNotificationRulesPutSchema = z.strictObject({
  channel_ids: z.array(idSchema('alert_channel')).max(ONCALL_NOTIFICATION_RULES_MAX)
    .refine((ids) => new Set(ids).size === ids.length, { message: 'must not repeat a channel' }),
});
export type OncallNotificationRulesPut = z.infer<typeof oncallNotificationRulesPutSchema>;

/**
 * Your on-call contact methods, in order: each channel with its `method` (its type) and name;
 * `items` empty: pages go to your account e-mail address.
 * @example { "items": [{ "channel_id": "ach_01jd3k6w9z4q8r2t7v5x1y3b6c", "method": "sms", "name": "My phone" }] }
 */
export const oncallNotificationRulesSchema = z.object({
  items: z.array(z.object({ channel_id: z.string(), method: z.enum(ONCALL_CONTACT_METHODS), name: z.string() })),
});
export type OncallNotificationRules = z.infer<typeof oncallNotificationRulesSchema>;
