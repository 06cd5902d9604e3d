import { z } from 'zod';
import { idSchema } from '../ids.js';
import { textString } from '../parse.js';
import { alertNameSchema } from './channels.js';
import { alertOwnerQuerySchema, alertTeamIdInput, alertTeamIdOutput, alertTeamIdPatch } from './owner.js';

/*
 * Silences, alert groups and maintenance windows (docs/api/alerting.md).
 */

const instant = z.iso.datetime({ offset: true });

function endsAfterStart(v: { starts_at?: string; ends_at?: string }, ctx: z.RefinementCtx): void {
  if (v.starts_at && v.ends_at && Date.parse(v.ends_at) <= Date.parse(v.starts_at)) {
    ctx.addIssue({ code: 'custom', path: ['ends_at'], message: 'must be after starts_at' });
  }
}

/**
 * `POST /v1/alert-silences`: silence one monitor (`monitor_id`) or all of yours (`monitor_id`
 * null or absent) from `starts_at` to `ends_at` (ISO 8601, ends after it starts).
 * @example { "monitor_id": "m_01jd3k6w9z4q8r2t7v5x1y3b6c", "reason": "migration", "starts_at": "2026-11-23T01:00:00Z", "ends_at": "2026-11-23T03:00:00Z" }
 */
export const alertSilenceCreateSchema = z.strictObject({
  monitor_id: idSchema('monitor').nullable().default(null),
  reason: textString().trim().max(500).default(''),
  starts_at: instant,
  ends_at: instant,
  team_id: alertTeamIdInput,
}).superRefine(endsAfterStart);

/** `PATCH /v1/alert-silences/{id}`: `reason`, `starts_at`, `ends_at` (checked as they end up). */
export const alertSilencePatchSchema = z.strictObject({
  reason: textString().trim().max(500).optional(),
  starts_at: instant.optional(),
  ends_at: instant.optional(),
  team_id: alertTeamIdPatch,
}).superRefine(endsAfterStart);

/** A silence as returned; `status` is derived from the time of the request. */
export const alertSilenceSchema = z.object({
  id: idSchema('alert_silence'),
  user_id: z.string(),
  team_id: alertTeamIdOutput,
  monitor_id: z.string().nullable(),
  reason: z.string(),
  starts_at: z.iso.datetime(),
  ends_at: z.iso.datetime(),
  status: z.enum(['upcoming', 'active', 'expired']),
  created_at: z.iso.datetime(),
});
export const alertSilenceListSchema = z.object({ items: z.array(alertSilenceSchema) });
/** A silence as returned. */
export type AlertSilence = z.infer<typeof alertSilenceSchema>;
/** `GET /v1/alert-silences` query: `status` filters. */
export const alertSilenceQuerySchema = alertOwnerQuerySchema.extend({ status: z.enum(['upcoming', 'active', 'expired']).optional() });

export const ALERT_GROUP_BY = ['monitor_prefix', 'tag', 'type'] as const;

/**
 * `POST /v1/alert-groups`: alerts of monitors whose name starts with `group_value`
 * (`monitor_prefix`), that carry the tag (`tag`, lower-cased) or are of the monitor type (`type`)
 * are gathered for `wait_seconds` (0-3600) and sent as one notification.
 * @example { "name": "Edge", "group_by": "tag", "group_value": "edge", "wait_seconds": 60 }
 */
export const alertGroupCreateSchema = z.strictObject({
  name: alertNameSchema,
  group_by: z.enum(ALERT_GROUP_BY),
  group_value: textString().trim().min(1).max(200),
  wait_seconds: z.number().int().min(0).max(3600).default(60),
  team_id: alertTeamIdInput,
});
/** `PATCH /v1/alert-groups/{id}`: any create field; omitted = unchanged; `team_id` moves the group (docs/api/teams.md "Moving a resource"). */
export const alertGroupPatchSchema = z.strictObject({
  name: alertNameSchema.optional(),
  group_by: z.enum(ALERT_GROUP_BY).optional(),
  group_value: textString().trim().min(1).max(200).optional(),
  wait_seconds: z.number().int().min(0).max(3600).optional(),
  team_id: alertTeamIdPatch,
});
export const alertGroupSchema = z.object({
  id: idSchema('alert_group'),
  user_id: z.string(),
  team_id: alertTeamIdOutput,
  name: z.string(),
  group_by: z.enum(ALERT_GROUP_BY),
  group_value: z.string(),
  wait_seconds: z.number().int(),
  created_at: z.iso.datetime(),
});
export const alertGroupListSchema = z.object({ items: z.array(alertGroupSchema) });
/** An alert group as returned. */
export type AlertGroup = z.infer<typeof alertGroupSchema>;

export const MAINTENANCE_SCOPES = ['monitor', 'group', 'tag', 'all'] as const;
export const MAINTENANCE_RECURRENCES = ['none', 'daily', 'weekly', 'monthly'] as const;

const windowFields = {
  title: textString().trim().max(200).nullable(),
  scope_type: z.enum(MAINTENANCE_SCOPES),
  scope_ids: z.array(textString().trim().min(1).max(200)).max(100),
  starts_at: instant,
  ends_at: instant,
  recurrence: z.enum(MAINTENANCE_RECURRENCES),
  recurrence_until: instant.nullable(),
  advance_notice_minutes: z.number().int().min(0).max(10_080),
};

/** scope_ids non-empty unless scope all; recurrence_until >= starts_at; a window shorter than its period. */
function windowRule(v: Partial<{ [K in keyof typeof windowFields]: z.infer<(typeof windowFields)[K]> }>, ctx: z.RefinementCtx): void {
  endsAfterStart(v as { starts_at?: string; ends_at?: string }, ctx);
  if (v.scope_type && v.scope_type !== 'all' && v.scope_ids && v.scope_ids.length === 0) {
    ctx.addIssue({ code: 'custom', path: ['scope_ids'], message: 'must not be empty unless scope_type is all' });
  }
  if (v.recurrence_until && v.starts_at && v.recurrence && v.recurrence !== 'none' && Date.parse(v.recurrence_until) < Date.parse(v.starts_at)) {
    ctx.addIssue({ code: 'custom', path: ['recurrence_until'], message: 'must not be before starts_at' });
  }
  const period_h = { none: Infinity, daily: 24, weekly: 168, monthly: 28 * 24 }[v.recurrence ?? 'none'];
  if (v.starts_at && v.ends_at && Date.parse(v.ends_at) - Date.parse(v.starts_at) > period_h * 3600_000) {
    ctx.addIssue({ code: 'custom', path: ['ends_at'], message: `a ${v.recurrence} window must be shorter than its period` });
  }
}

/**
 * `POST /v1/maintenance-windows`: `scope_type`, `starts_at`, `ends_at` required; `scope_ids`
 * (monitor ids, monitor group ids or tags; [] and ignored for `all`), `title` (max 200),
 * `recurrence` (none, daily, weekly, monthly: repeats at the first window's local time of day in
 * the owner's time zone), `recurrence_until` (inclusive bound on an occurrence start; null when
 * recurrence is none), `advance_notice_minutes` (0-10080).
 * @example { "title": "Nightly deploy", "scope_type": "tag", "scope_ids": ["api"], "starts_at": "2026-11-23T02:00:00Z", "ends_at": "2026-11-23T02:30:00Z", "recurrence": "daily" }
 */
export const maintenanceWindowCreateSchema = z.strictObject({
  title: windowFields.title.default(null),
  scope_type: windowFields.scope_type,
  scope_ids: windowFields.scope_ids.default([]),
  starts_at: windowFields.starts_at,
  ends_at: windowFields.ends_at,
  recurrence: windowFields.recurrence.default('none'),
  recurrence_until: windowFields.recurrence_until.default(null),
  advance_notice_minutes: windowFields.advance_notice_minutes.default(0),
  team_id: alertTeamIdInput,
}).superRefine(windowRule);

/** `PATCH /v1/maintenance-windows/{id}`: any create field; the result is checked whole. */
export const maintenanceWindowPatchSchema = z.strictObject({
  title: windowFields.title.optional(),
  scope_type: windowFields.scope_type.optional(),
  scope_ids: windowFields.scope_ids.optional(),
  starts_at: windowFields.starts_at.optional(),
  ends_at: windowFields.ends_at.optional(),
  recurrence: windowFields.recurrence.optional(),
  recurrence_until: windowFields.recurrence_until.optional(),
  advance_notice_minutes: windowFields.advance_notice_minutes.optional(),
  team_id: alertTeamIdPatch,
});

/** Check a window as it ends up after a PATCH (the same rules as create). */
export const maintenanceWindowWholeSchema = z.object(windowFields).superRefine(windowRule);

export const maintenanceWindowSchema = z.object({
  id: idSchema('maintenance_window'),
  user_id: z.string(),
  team_id: alertTeamIdOutput,
  title: z.string().nullable(),
  scope_type: z.enum(MAINTENANCE_SCOPES),
  scope_ids: z.array(z.string()),
  starts_at: z.iso.datetime(),
  ends_at: z.iso.datetime(),
  recurrence: z.enum(MAINTENANCE_RECURRENCES),
  recurrence_until: z.iso.datetime().nullable(),
  advance_notice_minutes: z.number().int(),
  created_at: z.iso.datetime(),
});
export type MaintenanceWindow = z.infer<typeof maintenanceWindowSchema>;
export const maintenanceWindowListSchema = z.object({ items: z.array(maintenanceWindowSchema) });
