import { z } from 'zod';
import { idSchema } from '../ids.js';
import { textString } from '../parse.js';
import { alertNameSchema } from './channels.js';
import { alertOwnerQuerySchema, alertTeamIdInput, alertTeamIdOutput, alertTeamIdPatch } from './owner.js';

/** Alert policy limits (docs/api/alerting.md "Policies"). */
export const ALERT_POLICY_LIMITS = {
  recovery_n_max: 10,
  escalation_levels_max: 5,
  channels_max: 20,
  delay_s_max: 86_400,
  after_seconds_max: 604_800,
  title_template_max_chars: 1024,
  body_template_max_chars: 8192,
} as const;

/** A local time of day `HH:MM` (00:00-23:59). */
export const clockTimeSchema = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time of day HH:MM (00:00-23:59)');

// Any id-sized string: one that is not an id of yours, malformed or not, is 404 ALERT_CHANNEL_NOT_FOUND (the route checks).
const channelIdsSchema = z.array(z.string().min(1).max(64)).max(ALERT_POLICY_LIMITS.channels_max)
  .refine((ids) => new Set(ids).size === ids.length, 'must not repeat a channel');

/**
 * One escalation level: notify `channel_ids` and page the person on call on each of
 * `schedule_ids` (on-call schedules of the policy's team, docs/api/teams.md "On-call schedules";
 * at least one channel or schedule in all) `after_seconds` after the previous level (the first
 * notification for level 1) while the event is still firing. `level_index` and `after_seconds`
 * are strictly increasing across a policy's levels.
 */
export const escalationLevelInputSchema = z.strictObject({
  level_index: z.number().int().min(1).max(ALERT_POLICY_LIMITS.escalation_levels_max),
  after_seconds: z.number().int().min(1).max(ALERT_POLICY_LIMITS.after_seconds_max),
  channel_ids: channelIdsSchema.default([]),
  // Any id-sized string: one that is not a schedule of the policy's team is 404 ONCALL_SCHEDULE_NOT_FOUND (the route checks).
  schedule_ids: z.array(z.string().min(1).max(64)).max(ALERT_POLICY_LIMITS.channels_max)
    .refine((ids) => new Set(ids).size === ids.length, 'must not repeat a schedule').default([]),
});

const escalationLevelsSchema = z.array(escalationLevelInputSchema).max(ALERT_POLICY_LIMITS.escalation_levels_max)
  .superRefine((levels, ctx) => {
    levels.forEach((l, i) => {
      if (l.channel_ids.length + l.schedule_ids.length === 0) ctx.addIssue({ code: 'custom', path: [i, 'channel_ids'], message: 'an escalation level needs at least one channel or schedule' });
    });
    for (let i = 1; i < levels.length; i++) {
      if (levels[i]!.level_index <= levels[i - 1]!.level_index) ctx.addIssue({ code: 'custom', path: [i, 'level_index'], message: 'must be greater than the previous level\'s' });
      if (levels[i]!.after_seconds <= levels[i - 1]!.after_seconds) ctx.addIssue({ code: 'custom', path: [i, 'after_seconds'], message: 'must be greater than the previous level\'s' });
    }
  });

const policyFields = {
  name: alertNameSchema,
  monitor_id: idSchema('monitor'),
  channel_ids: channelIdsSchema,
  enabled: z.boolean(),
  delay_s: z.number().int().min(0).max(ALERT_POLICY_LIMITS.delay_s_max),
  recovery_n: z.number().int().min(1).max(ALERT_POLICY_LIMITS.recovery_n_max),
  mute_start: clockTimeSchema.nullable(),
  mute_end: clockTimeSchema.nullable(),
  title_template: textString().max(ALERT_POLICY_LIMITS.title_template_max_chars).nullable(),
  body_template: textString().max(ALERT_POLICY_LIMITS.body_template_max_chars).nullable(),
  escalation_levels: escalationLevelsSchema,
  fire_on_degraded: z.boolean(),
  notify_on_no_data: z.boolean(),
  // Status pages of the policy's owner (404 STATUS_PAGE_NOT_FOUND otherwise; the route checks).
  incident_status_page_ids: z.array(z.string().min(1).max(64)).max(20).refine((a) => new Set(a).size === a.length, 'must not repeat an id'),
};

/** mute_start and mute_end come together (both set or both null) and differ. */
function muteRule(p: { mute_start?: string | null; mute_end?: string | null }, ctx: z.RefinementCtx): void {
  if (p.mute_start === undefined && p.mute_end === undefined) return;
  if ((p.mute_start ?? null) === null !== ((p.mute_end ?? null) === null)) {
    ctx.addIssue({ code: 'custom', path: [p.mute_start ? 'mute_end' : 'mute_start'], message: 'mute_start and mute_end are set together' });
  } else if (p.mute_start && p.mute_start === p.mute_end) {
    ctx.addIssue({ code: 'custom', path: ['mute_end'], message: 'must differ from mute_start' });
  }
}

/**
 * `POST /v1/alert-policies`: `name` and `monitor_id` required; `channel_ids` ([]), `enabled`
 * (true), `delay_s` (0), `recovery_n` (1, max 10), `mute_start`/`mute_end` (null; HH:MM in the
 * owner's time zone, a window past midnight wraps), `title_template`/`body_template` (null:
 * the default text; Go text/template syntax within ALERT_TEMPLATE_LIMITS, docs/api/alerting.md
 * "Templates"),
 * `escalation_levels` ([], max 5), `fire_on_degraded` (false: only down rounds fire; true: degraded
 * rounds fire too), `notify_on_no_data` (true: the monitor going to `no_data`, no node reporting
 * two rounds in a row, fires an event of type no_data; false: it does not), `incident_status_page_ids`
 * ([]: status pages on which an event of the policy opens an incident, resolved with the event;
 * docs/api/status-pages.md "Incidents from alerts").
 * @example { "name": "API down", "monitor_id": "m_01jd3k6w9z4q8r2t7v5x1y3b6c", "channel_ids": ["ach_01jd3k6w9z4q8r2t7v5x1y3b6c"], "recovery_n": 2 }
 */
export const alertPolicyCreateSchema = z.strictObject({
  ...policyFields,
  channel_ids: policyFields.channel_ids.default([]),
  enabled: policyFields.enabled.default(true),
  delay_s: policyFields.delay_s.default(0),
  recovery_n: policyFields.recovery_n.default(1),
  mute_start: policyFields.mute_start.default(null),
  mute_end: policyFields.mute_end.default(null),
  title_template: policyFields.title_template.default(null),
  body_template: policyFields.body_template.default(null),
  escalation_levels: policyFields.escalation_levels.default([]),
  fire_on_degraded: policyFields.fire_on_degraded.default(false),
  notify_on_no_data: policyFields.notify_on_no_data.default(true),
  incident_status_page_ids: policyFields.incident_status_page_ids.default([]),
  team_id: alertTeamIdInput,
}).superRefine(muteRule);
export type AlertPolicyCreate = z.infer<typeof alertPolicyCreateSchema>;

/**
 * `PATCH /v1/alert-policies/{id}`: any field of the create request; omitted = unchanged;
 * `escalation_levels`, when given, replaces all levels. The mute window is checked as it ends up.
 * @example { "enabled": false }
 */
export const alertPolicyPatchSchema = z.strictObject({
  name: policyFields.name.optional(),
  monitor_id: policyFields.monitor_id.optional(),
  channel_ids: policyFields.channel_ids.optional(),
  enabled: policyFields.enabled.optional(),
  delay_s: policyFields.delay_s.optional(),
  recovery_n: policyFields.recovery_n.optional(),
  mute_start: policyFields.mute_start.optional(),
  mute_end: policyFields.mute_end.optional(),
  title_template: policyFields.title_template.optional(),
  body_template: policyFields.body_template.optional(),
  escalation_levels: policyFields.escalation_levels.optional(),
  fire_on_degraded: policyFields.fire_on_degraded.optional(),
  notify_on_no_data: policyFields.notify_on_no_data.optional(),
  incident_status_page_ids: policyFields.incident_status_page_ids.optional(),
  team_id: alertTeamIdPatch,
});
export type AlertPolicyPatch = z.infer<typeof alertPolicyPatchSchema>;

/** An escalation level as returned (with its id). */
export const escalationLevelSchema = escalationLevelInputSchema.extend({ id: idSchema('escalation_level') });

/** An alert policy as returned. */
export const alertPolicySchema = z.object({
  id: idSchema('alert_policy'),
  user_id: z.string(),
  team_id: alertTeamIdOutput,
  name: z.string(),
  monitor_id: z.string(),
  channel_ids: z.array(z.string()),
  enabled: z.boolean(),
  delay_s: z.number().int(),
  recovery_n: z.number().int(),
  mute_start: z.string().nullable(),
  mute_end: z.string().nullable(),
  title_template: z.string().nullable(),
  body_template: z.string().nullable(),
  escalation_levels: z.array(escalationLevelSchema),
  fire_on_degraded: z.boolean(),
  notify_on_no_data: z.boolean(),
  incident_status_page_ids: z.array(z.string()),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type AlertPolicy = z.infer<typeof alertPolicySchema>;

/** `GET /v1/alert-policies`: `{items[]}`, oldest first; `?monitor_id=` filters. */
export const alertPolicyListSchema = z.object({ items: z.array(alertPolicySchema) });

/** `GET /v1/alert-policies` query. */
export const alertPolicyQuerySchema = alertOwnerQuerySchema.extend({ monitor_id: z.string().max(64).optional() });

export { muteRule as alertPolicyMuteRule };
