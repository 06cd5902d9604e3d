import { z } from 'zod';
import { idSchema } from '../ids.js';
import { textString } from '../parse.js';
import { monitorTeamIdInput, monitorTeamIdOutput, monitorTeamIdPatch, monitorTeamIdQuery } from './owner.js';
import { MONITOR_LIMITS, monitorStateSchema, monitorStatusSchema, monitorTypeSchema } from './types.js';

/*
 * HTTP shapes of /v1/monitors (docs/api/monitors.md). `target`, `config` and
 * `interval_s` are checked against the monitor's type by the service (MONITOR_INVALID_TARGET,
 * VALIDATION_FAILED with `config.` paths, MONITOR_INVALID_INTERVAL), so these schemas only
 * bound their shape.
 */

/** A monitor or group name: trimmed, 1-200 characters (docs/api/conventions.md). */
export const monitorNameSchema = textString().trim().min(1, 'must not be empty').max(MONITOR_LIMITS.name_max_chars);

/** Tags: lower-cased, trimmed, de-duplicated and sorted by the service; at most 20 of 1-64 characters. */
export const monitorTagsSchema = z.array(textString().trim().toLowerCase().min(1, 'must not be empty').max(MONITOR_LIMITS.tag_max_chars))
  .max(MONITOR_LIMITS.tags_max)
  .transform((tags) => [...new Set(tags)].sort());

const targetSchema = textString().trim().max(MONITOR_LIMITS.target_max_chars);
const configSchema = z.record(z.string(), z.unknown()).nullable()
  .describe('Type-specific config (MONITOR_CONFIGS in shared-protocol; docs/api/monitors.md "Config per type"): checked for the type, unknown fields refused, defaults filled');
const intervalSchema = z.number().int();
const nodeCountSchema = z.number().int().min(0).max(MONITOR_LIMITS.node_count_max);
const groupIdSchema = z.string().max(64).nullable();

/**
 * `POST /v1/monitors` (create request). `target` is required except for heartbeat
 * (ignored there); `config` is validated for `type` with defaults filled; `interval_s` 60, 300
 * or 1800 (default 300; browser at least 300; derived from the schedule for heartbeat);
 * `node_count` 0 or absent = the plan's default; `group_id` null or absent = ungrouped (a group
 * of the monitor's owner); `team_id` the team that owns it (absent or null: personal).
 * @example { "name": "Checkout API", "type": "https", "target": "https://shop.example.com/api/health", "interval_s": 60, "node_count": 3, "tags": ["prod", "shop"], "config": { "expected_status": "200" } }
 */
export const monitorCreateSchema = z.strictObject({
  name: monitorNameSchema,
  type: monitorTypeSchema,
  target: targetSchema.optional(),
  config: configSchema.optional(),
  interval_s: intervalSchema.optional(),
  node_count: nodeCountSchema.optional(),
  group_id: groupIdSchema.optional(),
  tags: monitorTagsSchema.optional(),
  team_id: monitorTeamIdInput,
});
export type MonitorCreate = z.infer<typeof monitorCreateSchema>;

/**
 * `POST /v1/certificates/{id}/monitor` (docs/api/certificates.md "A monitor of a certificate"):
 * an `ssl_expiry` monitor of an issued certificate in one call, owned like the certificate. All
 * optional: `host` (a DNS name the certificate covers, Unicode or ASCII; default its first SAN
 * that is not a wildcard), `name` (default `Certificate <host>`), `interval_s`, `node_count`,
 * `group_id`, `tags` as on create, and `config`: the ssl_expiry config (`port` default 443,
 * `min_days_remaining`, `warn_days`, `critical_days`, `timeout_ms`, `ip_version`).
 * @example { "host": "www.example.com", "config": { "warn_days": 30, "critical_days": 7, "min_days_remaining": 7 } }
 */
export const certificateMonitorRequestSchema = z.strictObject({
  host: textString().trim().min(1).max(253).optional(),
  name: monitorNameSchema.optional(),
  interval_s: intervalSchema.optional(),
  node_count: nodeCountSchema.optional(),
  group_id: groupIdSchema.optional(),
  tags: monitorTagsSchema.optional(),
  config: configSchema.optional(),
});
export type CertificateMonitorRequest = z.infer<typeof certificateMonitorRequestSchema>;

/**
 * `PATCH /v1/monitors/{id}`: `name` and `interval_s` and also `target`, `config`
 * (replaces the whole config; omitted fields take their defaults), `tags`, `group_id` (null
 * ungroups) and `node_count`, each checked as on create; `team_id` moves it into a team (or out
 * of its team with null: write access on both sides). Omitted = unchanged; the type cannot
 * change.
 * @example { "name": "Checkout API (EU)", "interval_s": 300, "tags": ["prod"] }
 */
export const monitorPatchSchema = monitorCreateSchema.omit({ type: true }).partial().extend({ team_id: monitorTeamIdPatch });
export type MonitorPatch = z.infer<typeof monitorPatchSchema>;

/**
 * Where a monitor stands in placement (docs/api/monitors.md "Placement"): `placed` (on
 * `node_count` nodes), `short` (on fewer; `message` says why, in words), `control_plane`
 * (heartbeat and domain_expiry run on the control plane, on no node). `secret_headers`: the names
 * of its request headers whose values are secrets; a monitor with any runs only on its owner's
 * own nodes and on platform nodes (docs/api/monitors.md "Secrets in headers").
 * @example { "status": "short", "secret_headers": ["Authorization"], "message": "placed on 1 of 3 nodes: its headers Authorization carry secrets, which go only to your own nodes and to platform nodes, and no more of those online can run it; placement keeps trying" }
 */
export const monitorPlacementSchema = z.object({
  status: z.enum(['placed', 'short', 'control_plane']),
  secret_headers: z.array(z.string()),
  message: z.string().nullable(),
});
export type MonitorPlacement = z.infer<typeof monitorPlacementSchema>;

/**
 * The monitor record every read returns. `state` is what the checks say (part 3; `pending`
 * until the first verdict), `node_ids` the nodes it is placed on, `placement` how that stands
 * ({@link monitorPlacementSchema}), `private_target` whether its
 * target is private (it then runs only on the owner's nodes that allow private targets).
 * `heartbeat` (heartbeat monitors only) shows the check-in token's preview; the token and URL
 * themselves appear only when created or rotated. `last_check_at` and `uptime_24h` (a fraction
 * 0..1) are null until results exist.
 */
export const monitorSchema = z.object({
  id: idSchema('monitor'),
  user_id: z.string(),
  team_id: monitorTeamIdOutput,
  name: z.string(),
  type: monitorTypeSchema,
  target: z.string().nullable(),
  config: z.record(z.string(), z.unknown()),
  interval_s: z.number().int(),
  node_count: z.number().int(),
  group_id: z.string().nullable(),
  tags: z.array(z.string()),
  status: monitorStatusSchema,
  state: monitorStateSchema,
  private_target: z.boolean(),
  node_ids: z.array(z.string()),
  placement: monitorPlacementSchema,
  heartbeat: z.object({
    token_preview: z.string(),
    /** Only in the create (and import) response: the check-in token, shown once. */
    token: z.string().optional(),
    /** Only in the create (and import) response: the full check-in URL. */
    url: z.string().optional(),
  }).nullable(),
  last_check_at: z.iso.datetime().nullable(),
  uptime_24h: z.number().min(0).max(1).nullable(),
  state_changed_at: z.iso.datetime(),
  /** True while a flap noise rule of its owner sees it flapping (docs/api/alerting.md "Noise rules"); false without such a rule. */
  flapping: z.boolean(),
  /** When the flap began (its first counted state change) while `flapping`; else null. */
  flapping_since: z.iso.datetime().nullable(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type Monitor = z.infer<typeof monitorSchema>;

/**
 * `GET /v1/monitors` query (docs/api/monitors.md): `page` >= 1 (default 1), `limit` 1-100 (default
 * 20); filters `status`, `state`, `type`, `group_id` (`none` = ungrouped), `tag` (monitors
 * carrying it), `q` (case-insensitive substring of the name), `team_id` (only that team's; absent:
 * your own and every team's you are in).
 */
export const monitorListQuerySchema = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(MONITOR_LIMITS.list_limit_max).default(MONITOR_LIMITS.list_limit_default),
  status: monitorStatusSchema.optional(),
  state: monitorStateSchema.optional(),
  type: monitorTypeSchema.optional(),
  group_id: z.string().min(1).max(64).optional(),
  tag: textString().trim().toLowerCase().min(1).max(MONITOR_LIMITS.tag_max_chars).optional(),
  q: textString().trim().min(1).max(MONITOR_LIMITS.name_max_chars).optional(),
  team_id: monitorTeamIdQuery,
});
export type MonitorListQuery = z.infer<typeof monitorListQuerySchema>;

/** `{items[], total, page, limit}` (docs/api/conventions.md monitor list variant), newest first. */
export const monitorListSchema = z.object({
  items: z.array(monitorSchema),
  total: z.number().int(),
  page: z.number().int(),
  limit: z.number().int(),
});

/** `POST /v1/monitors/{id}/pause` and `/resume` (docs/api/monitors.md): `{id, status}`, plus the resulting `state`. */
export const monitorStatusChangeSchema = z.object({ id: idSchema('monitor'), status: monitorStatusSchema, state: monitorStateSchema });

/**
 * `POST /v1/monitors/{id}/heartbeat/rotate`: the new check-in `token` (the old one is
 * invalid at once) and the full check-in `url`.
 * @example { "token": "hb_9k3v…", "url": "https://vantage.example.com/v1/heartbeat/hb_9k3v…" }
 */
export const heartbeatRotatedSchema = z.object({ token: z.string(), url: z.string() });
