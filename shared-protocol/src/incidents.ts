import { z } from 'zod';
import { idSchema } from './ids.js';
import { textString } from './parse.js';

/*
 * Incident and postmortem wire shapes (docs/api/status-pages.md "Incidents"), and the public
 * view of a status page. The statuses and impacts are those of Atlassian Statuspage, which
 * visitors and tools know: investigating → identified → monitoring → resolved.
 */

/** Incident limits (ours). */
export const INCIDENT_LIMITS = {
  title_max_chars: 200,
  message_max_chars: 10_000,
  pages_max: 20,
  components_max: 100,
  postmortem_max_chars: 30_000,
} as const;

/** An incident's status; `resolved` closes it (sets `resolved_at`). */
export const INCIDENT_STATUSES = ['investigating', 'identified', 'monitoring', 'resolved'] as const;
export type IncidentStatus = (typeof INCIDENT_STATUSES)[number];

/** How much an incident hurts, as visitors read it. */
export const INCIDENT_IMPACTS = ['none', 'minor', 'major', 'critical'] as const;
export type IncidentImpact = (typeof INCIDENT_IMPACTS)[number];

/** A postmortem is shown on the pages once `published`. */
export const POSTMORTEM_STATUSES = ['draft', 'published'] as const;

const ids = (max: number) => z.array(z.string().min(1).max(64)).max(max).refine((a) => new Set(a).size === a.length, 'must not repeat an id');
const message = textString().trim().max(INCIDENT_LIMITS.message_max_chars);

/**
 * `POST /v1/incidents` body: `title`, `status` (default investigating), `impact` (default
 * minor), `message` (the first update's text), the `status_page_ids` it shows on and the
 * `component_ids` (components of those pages) it affects. `team_id` makes it a team's; its
 * pages must have the same owner.
 * @example { "title": "Elevated API errors", "impact": "major", "message": "We are looking into it.", "status_page_ids": ["sp_01jd3k6w9z4q8r2t7v5x1y3b6c"] }
 */
export const incidentCreateSchema = z.strictObject({
  team_id: z.string().min(1).max(64).nullable().optional(),
  title: textString().trim().min(1).max(INCIDENT_LIMITS.title_max_chars),
  status: z.enum(INCIDENT_STATUSES).default('investigating'),
  impact: z.enum(INCIDENT_IMPACTS).default('minor'),
  message: message.default(''),
  status_page_ids: ids(INCIDENT_LIMITS.pages_max).default([]),
  component_ids: ids(INCIDENT_LIMITS.components_max).default([]),
});
export type IncidentCreate = z.infer<typeof incidentCreateSchema>;

/** `PATCH /v1/incidents/{id}` body: `title`, `impact`, `status_page_ids`, `component_ids` (status changes through an update). */
export const incidentPatchSchema = z.strictObject({
  title: textString().trim().min(1).max(INCIDENT_LIMITS.title_max_chars).optional(),
  impact: z.enum(INCIDENT_IMPACTS).optional(),
  status_page_ids: ids(INCIDENT_LIMITS.pages_max).optional(),
  component_ids: ids(INCIDENT_LIMITS.components_max).optional(),
});
export type IncidentPatch = z.infer<typeof incidentPatchSchema>;

/**
 * `POST /v1/incidents/{id}/updates` body: the incident's new `status` and what to tell visitors.
 * @example { "status": "identified", "message": "A bad deploy; rolling back." }
 */
export const incidentUpdateCreateSchema = z.strictObject({
  status: z.enum(INCIDENT_STATUSES),
  message: message.min(1),
});
export type IncidentUpdateCreate = z.infer<typeof incidentUpdateCreateSchema>;

/** One timestamped update of an incident. */
export const incidentUpdateSchema = z.object({
  id: idSchema('incident_update'),
  status: z.enum(INCIDENT_STATUSES),
  message: z.string(),
  created_at: z.iso.datetime(),
});
export type IncidentUpdate = z.infer<typeof incidentUpdateSchema>;

/** An incident as returned, its updates newest first. `alert_event_id`: the alert event that opened it, when one did. */
export const incidentSchema = z.object({
  id: idSchema('incident'),
  team_id: z.string().nullable(),
  title: z.string(),
  status: z.enum(INCIDENT_STATUSES),
  impact: z.enum(INCIDENT_IMPACTS),
  status_page_ids: z.array(z.string()),
  component_ids: z.array(z.string()),
  alert_event_id: z.string().nullable(),
  started_at: z.iso.datetime(),
  resolved_at: z.iso.datetime().nullable(),
  updates: z.array(incidentUpdateSchema),
  created_by: z.string(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type Incident = z.infer<typeof incidentSchema>;

/**
 * `PUT /v1/incidents/{id}/postmortem` body: `body_md` (Markdown; raw HTML is shown as text) and
 * `status` (draft by default; `published` shows it on the incident's pages).
 */
export const postmortemPutSchema = z.strictObject({
  body_md: textString().max(INCIDENT_LIMITS.postmortem_max_chars),
  status: z.enum(POSTMORTEM_STATUSES).default('draft'),
});
export type PostmortemPut = z.infer<typeof postmortemPutSchema>;

/** A postmortem as returned. */
export const postmortemSchema = z.object({
  incident_id: z.string(),
  body_md: z.string(),
  status: z.enum(POSTMORTEM_STATUSES),
  published_at: z.iso.datetime().nullable(),
  updated_at: z.iso.datetime(),
});
export type Postmortem = z.infer<typeof postmortemSchema>;

/** A component's state on a public page: its monitors' worst state, `no_data` before any verdict. */
export const PUBLIC_COMPONENT_STATES = ['up', 'degraded', 'down', 'maintenance', 'no_data'] as const;

/**
 * One UTC day of a component's uptime bar, from the stored hourly round rollups: `level` is
 * `down` when any round was down, else `degraded` when any was, else `up`; `maintenance` when
 * the day had only maintenance, `no_data` when it had no judged round. Seconds per verdict.
 */
export const publicUptimeDaySchema = z.object({
  date: z.string(),
  level: z.enum(PUBLIC_COMPONENT_STATES),
  uptime_percent: z.number().nullable(),
  up_s: z.number().int(),
  degraded_s: z.number().int(),
  down_s: z.number().int(),
  maintenance_s: z.number().int(),
  no_data_s: z.number().int(),
});
export type PublicUptimeDay = z.infer<typeof publicUptimeDaySchema>;

/** An incident as a page shows it: no owner, no alert link; the published postmortem's Markdown when there is one. */
export const publicIncidentSchema = z.object({
  id: z.string(),
  title: z.string(),
  status: z.enum(INCIDENT_STATUSES),
  impact: z.enum(INCIDENT_IMPACTS),
  component_ids: z.array(z.string()),
  started_at: z.iso.datetime(),
  resolved_at: z.iso.datetime().nullable(),
  updates: z.array(incidentUpdateSchema),
  postmortem_md: z.string().nullable(),
});
export type PublicIncident = z.infer<typeof publicIncidentSchema>;

/**
 * `GET /v1/public/status-pages/{slug}`: what the page at `/status/{slug}` shows. `status` is the
 * page's overall state: the worst component's. `days` run oldest first over `history_days` UTC
 * days, today last. `maintenance[]`: maintenance windows of the components' monitors active now or
 * starting within 7 days.
 */
export const publicStatusPageSchema = z.object({
  slug: z.string(),
  title: z.string(),
  description: z.string(),
  theme: z.string(),
  logo_url: z.string().nullable(),
  history_days: z.number().int(),
  status: z.enum(PUBLIC_COMPONENT_STATES),
  components: z.array(z.object({
    id: z.string(),
    name: z.string(),
    section: z.string(),
    state: z.enum(PUBLIC_COMPONENT_STATES),
    uptime_percent: z.number().nullable(),
    days: z.array(publicUptimeDaySchema),
  })),
  active_incidents: z.array(publicIncidentSchema),
  maintenance: z.array(z.object({ title: z.string().nullable(), starts_at: z.iso.datetime(), ends_at: z.iso.datetime(), component_ids: z.array(z.string()) })),
  past_incidents: z.array(publicIncidentSchema),
  generated_at: z.iso.datetime(),
});
export type PublicStatusPage = z.infer<typeof publicStatusPageSchema>;
