import { z } from 'zod';
import { idSchema } from '../ids.js';
import { monitorTagsSchema } from '../monitors/requests.js';
import { alertNameSchema } from './channels.js';
import { alertOwnerQuerySchema, alertTeamIdInput, alertTeamIdOutput, alertTeamIdPatch } from './owner.js';

/*
 * Alert noise rules (docs/api/alerting.md "Noise rules"): what the alert engine holds back for a
 * set of the owner's monitors. `flap`: a monitor whose state changed `flap_changes` times within
 * `flap_window_s` is flapping until it has not changed for `flap_window_s`, and pages once for
 * the whole flap; `duplicate`: of several monitors with the same target (host, or the whole
 * target) failing together, only the first pages; `min_duration`: nothing pages before the
 * monitor has been failing for `min_down_s`.
 */

export const ALERT_NOISE_KINDS = ['flap', 'duplicate', 'min_duration'] as const;
export type AlertNoiseKind = (typeof ALERT_NOISE_KINDS)[number];
/** How `duplicate` compares targets: `host` (the host of a URL or host:port, lower-cased) or `target` (the whole target, trimmed). */
export const ALERT_NOISE_MATCHES = ['host', 'target'] as const;

/** Bounds of the kind-specific fields (docs/api/alerting.md "Noise rules"). */
export const ALERT_NOISE_LIMITS = {
  flap_changes_min: 2, flap_changes_max: 100,
  flap_window_s_min: 60, flap_window_s_max: 21_600,
  min_down_s_min: 1, min_down_s_max: 86_400,
  monitor_ids_max: 100,
} as const;

const L = ALERT_NOISE_LIMITS;
const fields = {
  name: alertNameSchema,
  enabled: z.boolean(),
  monitor_ids: z.array(idSchema('monitor')).max(L.monitor_ids_max).transform((ids) => [...new Set(ids)]),
  tags: monitorTagsSchema,
  flap_changes: z.number().int().min(L.flap_changes_min).max(L.flap_changes_max).nullable(),
  flap_window_s: z.number().int().min(L.flap_window_s_min).max(L.flap_window_s_max).nullable(),
  duplicate_match: z.enum(ALERT_NOISE_MATCHES).nullable(),
  min_down_s: z.number().int().min(L.min_down_s_min).max(L.min_down_s_max).nullable(),
};

/** The kind-specific fields each kind takes (all required but `duplicate_match`, default `host`); the others must be null or absent. */
export const ALERT_NOISE_FIELDS: Record<AlertNoiseKind, Array<'flap_changes' | 'flap_window_s' | 'duplicate_match' | 'min_down_s'>> = {
  flap: ['flap_changes', 'flap_window_s'],
  duplicate: ['duplicate_match'],
  min_duration: ['min_down_s'],
};
const SPECIFIC = ['flap_changes', 'flap_window_s', 'duplicate_match', 'min_down_s'] as const;

/**
 * The kind rule of a noise rule as it ends up (create, or a PATCH merged over the stored rule):
 * the kind's fields set, the others null. Adds an issue per offending field.
 */
export function alertNoiseKindRule(v: { kind?: AlertNoiseKind } & Partial<Record<(typeof SPECIFIC)[number], unknown>>, ctx: z.RefinementCtx): void {
  if (!v.kind) return;
  const wanted = ALERT_NOISE_FIELDS[v.kind];
  for (const f of SPECIFIC) {
    const set = v[f] !== null && v[f] !== undefined;
    if (wanted.includes(f) && !set && f !== 'duplicate_match') ctx.addIssue({ code: 'custom', path: [f], message: `required for kind ${v.kind}` });
    if (!wanted.includes(f) && set) ctx.addIssue({ code: 'custom', path: [f], message: `only for kind ${ALERT_NOISE_KINDS.find((k) => ALERT_NOISE_FIELDS[k].includes(f))}` });
  }
}

/**
 * `POST /v1/alert-noise-rules`. Scope: `monitor_ids` (yours, or the team's) and `tags`; both
 * empty = every monitor of the rule's owner; otherwise a monitor in `monitor_ids` or carrying one
 * of `tags`. `duplicate_match` defaults to `host` for kind duplicate.
 * @example { "name": "Flapping edge", "kind": "flap", "flap_changes": 4, "flap_window_s": 900, "tags": ["edge"] }
 * @example { "name": "Wait 2 minutes", "kind": "min_duration", "min_down_s": 120 }
 */
export const alertNoiseRuleCreateSchema = z.strictObject({
  name: fields.name,
  kind: z.enum(ALERT_NOISE_KINDS),
  enabled: fields.enabled.default(true),
  monitor_ids: fields.monitor_ids.default([]),
  tags: fields.tags.default([]),
  flap_changes: fields.flap_changes.default(null),
  flap_window_s: fields.flap_window_s.default(null),
  duplicate_match: fields.duplicate_match.default(null),
  min_down_s: fields.min_down_s.default(null),
  team_id: alertTeamIdInput,
}).superRefine(alertNoiseKindRule);

/** `PATCH /v1/alert-noise-rules/{id}`: any field but `kind` (`team_id` moves it); omitted = unchanged; checked whole as the rule ends up. */
export const alertNoiseRulePatchSchema = z.strictObject({
  name: fields.name.optional(),
  enabled: fields.enabled.optional(),
  monitor_ids: fields.monitor_ids.optional(),
  tags: fields.tags.optional(),
  flap_changes: fields.flap_changes.optional(),
  flap_window_s: fields.flap_window_s.optional(),
  duplicate_match: fields.duplicate_match.optional(),
  min_down_s: fields.min_down_s.optional(),
  team_id: alertTeamIdPatch,
});

/** A noise rule as returned. */
export const alertNoiseRuleSchema = z.object({
  id: idSchema('alert_noise_rule'),
  user_id: z.string(),
  team_id: alertTeamIdOutput,
  name: z.string(),
  kind: z.enum(ALERT_NOISE_KINDS),
  enabled: z.boolean(),
  monitor_ids: z.array(z.string()),
  tags: z.array(z.string()),
  flap_changes: z.number().int().nullable(),
  flap_window_s: z.number().int().nullable(),
  duplicate_match: z.enum(ALERT_NOISE_MATCHES).nullable(),
  min_down_s: z.number().int().nullable(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type AlertNoiseRule = z.infer<typeof alertNoiseRuleSchema>;
export const alertNoiseRuleListSchema = z.object({ items: z.array(alertNoiseRuleSchema) });
/** `GET /v1/alert-noise-rules` query: `team_id` and `kind` filter. */
export const alertNoiseRuleQuerySchema = alertOwnerQuerySchema.extend({ kind: z.enum(ALERT_NOISE_KINDS).optional() });
