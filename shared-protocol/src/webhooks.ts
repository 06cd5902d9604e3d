import { createHmac, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { SUBSCRIBABLE_EVENTS, subscribableEventSchema } from './events.js';
import { idSchema } from './ids.js';
import { LIMITS } from './limits.js';
import { textString } from './parse.js';

/*
 * Webhook endpoints (docs/api/webhooks.md) and the Standard Webhooks signature scheme
 * (https://www.standardwebhooks.com/, docs/api/webhooks.md): the HTTP shapes of
 * /v1/webhook-endpoints and the signing rule receivers verify.
 */

/** Limits of webhook endpoints (ours). */
export const WEBHOOK_LIMITS = {
  /** Endpoints one account may have. */
  endpoints_per_account_max: 50,
  url_max_chars: 2048,
  description_max_chars: 500,
  /** Event names one endpoint may list. */
  events_max: SUBSCRIBABLE_EVENTS.length,
  /** How much of a receiver's response body the attempt log keeps, bytes. */
  response_log_max_bytes: 1024,
  /** After a rotation the previous secret keeps signing alongside the new one this long, seconds. */
  secret_overlap_s: 24 * 3600,
} as const;

/** Standard Webhooks header names (lower case, as HTTP/2 sends them). */
export const WEBHOOK_HEADERS = { id: 'webhook-id', timestamp: 'webhook-timestamp', signature: 'webhook-signature' } as const;

/** Prefix of a signing secret: `whsec_` + base64 of 32 random bytes (Standard Webhooks "Symmetric"). */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** A new signing secret: `whsec_` + base64 of 32 random bytes (256 bits). */
export function newWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(32).toString('base64');
}

/**
 * One Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 over `${id}.${timestamp}.${body}`
 * keyed with the base64-decoded part of `secret` after `whsec_`.
 * @param id        the `webhook-id` header (the event id, the same on every retry)
 * @param timestamp the `webhook-timestamp` header: integer seconds since the epoch of this attempt
 * @param body      the exact request body bytes as sent
 * @example webhookSignature('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')
 *          // 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE='
 */
export function webhookSignature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The `webhook-signature` header value: one `v1,…` signature per live secret, space-separated. */
export function webhookSignatureHeader(secrets: string[], id: string, timestamp: number, body: string): string {
  return secrets.map((s) => webhookSignature(s, id, timestamp, body)).join(' ');
}

/** An http(s) URL without credentials (they would be logged and shown), at most 2048 characters. */
const endpointUrlSchema = textString().trim().max(WEBHOOK_LIMITS.url_max_chars).pipe(z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }))
  .refine((u) => { try { const p = new URL(u); return p.username === '' && p.password === ''; } catch { return false; } }, { message: 'must not contain a user name or password' });

const eventsSchema = z.array(subscribableEventSchema).min(1).max(WEBHOOK_LIMITS.events_max)
  .transform((list) => [...new Set(list)]);

const descriptionSchema = textString().trim().max(WEBHOOK_LIMITS.description_max_chars);

/**
 * `POST /v1/webhook-endpoints` (docs/api/webhooks.md): `url` and `events[]` required, `description` optional.
 * `events` are names of the catalog (shared-protocol events.ts) or `*` for all.
 * @example { "url": "https://hooks.example.com/vantage", "events": ["monitor.down", "monitor.up"], "description": "on-call bridge" }
 */
export const webhookEndpointCreateSchema = z.strictObject({
  url: endpointUrlSchema,
  events: eventsSchema,
  description: descriptionSchema.optional(),
  /** The team the endpoint belongs to (docs/api/teams.md; the caller must be able to write there); omitted: the caller's own. It then receives the team's events, not the caller's. */
  team_id: idSchema('team').optional(),
});
export type WebhookEndpointCreate = z.infer<typeof webhookEndpointCreateSchema>;

/**
 * `PATCH /v1/webhook-endpoints/{id}`: any of `url`, `events`, `description` (null clears),
 * `enabled`; omitted = unchanged. Enabling an endpoint clears its failure state.
 * @example { "enabled": true }
 */
export const webhookEndpointPatchSchema = z.strictObject({
  url: endpointUrlSchema.optional(),
  events: eventsSchema.optional(),
  description: descriptionSchema.nullable().optional(),
  enabled: z.boolean().optional(),
  /** Move it into this team (member or above there too), or with null to its creator's own endpoints (the creator only); docs/api/teams.md "Moving a resource". */
  team_id: idSchema('team').nullable().optional(),
});
export type WebhookEndpointPatch = z.infer<typeof webhookEndpointPatchSchema>;

/**
 * A webhook endpoint. The secret is never shown again after creation or rotation.
 * `disabled_reason` is `failing` when Vantage disabled it after failing continuously,
 * `user` when its owner did, null while enabled. `failing_since` is the first failed attempt
 * after the last success (null while healthy).
 */
export const webhookEndpointSchema = z.object({
  id: idSchema('webhook_endpoint'),
  /** The team it belongs to (it receives that team's events), or null: its creator's own (docs/api/teams.md). */
  team_id: z.string().nullable(),
  /** Its creator's account id: the owner while `team_id` is null, and the only one who may move it back out of a team (docs/api/teams.md "Moving a resource"). */
  user_id: z.string(),
  url: z.string(),
  description: z.string().nullable(),
  events: z.array(z.string()),
  enabled: z.boolean(),
  disabled_reason: z.enum(['failing', 'user']).nullable(),
  failing_since: z.iso.datetime().nullable(),
  /** While a rotated-out secret still signs (24 h after rotation): when it stops. */
  previous_secret_expires_at: z.iso.datetime().nullable(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type WebhookEndpoint = z.infer<typeof webhookEndpointSchema>;

/** Create response `data` (docs/api/webhooks.md): `{endpoint, secret}`, the `whsec_` secret returned once. */
export const webhookEndpointCreatedSchema = z.object({ endpoint: webhookEndpointSchema, secret: z.string() });

/** Rotate response: the new secret (returned once) and when the previous one stops signing. */
export const webhookSecretRotatedSchema = z.object({
  endpoint: webhookEndpointSchema,
  secret: z.string(),
  previous_secret_expires_at: z.iso.datetime(),
});

/** `{items[], total, page, page_size, has_more}` (docs/api/conventions.md list variant). */
export const webhookEndpointListSchema = z.object({
  items: z.array(webhookEndpointSchema),
  total: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
  has_more: z.boolean(),
});

/** Page query of endpoint and delivery lists (docs/api/conventions.md: page >= 1, page_size 1-200). */
export const webhookPageQuerySchema = z.object({
  page: z.coerce.number().int().min(1).default(1),
  page_size: z.coerce.number().int().min(1).max(LIMITS.page_size_max).default(LIMITS.page_size_default),
});

/** `GET /v1/webhook-endpoints` query: paging, and `team_id` (only that team's endpoints; absent: every endpoint the caller can read). */
export const webhookEndpointListQuerySchema = webhookPageQuerySchema.extend({
  team_id: idSchema('team').optional(),
});

/** Delivery states: `pending` (waiting for its next attempt), `delivering` (an attempt is under way), `succeeded`, `failed` (retries exhausted or not retriable). */
export const DELIVERY_STATUSES = ['pending', 'delivering', 'succeeded', 'failed'] as const;

/** `GET /v1/webhook-endpoints/{id}/deliveries` query: paging plus optional `status` and `event_type` filters. */
export const webhookDeliveryQuerySchema = webhookPageQuerySchema.extend({
  status: z.enum(DELIVERY_STATUSES).optional(),
  event_type: z.string().max(64).optional(),
});

/**
 * One attempt of a delivery (the attempt log): when, the receiver's HTTP status, the latency,
 * the first 1 KB of its response body or the error. `outcome` `interrupted` means the instance
 * sending it stopped mid-attempt (the delivery was retried).
 */
export const deliveryAttemptSchema = z.object({
  attempt: z.number().int().min(1),
  started_at: z.iso.datetime(),
  status_code: z.number().int().nullable(),
  latency_ms: z.number().int().nullable(),
  response_body: z.string().nullable(),
  error: z.string().nullable(),
  outcome: z.enum(['succeeded', 'failed', 'interrupted']),
});
export type DeliveryAttempt = z.infer<typeof deliveryAttemptSchema>;

/** A delivery of one event to one endpoint, with its attempts (newest last). `event_id` is the `webhook-id`. */
export const webhookDeliverySchema = z.object({
  id: idSchema('delivery'),
  endpoint_id: idSchema('webhook_endpoint'),
  event_id: z.string(),
  event_type: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  attempt_count: z.number().int().min(0),
  next_attempt_at: z.iso.datetime().nullable(),
  created_at: z.iso.datetime(),
  finished_at: z.iso.datetime().nullable(),
  last_error: z.string().nullable(),
  attempts: z.array(deliveryAttemptSchema),
});
export type WebhookDelivery = z.infer<typeof webhookDeliverySchema>;

export const webhookDeliveryListSchema = z.object({
  items: z.array(webhookDeliverySchema),
  total: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
  has_more: z.boolean(),
});
/** A page of deliveries. */
export type WebhookDeliveryList = z.infer<typeof webhookDeliveryListSchema>;
/** A page of webhook endpoints. */
export type WebhookEndpointList = z.infer<typeof webhookEndpointListSchema>;
