import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import {
  isId, leaderboardReportDetailSchema, leaderboardReportListSchema, newId, optOutRequestSchema, optOutSchema, pageQuerySchema,
} from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { clientIp } from '../http/client-ip.js';
import { jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { RateCounter } from '../middleware/rate-counter.js';
import { rateLimitHeaders } from '../middleware/rate-limit.js';
import { findReport, listReports, reportPdf, type LeaderboardReportRow } from './leaderboards.db.js';
import { insertOptOut } from './opt-outs.db.js';
import { toLeaderboardReport, toOptOut } from './view.js';

const idParam = z.object({ id: z.string().max(64).openapi({ param: { name: 'id', in: 'path' }, example: 'lb_01jd3k6w9z4q8r2t7v5x1y3b6c' }) });
const NOT_FOUND = jsonError('NOT_FOUND: no published report with this id');
const PDF = { description: 'the signed PDF', content: { 'application/pdf': { schema: z.string().openapi({ format: 'binary' }) } } };
const PUBLIC_STATUSES = ['published', 'archived'] as const;

/** `bytes` as a PDF download named `filename`. */
export function pdfResponse(c: Context<AppEnv>, bytes: Buffer, filename: string, cache: string): Response {
  return c.body(new Uint8Array(bytes), 200, { 'content-type': 'application/pdf', 'content-disposition': `attachment; filename="${filename}"`, 'cache-control': cache });
}

/**
 * `/v1/leaderboards` (public; docs/api/leaderboards.md): published and archived reports, their
 * signed PDFs and errata notices, and the opt-out form (rate-limited per source IP:
 * config leaderboard_opt_out_rate_limit per rate_limit_window_s).
 */
export function leaderboardsRouter(deps: AppDeps) {
  const r = createRouter();
  const counter = new RateCounter(deps.sql, deps.config.rate_limit_window_s, deps.config.rate_limit_sync_ms, deps.log.child({ module: 'leaderboards.opt-outs' }));

  /** The published or archived report `id`; anything else is 404. */
  async function publicReport(id: string): Promise<LeaderboardReportRow> {
    const row = isId('leaderboard_report', id) ? await findReport(deps.sql, id) : null;
    if (!row || !(PUBLIC_STATUSES as readonly string[]).includes(row.status)) throw new ApiError('NOT_FOUND', 'no published report with this id');
    return row;
  }

  r.openapi(createRoute({
    method: 'get', path: '/', tags: ['leaderboards'], summary: 'List published and archived leaderboard reports, newest month first',
    request: { query: pageQuerySchema },
    responses: { 200: jsonOk(leaderboardReportListSchema, '{items[], total, page, page_size, has_more}'), 400: jsonError('VALIDATION_FAILED') },
  }), async (c) => {
    const q = c.req.valid('query');
    const { rows, total } = await listReports(deps.sql, PUBLIC_STATUSES, q.page_size, (q.page - 1) * q.page_size);
    return ok(c, { items: rows.map((row) => toLeaderboardReport(deps.config, row, 'public')), total, page: q.page, page_size: q.page_size, has_more: q.page * q.page_size < total }, 200);
  });

  r.openapi(createRoute({
    method: 'post', path: '/opt-outs', tags: ['leaderboards'], summary: 'Ask for a vendor to be left out of the leaderboards (public, rate-limited per source IP)',
    request: { body: jsonBody(optOutRequestSchema) },
    responses: { 201: jsonOk(optOutSchema, 'the stored request, pending'), 400: jsonError('VALIDATION_FAILED (reason at most 5000 characters)'), 429: jsonError('RATE_LIMIT_EXCEEDED') },
  }), async (c) => {
    const limit = deps.config.leaderboard_opt_out_rate_limit;
    const counted = await counter.hit(`leaderboard-opt-out:ip:${clientIp(c, deps.config.trust_proxy)}`);
    if (counted.count > limit) {
      throw new ApiError('RATE_LIMIT_EXCEEDED', `opt-out requests are limited to ${limit} per ${deps.config.rate_limit_window_s} s per source address`, { limit, window_s: deps.config.rate_limit_window_s }, rateLimitHeaders(limit, counted));
    }
    const b = c.req.valid('json');
    const row = await insertOptOut(deps.sql, {
      id: newId('leaderboard_opt_out'), vendor_name: b.vendor_name, applicant_email: b.applicant_email, identity_proof_url: b.identity_proof_url,
      applicant_organization: b.applicant_organization || null, contact_phone: b.contact_phone || null, reason: b.reason || null,
    });
    return ok(c, toOptOut(row), 201);
  });

  r.openapi(createRoute({
    method: 'get', path: '/{id}', tags: ['leaderboards'], summary: 'Read a published leaderboard report with its vendor rows',
    request: { params: idParam },
    responses: { 200: jsonOk(leaderboardReportDetailSchema, 'the report and its `entries[]`'), 404: NOT_FOUND },
  }), async (c) => {
    const row = await publicReport(c.req.valid('param').id);
    return ok(c, { ...toLeaderboardReport(deps.config, row, 'public'), entries: row.entries }, 200);
  });

  r.openapi(createRoute({
    method: 'get', path: '/{id}/pdf', tags: ['leaderboards'], summary: 'Download the signed PDF of a published report (verify at POST /v1/attest/verify)',
    request: { params: idParam }, responses: { 200: PDF, 404: NOT_FOUND },
  }), async (c) => {
    const row = await publicReport(c.req.valid('param').id);
    const bytes = await reportPdf(deps.sql, row.id, 'report');
    if (!bytes) throw new ApiError('NOT_FOUND', 'no published report with this id');
    return pdfResponse(c, bytes, `vantage-${row.id}.pdf`, 'public, max-age=3600') as never;
  });

  r.openapi(createRoute({
    method: 'get', path: '/{id}/errata/pdf', tags: ['leaderboards'], summary: 'Download the signed errata notice of a corrected report',
    request: { params: idParam }, responses: { 200: PDF, 404: jsonError('NOT_FOUND: no published report with this id, or it has no errata notice') },
  }), async (c) => {
    const row = await publicReport(c.req.valid('param').id);
    const bytes = await reportPdf(deps.sql, row.id, 'errata');
    if (!bytes) throw new ApiError('NOT_FOUND', 'this report has no errata notice');
    return pdfResponse(c, bytes, `vantage-${row.id}-errata.pdf`, 'public, max-age=3600') as never;
  });

  return r;
}
