import { z } from 'zod';
import { idSchema } from '../ids.js';
import { textString } from '../parse.js';
import { ALERT_CHANNEL_TYPES } from './channel-configs.js';
import { alertEmailRecipientSchema } from './email-recipients.js';
import { alertTeamIdInput, alertTeamIdOutput, alertTeamIdPatch } from './owner.js';

/** A channel, policy, group or window name: 1-200 characters. */
export const alertNameSchema = textString().trim().min(1).max(200);

/**
 * `POST /v1/alert-channels`: `name`, `type` and the type's `config` (channel-configs.ts). A config
 * the type's schema refuses is 400 ALERT_CHANNEL_INVALID with the failing fields in `details`.
 * @example { "name": "Ops Slack", "type": "slack", "config": { "webhook_url": "https://hooks.slack.com/services/T000/B000/XXXX" } }
 */
export const alertChannelCreateSchema = z.strictObject({
  name: alertNameSchema,
  type: z.enum(ALERT_CHANNEL_TYPES),
  config: z.record(z.string(), z.unknown()).default({}),
  team_id: alertTeamIdInput,
});
export type AlertChannelCreate = z.infer<typeof alertChannelCreateSchema>;

/**
 * `PATCH /v1/alert-channels/{id}`: `name` and/or `config`. `config` is merged over the stored one
 * field by field (so a secret you do not resend is kept), then validated whole; a config change
 * sets `verified` back to false. The type cannot change.
 * @example { "config": { "webhook_url": "https://hooks.slack.com/services/T000/B000/YYYY" } }
 */
export const alertChannelPatchSchema = z.strictObject({
  name: alertNameSchema.optional(),
  config: z.record(z.string(), z.unknown()).optional(),
  team_id: alertTeamIdPatch,
});
export type AlertChannelPatch = z.infer<typeof alertChannelPatchSchema>;

/**
 * A channel as returned: secrets in `config` masked (`****` + last 4 characters). An `email`
 * channel also has `recipients[]`: each address of `config.to` with its state (email-recipients.ts);
 * only confirmed ones receive notifications.
 */
export const alertChannelSchema = z.object({
  id: idSchema('alert_channel'),
  user_id: z.string(),
  team_id: alertTeamIdOutput,
  name: z.string(),
  type: z.enum(ALERT_CHANNEL_TYPES),
  config: z.record(z.string(), z.unknown()),
  verified: z.boolean(),
  recipients: z.array(alertEmailRecipientSchema).optional(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type AlertChannel = z.infer<typeof alertChannelSchema>;

/**
 * `POST /v1/alert-channels` answer: the channel, and for a `webhook` channel created without
 * `config.secret` the `secret` generated for it (`whsec_` + base64 of 32 random bytes), shown
 * here only: reads show it masked, like any secret.
 */
export const alertChannelCreatedSchema = alertChannelSchema.extend({
  secret: z.string().optional().describe('the generated webhook signing secret: returned once, on create, when none was given'),
});
export type AlertChannelCreated = z.infer<typeof alertChannelCreatedSchema>;

/** `GET /v1/alert-channels`: `{items[]}`, oldest first. */
export const alertChannelListSchema = z.object({ items: z.array(alertChannelSchema) });

/**
 * `POST /v1/alert-channels/{id}/test`: the outcome of the test notification sent through the
 * delivery engine. `status` is `succeeded` or `failed` once the first attempt has ended within
 * the wait, else `pending` (it keeps being retried); `verified` is the channel's flag after it.
 */
export const alertChannelTestResultSchema = z.object({
  delivery_id: z.string(),
  status: z.enum(['pending', 'succeeded', 'failed']),
  attempts: z.number().int(),
  status_code: z.number().int().nullable(),
  error: z.string().nullable(),
  verified: z.boolean(),
});
export type AlertChannelTestResult = z.infer<typeof alertChannelTestResultSchema>;

/**
 * A notification as queued for a channel (the payload of an `alert.<type>` delivery): what every
 * channel sender formats for its service. `event_action` follows PagerDuty's Events API v2
 * (trigger, acknowledge, resolve); `dedup_key` ties the three together (one alert event);
 * `title` and `body` are already rendered from the policy's templates.
 */
export const alertNotificationSchema = z.object({
  kind: z.enum(['test', 'alert']),
  event_action: z.enum(['trigger', 'acknowledge', 'resolve']),
  dedup_key: z.string().min(1).max(255),
  title: z.string().max(1024),
  body: z.string().max(16_384),
  severity: z.enum(['critical', 'error', 'warning', 'info']),
  occurred_at: z.iso.datetime(),
  monitor: z.object({ id: z.string(), name: z.string(), type: z.string(), target: z.string() }).nullable(),
  event_id: z.string().nullable(),
  policy_id: z.string().nullable(),
  /**
   * Present when the policy's title or body template was not used (docs/api/alerting.md
   * "Templates"): which one and why (it no longer compiles, or a render bound stopped it); the
   * default template was rendered instead and the body ends with the same note.
   */
  template_fault: z.string().max(2048).optional(),
  /**
   * Present on a collapsed message (docs/api/alerting.md "Alert groups"): the alert group and
   * every monitor whose page it gathers (`monitor`, `event_id` and `policy_id` are then null).
   */
  group: z.object({
    id: z.string().nullable(),
    name: z.string(),
    monitors: z.array(z.object({
      id: z.string(), name: z.string(), type: z.string(), target: z.string(),
      state: z.enum(['down', 'degraded', 'no_data']), event_id: z.string(), started_at: z.iso.datetime(), reason: z.string().nullable(),
    })),
  }).optional(),
});
export type AlertNotification = z.infer<typeof alertNotificationSchema>;
