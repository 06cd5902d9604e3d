import { z } from 'zod';
import { pageQuerySchema } from '../envelope.js';
import { idSchema } from '../ids.js';
import { timeParamSchema } from '../monitors/history.js';
import { alertOwnerQuerySchema, alertTeamIdOutput } from './owner.js';

/**
 * Alert event statuses (docs/api/alerting.md "Alert events"): `firing` from the moment the
 * monitor failed `recovery_n` consecutive rounds; `acknowledged` after `POST …/ack` (escalation
 * stops); `resolved` when the monitor is up again or after `POST …/resolve`. Moves: firing →
 * acknowledged → resolved, firing → resolved; resolved is final.
 */
export const ALERT_EVENT_STATUSES = ['firing', 'acknowledged', 'resolved'] as const;
export type AlertEventStatus = (typeof ALERT_EVENT_STATUSES)[number];

/**
 * Why an event was recorded without paging anyone when it fired; `flapping` and `duplicate` come
 * from noise rules (docs/api/alerting.md "Noise rules").
 */
export const ALERT_SUPPRESSIONS = ['silence', 'mute', 'maintenance', 'late', 'flapping', 'duplicate'] as const;

/**
 * One notification of an event: `level` 0 is the first notification, k the escalation level k;
 * `kind` firing (the page), acknowledged or resolved (told to the channels already paged);
 * `suppressed` names the silence, mute window or maintenance that held it back (then no delivery),
 * or `withdrawn`: a page gathered by an alert group whose event was acknowledged or resolved before
 * the group's message went out. A gathered page has no `delivery_id` until that message is queued.
 */
export const alertEventNotificationSchema = z.object({
  level: z.number().int(),
  channel_id: z.string(),
  kind: z.enum(['firing', 'acknowledged', 'resolved']),
  delivery_id: z.string().nullable(),
  suppressed: z.string().nullable(),
  created_at: z.iso.datetime(),
});

/**
 * An alert event (AlertEvent). `type`: down, or degraded for a policy that fires on degraded, or
 * no_data (no node reported two rounds in a row) for a policy that notifies on it.
 * Times are ISO 8601 UTC: `started_at` when the monitor began failing, `fired_at` when the
 * threshold was reached. `acknowledged_by`/`resolved_by` are user ids (resolved_by null when the
 * monitor recovered). `next_notification_at`/`next_level`: the next step of the escalation,
 * null when none is left. `metadata`: {reason, failing_nodes} of the change that fired it.
 */
export const alertEventRecordSchema = z.object({
  id: z.string(),
  user_id: z.string(),
  team_id: alertTeamIdOutput,
  monitor_id: z.string(),
  policy_id: z.string(),
  type: z.enum(['down', 'degraded', 'no_data']),
  status: z.enum(ALERT_EVENT_STATUSES),
  started_at: z.iso.datetime(),
  fired_at: z.iso.datetime(),
  acknowledged_at: z.iso.datetime().nullable(),
  acknowledged_by: z.string().nullable(),
  resolved_at: z.iso.datetime().nullable(),
  resolved_by: z.string().nullable(),
  suppressed: z.enum(ALERT_SUPPRESSIONS).nullable(),
  next_level: z.number().int().nullable(),
  next_notification_at: z.iso.datetime().nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  created_at: z.iso.datetime(),
});
export type AlertEventRecord = z.infer<typeof alertEventRecordSchema>;

/** One event with its notifications (`GET /v1/alert-events/{id}`). */
export const alertEventDetailSchema = alertEventRecordSchema.extend({ notifications: z.array(alertEventNotificationSchema) });

/**
 * `GET /v1/alert-events` query: `status`, `monitor_id`, `from`/`to` (bounds on started_at: ISO
 * 8601, `now` or relative like -7d), `page`, `page_size` (1-200). Newest first.
 */
export const alertEventListQuerySchema = pageQuerySchema.extend({
  team_id: alertOwnerQuerySchema.shape.team_id,
  status: z.enum(ALERT_EVENT_STATUSES).optional(),
  monitor_id: idSchema('monitor').optional(),
  from: timeParamSchema.optional(),
  to: timeParamSchema.optional(),
});

/** `{items[], total, page, page_size, has_more}` of alert events. */
export const alertEventListSchema = z.object({
  items: z.array(alertEventRecordSchema),
  total: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
  has_more: z.boolean(),
});
/** A page of alert events. */
export type AlertEventList = z.infer<typeof alertEventListSchema>;
