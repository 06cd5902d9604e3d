import { z } from 'zod';
import { idSchema } from './ids.js';
import { textString } from './parse.js';
import { pageOf, pageQuerySchema } from './envelope.js';

/*
 * Status page wire shapes (docs/api/status-pages.md). A status page publishes the state and the
 * daily uptime of chosen monitors and monitor groups (its components) at `/status/{slug}` and,
 * optionally, on a custom domain. Every request string is a textString (NUL refused).
 */

/** Status page limits (ours, docs/api/status-pages.md "Limits"). */
export const STATUS_PAGE_LIMITS = {
  slug_max_chars: 63,
  title_max_chars: 200,
  description_max_chars: 2000,
  components_max: 100,
  section_max_chars: 100,
  history_days_min: 1,
  history_days_max: 365,
  history_days_default: 90,
  password_min_chars: 8,
  password_max_chars: 200,
} as const;

/** Colour schemes of a page: `system` follows the visitor's preference (prefers-color-scheme). */
export const STATUS_PAGE_THEMES = ['system', 'light', 'dark'] as const;

/** A slug: lower-case letters, digits and inner hyphens, 1-63 characters (a DNS label's rule, RFC 1035 section 2.3.1). */
export const STATUS_PAGE_SLUG = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * Why `host` is not a custom domain a page can be served on, or null when it is: a fully
 * qualified host name of at least two labels, each 1-63 letters, digits or inner hyphens, 253
 * characters at most (RFC 1123 section 2.1), not an IP address, written in lower case without a
 * trailing dot (internationalised names in their `xn--` form, RFC 5891).
 * @example hostNameFault('status.example.com') // null
 * @example hostNameFault('localhost') // 'must have at least two labels (status.example.com)'
 */
export function hostNameFault(host: string): string | null {
  if (host.length === 0 || host.length > 253) return 'must be 1-253 characters';
  if (host !== host.toLowerCase()) return 'must be lower case';
  if (host.endsWith('.')) return 'must not end with a dot';
  const labels = host.split('.');
  if (labels.length < 2) return 'must have at least two labels (status.example.com)';
  if (labels.some((l) => !/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(l))) return 'each label must be 1-63 letters, digits or inner hyphens';
  if (/^[0-9]+$/.test(labels[labels.length - 1]!)) return 'must be a host name, not an IP address';
  return null;
}

/**
 * One component of a page: a monitor (`monitor_id`) or a monitor group (`group_id`, its monitors
 * together), exactly one of them, owned like the page; shown as `display_name` (default: the
 * monitor's or group's name) under `section` (empty: no heading), in the order given.
 * @example { "monitor_id": "m_01jd3k6w9z4q8r2t7v5x1y3b6c", "display_name": "API", "section": "Core" }
 */
export const statusPageComponentInputSchema = z.strictObject({
  monitor_id: z.string().min(1).max(64).optional(),
  group_id: z.string().min(1).max(64).optional(),
  display_name: textString().trim().min(1).max(STATUS_PAGE_LIMITS.title_max_chars).optional(),
  section: textString().trim().max(STATUS_PAGE_LIMITS.section_max_chars).default(''),
}).refine((c) => (c.monitor_id === undefined) !== (c.group_id === undefined), { message: 'give exactly one of monitor_id and group_id' });
export type StatusPageComponentInput = z.infer<typeof statusPageComponentInputSchema>;

const pageFields = {
  slug: z.string().regex(STATUS_PAGE_SLUG, 'must be 1-63 lower-case letters, digits or inner hyphens'),
  title: textString().trim().min(1).max(STATUS_PAGE_LIMITS.title_max_chars),
  description: textString().trim().max(STATUS_PAGE_LIMITS.description_max_chars),
  // Checked by the route (hostNameFault), so that a bad one is STATUS_PAGE_DOMAIN_INVALID.
  custom_domain: textString().max(300).nullable(),
  components: z.array(statusPageComponentInputSchema).max(STATUS_PAGE_LIMITS.components_max),
  theme: z.enum(STATUS_PAGE_THEMES),
  logo_url: z.url({ protocol: /^https?$/ }).max(2048).nullable(),
  is_public: z.boolean(),
  password: textString().min(STATUS_PAGE_LIMITS.password_min_chars).max(STATUS_PAGE_LIMITS.password_max_chars).nullable(),
  history_days: z.number().int().min(STATUS_PAGE_LIMITS.history_days_min).max(STATUS_PAGE_LIMITS.history_days_max),
};

const passwordRule = (p: { is_public?: boolean; password?: string | null }, ctx: z.RefinementCtx) => {
  if (p.is_public === false && p.password === null) ctx.addIssue({ code: 'custom', path: ['password'], message: 'a page that is not public needs a password' });
};

/**
 * `POST /v1/status-pages` body. `slug` (required, unique) names the page's address
 * `/status/{slug}`; `team_id` makes it a team's. `is_public` false (with `password`, stored
 * hashed) asks visitors for the password. `history_days` (default 90) is how many days of
 * uptime the bars show.
 * @example { "slug": "acme", "title": "Acme status", "components": [{ "monitor_id": "m_01jd3k6w9z4q8r2t7v5x1y3b6c", "display_name": "API" }] }
 */
export const statusPageCreateSchema = z.strictObject({
  team_id: z.string().min(1).max(64).nullable().optional(),
  slug: pageFields.slug,
  title: pageFields.title,
  description: pageFields.description.default(''),
  custom_domain: pageFields.custom_domain.default(null),
  components: pageFields.components.default([]),
  theme: pageFields.theme.default('system'),
  logo_url: pageFields.logo_url.default(null),
  is_public: pageFields.is_public.default(true),
  password: pageFields.password.default(null),
  history_days: pageFields.history_days.default(STATUS_PAGE_LIMITS.history_days_default),
}).superRefine(passwordRule);
export type StatusPageCreate = z.infer<typeof statusPageCreateSchema>;

/** `PATCH /v1/status-pages/{id}` body: any field of the create body but `team_id`; `components`, when given, replaces all. */
export const statusPagePatchSchema = z.strictObject({
  slug: pageFields.slug.optional(),
  title: pageFields.title.optional(),
  description: pageFields.description.optional(),
  custom_domain: pageFields.custom_domain.optional(),
  components: pageFields.components.optional(),
  theme: pageFields.theme.optional(),
  logo_url: pageFields.logo_url.optional(),
  is_public: pageFields.is_public.optional(),
  password: pageFields.password.optional(),
  history_days: pageFields.history_days.optional(),
});
export type StatusPagePatch = z.infer<typeof statusPagePatchSchema>;

/** A component as returned: its id, what it shows and where. */
export const statusPageComponentSchema = z.object({
  id: idSchema('status_page_component'),
  monitor_id: z.string().nullable(),
  group_id: z.string().nullable(),
  display_name: z.string(),
  section: z.string(),
  position: z.number().int(),
});
export type StatusPageComponent = z.infer<typeof statusPageComponentSchema>;

/** A status page as returned (the password itself never is: `password_protected` says whether one is set). */
export const statusPageSchema = z.object({
  id: idSchema('status_page'),
  team_id: z.string().nullable(),
  slug: z.string(),
  title: z.string(),
  description: z.string(),
  custom_domain: z.string().nullable(),
  components: z.array(statusPageComponentSchema),
  theme: z.enum(STATUS_PAGE_THEMES),
  logo_url: z.string().nullable(),
  is_public: z.boolean(),
  password_protected: z.boolean(),
  history_days: z.number().int(),
  /** The page's address on this deployment. */
  page_url: z.string(),
  created_by: z.string(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type StatusPage = z.infer<typeof statusPageSchema>;

/**
 * `POST /v1/status-pages/{id}/domain-check`: the DNS check of the custom domain. `ok` when
 * `custom_domain` has a CNAME record naming `expected_target` (this deployment's host name).
 */
export const statusPageDomainCheckSchema = z.object({
  custom_domain: z.string(),
  expected_target: z.string(),
  cname: z.array(z.string()),
  ok: z.boolean(),
  message: z.string(),
});
export type StatusPageDomainCheck = z.infer<typeof statusPageDomainCheckSchema>;

/**
 * `POST /v1/public/status-pages/{slug}/subscribers` body (public): exactly one of `email` (an
 * opt-in e-mail is sent; notices follow once its link is confirmed) or `webhook_url` (an http(s)
 * URL; notices are signed per Standard Webhooks with the secret returned once).
 * @example { "email": "ops@example.com" }
 */
export const statusPageSubscribeSchema = z.strictObject({
  email: z.email().max(254).optional(),
  webhook_url: textString().trim().max(2048).pipe(z.url({ protocol: /^https?$/, error: 'must be an http or https URL' })).optional(),
}).refine((b) => (b.email === undefined) !== (b.webhook_url === undefined), { message: 'give exactly one of email and webhook_url' });
export type StatusPageSubscribe = z.infer<typeof statusPageSubscribeSchema>;

/**
 * The answer to a subscription. E-mail: `state` pending, nothing else (the same answer whether or
 * not the address was subscribed before: it reveals nothing). Webhook: `state` confirmed, `id`,
 * `secret` (whsec_…, shown only here) and `unsubscribe_url` (POST it to stop).
 */
export const statusPageSubscriptionSchema = z.object({
  kind: z.enum(['email', 'webhook']),
  state: z.enum(['pending', 'confirmed']),
  id: z.string().optional(),
  secret: z.string().optional(),
  unsubscribe_url: z.string().optional(),
  message: z.string(),
});
export type StatusPageSubscription = z.infer<typeof statusPageSubscriptionSchema>;

/** States of a status page subscriber: pending (e-mail not confirmed yet), confirmed, unsubscribed. */
export const STATUS_PAGE_SUBSCRIBER_STATES = ['pending', 'confirmed', 'unsubscribed'] as const;

/**
 * A subscriber of a status page as the page's owner sees it (`GET /v1/status-pages/{id}/subscribers`,
 * docs/api/status-pages.md "Subscribers"): `address` is the e-mail address (lower case) or the
 * webhook URL; a webhook's secret is never shown again. Times are ISO 8601 (UTC).
 */
export const statusPageSubscriberSchema = z.object({
  id: z.string(),
  kind: z.enum(['email', 'webhook']),
  address: z.string(),
  state: z.enum(STATUS_PAGE_SUBSCRIBER_STATES),
  created_at: z.string(),
  confirmed_at: z.string().nullable(),
});
export type StatusPageSubscriber = z.infer<typeof statusPageSubscriberSchema>;

/** Query of the owner's subscriber list: `state` filters; `page` / `page_size` as docs/api/conventions.md. */
export const statusPageSubscriberQuerySchema = pageQuerySchema.extend({ state: z.enum(STATUS_PAGE_SUBSCRIBER_STATES).optional() });

/** A page of a status page's subscribers, newest first: `{items[], total, page, page_size, has_more}`. */
export const statusPageSubscriberListSchema = pageOf(statusPageSubscriberSchema);
export type StatusPageSubscriberList = z.infer<typeof statusPageSubscriberListSchema>;

/**
 * The payload of a subscriber webhook (docs/api/status-pages.md "Subscribers"): `type`
 * `incident.created` or `incident.updated` (`data.incident`: the incident as the public page shows
 * it), or `maintenance.scheduled` (`data.maintenance`: {title, starts_at, ends_at}); `data.page`.
 */
export interface StatusPageWebhookPayload {
  type: 'incident.created' | 'incident.updated' | 'maintenance.scheduled';
  timestamp: string;
  data: { page: { slug: string; title: string; url: string }; incident?: unknown; maintenance?: unknown };
}
