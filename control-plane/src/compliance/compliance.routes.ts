import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { complianceReportSchema, complianceSubscriptionSchema, createComplianceSubscriptionRequestSchema, isId } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { requireAuth } from '../middleware/auth.js';
import { authorize } from '../teams/authorize.js';
import { cancelSubscription, findReport, findSubscription, listReports, listSubscriptions, reportPdf, type ComplianceReportRow } from './compliance.db.js';
import { createSubscription, registerCompliancePayments, toComplianceSubscription } from './subscriptions.js';

const read = [requireAuth({ scope: 'read' })];
const write = [requireAuth({ scope: 'write' })];
const idParam = (example: string) => z.object({ id: z.string().max(64).openapi({ param: { name: 'id', in: 'path' }, example }) });
const SUB_NOT_FOUND = jsonError('NOT_FOUND: no compliance subscription of yours with this id');
const REPORT_NOT_FOUND = jsonError('NOT_FOUND: no compliance report of yours with this id');

function toComplianceReport(row: ComplianceReportRow) {
  return {
    id: row.id, subscription_id: row.subscription_id, report_type: row.report_type, period_year: row.period_year, period_month: row.period_month,
    period_week: row.period_week, period_start: row.period_start.toISOString(), period_end: row.period_end.toISOString(), monitors_included: row.monitors_included,
    pdf_url: `/v1/compliance/reports/${row.id}/pdf`, signature: row.signature, content_hash: row.content_hash, tsa_provider: null, tsa_time: row.tsa_time.toISOString(),
    created_at: row.created_at.toISOString(),
  };
}

/** `/v1/compliance`: subscriptions and their periodic signed reports (docs/api/compliance.md). `now` is the clock of activation, for tests. */
export function complianceRouter(deps: AppDeps, now: () => Date = () => new Date()) {
  registerCompliancePayments(now);
  const r = createRouter();

  async function owned<T extends { user_id: string }>(c: Context<AppEnv>, row: T | null, what: string): Promise<T> {
    await authorize(c, deps, row && { user_id: row.user_id, team_id: null }, 'read', 'NOT_FOUND', what);
    return row!;
  }

  r.openapi(createRoute({
    method: 'get', path: '/subscriptions', tags: ['compliance'], summary: 'Your compliance subscriptions, newest first (plain array)', security: BEARER, middleware: read,
    responses: { 200: jsonOk(z.array(complianceSubscriptionSchema), 'the subscriptions'), ...AUTH_ERRORS },
  }), async (c) => ok(c, (await listSubscriptions(deps.sql, c.get('principal')!.user_id)).map(toComplianceSubscription), 200));

  r.openapi(createRoute({
    method: 'post', path: '/subscriptions', tags: ['compliance'], summary: 'Subscribe to periodic signed compliance reports; pay at checkout_url', security: BEARER, middleware: write,
    request: { body: jsonBody(createComplianceSubscriptionRequestSchema) },
    responses: {
      201: jsonOk(z.object({ subscription: complianceSubscriptionSchema, checkout_url: z.string() }), '`{subscription, checkout_url}`'),
      400: jsonError('VALIDATION_FAILED'), 404: jsonError('MONITOR_NOT_FOUND: monitor_ids names a monitor that is not yours'),
      ...AUTH_ERRORS, 429: jsonError('BILLING_QUOTA_EXCEEDED: more monitors than the tier covers, or RATE_LIMITED'),
    },
  }), async (c) => {
    const { subscription, checkout_url } = await createSubscription(deps, c.get('principal')!.user_id, c.req.valid('json'));
    return ok(c, { subscription: toComplianceSubscription(subscription), checkout_url }, 201);
  });

  r.openapi(createRoute({
    method: 'get', path: '/subscriptions/{id}', tags: ['compliance'], summary: 'Read a compliance subscription', security: BEARER, middleware: read,
    request: { params: idParam('cs_01jd3k6w9z4q8r2t7v5x1y3b6c') },
    responses: { 200: jsonOk(complianceSubscriptionSchema, 'the subscription'), 404: SUB_NOT_FOUND, ...AUTH_ERRORS },
  }), async (c) => {
    const { id } = c.req.valid('param');
    return ok(c, toComplianceSubscription(await owned(c, isId('compliance_subscription', id) ? await findSubscription(deps.sql, id) : null, 'compliance subscription')), 200);
  });

  r.openapi(createRoute({
    method: 'post', path: '/subscriptions/{id}/cancel', tags: ['compliance'], summary: 'Cancel a compliance subscription (no further reports)', security: BEARER, middleware: write,
    request: { params: idParam('cs_01jd3k6w9z4q8r2t7v5x1y3b6c') },
    responses: { 200: jsonOk(complianceSubscriptionSchema, 'the canceled subscription'), 404: SUB_NOT_FOUND, 409: jsonError('CONFLICT: already canceled or expired'), ...AUTH_ERRORS },
  }), async (c) => {
    const { id } = c.req.valid('param');
    const sub = await owned(c, isId('compliance_subscription', id) ? await findSubscription(deps.sql, id) : null, 'compliance subscription');
    const after = await cancelSubscription(deps.sql, sub.id);
    if (!after) throw new ApiError('CONFLICT', `the subscription is already ${sub.status}`);
    return ok(c, toComplianceSubscription(after), 200);
  });

  r.openapi(createRoute({
    method: 'get', path: '/reports', tags: ['compliance'], summary: 'Your compliance reports, newest first (plain array, at most 200)', security: BEARER, middleware: read,
    request: { query: z.object({ subscription_id: z.string().max(64).optional() }) },
    responses: { 200: jsonOk(z.array(complianceReportSchema), 'the reports'), ...AUTH_ERRORS },
  }), async (c) => ok(c, (await listReports(deps.sql, c.get('principal')!.user_id, c.req.valid('query').subscription_id ?? null, 200)).map(toComplianceReport), 200));

  r.openapi(createRoute({
    method: 'get', path: '/reports/{id}/pdf', tags: ['compliance'], summary: 'Download a compliance report\'s signed PDF (owner only)', security: BEARER, middleware: read,
    request: { params: idParam('cr_01jd3k6w9z4q8r2t7v5x1y3b6c') },
    responses: { 200: { description: 'the signed report', content: { 'application/pdf': { schema: z.string().openapi({ format: 'binary' }) } } }, 404: REPORT_NOT_FOUND, ...AUTH_ERRORS },
  }), async (c) => {
    const { id } = c.req.valid('param');
    const row = await owned(c, isId('compliance_report', id) ? await findReport(deps.sql, id) : null, 'compliance report');
    const pdf = await reportPdf(deps.sql, row.id);
    return c.body(new Uint8Array(pdf!), 200, { 'content-type': 'application/pdf', 'content-disposition': `attachment; filename="vantage-${row.id}.pdf"`, 'cache-control': 'private, no-store' }) as never;
  });

  return r;
}
