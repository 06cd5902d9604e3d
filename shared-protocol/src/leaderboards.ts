import { z } from 'zod';
import { pageQuerySchema } from './envelope.js';
import { textString } from './parse.js';

/**
 * Leaderboards (docs/api/leaderboards.md): monthly vendor reports computed from the monitors the
 * operator marks as leaderboard monitors, and vendors' opt-out requests.
 */

/** Report states: draft → reviewing → published → archived; reviewing → draft sends it back. */
export const LEADERBOARD_STATUSES = ['draft', 'reviewing', 'published', 'archived'] as const;
export type LeaderboardStatus = (typeof LEADERBOARD_STATUSES)[number];

/**
 * The moves an administrator may make (docs/api/leaderboards.md "States"): anything else is 409
 * CONFLICT. A published or archived report is never deleted; only a draft is.
 */
export const LEADERBOARD_MOVES: Readonly<Record<LeaderboardStatus, readonly LeaderboardStatus[]>> = {
  draft: ['reviewing'],
  reviewing: ['draft', 'published'],
  published: ['archived'],
  archived: [],
};

/**
 * The version of the computation a report's figures come from (docs/api/leaderboards.md
 * "Methodology"), recorded in each report; a change of method gets a new version.
 */
export const LEADERBOARD_METHODOLOGY_VERSION = 'lb-2026.1';

export const OPT_OUT_STATUSES = ['pending', 'approved', 'rejected'] as const;
/** Longest opt-out `reason` (docs/api/leaderboards.md "Opt-out requests"). */
export const OPT_OUT_REASON_MAX = 5000;

/** Latency of a vendor's checks from one country (the nodes' country), ms. */
export const leaderboardRegionSchema = z.object({
  country: z.string().nullable(),
  checks: z.number().int(),
  p50_ms: z.number().nullable(),
  p95_ms: z.number().nullable(),
});

/**
 * One vendor's row of a report: `rank` within its category (by uptime, then p95), `uptime` (0..1,
 * null without data) over its leaderboard monitors' time with data, `incidents` (down spells),
 * p50/p95 over all its checks and by region.
 */
export const leaderboardEntrySchema = z.object({
  rank: z.number().int(),
  category: z.string(),
  vendor_name: z.string(),
  monitors: z.number().int(),
  uptime: z.number().min(0).max(1).nullable(),
  uptime_percent: z.number().min(0).max(100).nullable(),
  incidents: z.number().int(),
  checks: z.number().int(),
  p50_ms: z.number().nullable(),
  p95_ms: z.number().nullable(),
  regions: z.array(leaderboardRegionSchema),
});
export type LeaderboardEntry = z.infer<typeof leaderboardEntrySchema>;

/**
 * A leaderboard report (docs/api/leaderboards.md). `pdf_url` is null until the report has gone to review
 * (its signed PDF is made then); `verdict_report_id` is always null (a leaderboard report is
 * signed under its own `lb_` id: its attestation records carry it). Ours: `content_hash` of the
 * signed PDF, the data range and computation time.
 * @example { "id": "lb_01jd3k6w9z4q8r2t7v5x1y3b6c", "status": "published", "period_year": 2026, "period_month": 10, "methodology_version": "lb-2026.1", "pdf_url": "https://vantage.example/v1/leaderboards/lb_01jd3k6w9z4q8r2t7v5x1y3b6c/pdf", "published_at": "2026-11-03T09:00:00.000Z", "excluded_vendors": ["Example CDN"], "verdict_report_id": null, "errata_pdf_url": null, "errata_reason": null }
 */
export const leaderboardReportSchema = z.object({
  id: z.string(),
  status: z.enum(LEADERBOARD_STATUSES),
  period_year: z.number().int(),
  period_month: z.number().int(),
  methodology_version: z.string(),
  pdf_url: z.string().nullable(),
  published_at: z.iso.datetime().nullable(),
  excluded_vendors: z.array(z.string()),
  verdict_report_id: z.string().nullable(),
  errata_pdf_url: z.string().nullable(),
  errata_reason: z.string().nullable(),
  errata_at: z.iso.datetime().nullable(),
  content_hash: z.string().nullable(),
  data_from: z.iso.datetime(),
  data_to: z.iso.datetime(),
  computed_at: z.iso.datetime(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type LeaderboardReport = z.infer<typeof leaderboardReportSchema>;

/** A report read alone: its vendor rows too. */
export const leaderboardReportDetailSchema = leaderboardReportSchema.extend({ entries: z.array(leaderboardEntrySchema) });

/** `{items[], total, page, page_size, has_more}` of reports, newest period first. */
export const leaderboardReportListSchema = z.object({
  items: z.array(leaderboardReportSchema), total: z.number().int(), page: z.number().int(), page_size: z.number().int(), has_more: z.boolean(),
});

/** Admin list query: paging and an optional status. */
export const adminLeaderboardListQuerySchema = pageQuerySchema.extend({ status: z.enum(LEADERBOARD_STATUSES).optional() });

/** `POST /v1/admin/leaderboards`: the month to report (it must have begun). */
export const createLeaderboardRequestSchema = z.strictObject({
  period_year: z.number().int().min(2000).max(2100),
  period_month: z.number().int().min(1).max(12),
});

/** `POST /v1/admin/leaderboards/{id}/status`: the state to move to. */
export const leaderboardMoveRequestSchema = z.strictObject({ status: z.enum(LEADERBOARD_STATUSES) });

/** `POST /v1/admin/leaderboards/{id}/errata`: why the published report is corrected. */
export const leaderboardErrataRequestSchema = z.strictObject({ reason: textString().trim().min(1).max(OPT_OUT_REASON_MAX) });

/** `PUT /v1/admin/leaderboard-monitors/{monitor_id}`: the vendor a monitor measures and its category (e.g. `CDN`, `DNS hosting`). */
export const leaderboardMonitorRequestSchema = z.strictObject({
  vendor_name: textString().trim().min(1).max(100),
  category: textString().trim().min(1).max(64),
});

/** A leaderboard monitor: the mark and the monitor it is on. */
export const leaderboardMonitorSchema = z.object({
  monitor_id: z.string(),
  monitor_name: z.string(),
  type: z.string(),
  target: z.string(),
  vendor_name: z.string(),
  category: z.string(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export const leaderboardMonitorListSchema = z.object({ items: z.array(leaderboardMonitorSchema) });

/**
 * `POST /v1/leaderboards/opt-outs` (public; docs/api/leaderboards.md): `vendor_name`, `applicant_email`,
 * `identity_proof_url` required; `applicant_organization`, `contact_phone`, `reason` (at most
 * 5000 characters) optional.
 */
export const optOutRequestSchema = z.strictObject({
  vendor_name: textString().trim().min(1).max(100),
  applicant_email: z.email().max(254),
  identity_proof_url: z.url({ protocol: /^https?$/ }).max(2048),
  applicant_organization: textString().trim().max(200).optional(),
  contact_phone: z.string().trim().regex(/^\+?[0-9 ()-]{3,40}$/, 'digits, spaces, parentheses and hyphens, an optional leading +').optional(),
  reason: textString().max(OPT_OUT_REASON_MAX).optional(),
});

/** A stored opt-out request: the request plus `id` (`lbo_`), `status`, `decided_at`, `decision_reason`, `created_at`. */
export const optOutSchema = z.object({
  id: z.string(),
  vendor_name: z.string(),
  applicant_email: z.string(),
  identity_proof_url: z.string(),
  applicant_organization: z.string().nullable(),
  contact_phone: z.string().nullable(),
  reason: z.string().nullable(),
  status: z.enum(OPT_OUT_STATUSES),
  decided_at: z.iso.datetime().nullable(),
  decision_reason: z.string().nullable(),
  created_at: z.iso.datetime(),
});
export type OptOut = z.infer<typeof optOutSchema>;

export const optOutListSchema = z.object({
  items: z.array(optOutSchema), total: z.number().int(), page: z.number().int(), page_size: z.number().int(), has_more: z.boolean(),
});
export const optOutListQuerySchema = pageQuerySchema.extend({ status: z.enum(OPT_OUT_STATUSES).optional() });

/** `POST /v1/admin/leaderboard-opt-outs/{id}/decision`: approve or reject a pending request, with the reason the applicant is e-mailed. */
export const optOutDecisionRequestSchema = z.strictObject({
  status: z.enum(['approved', 'rejected']),
  decision_reason: textString().trim().min(1).max(2000),
});
