import { createRoute, z } from '@hono/zod-openapi';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { auditAdmin, requireAdmin } from '../accounts/admin.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { requireAuth } from '../middleware/auth.js';
import { findEntitlement, insertEntitlement, listEntitlements, revokeEntitlement } from './entitlements.db.js';
import { getInvoice } from './invoices.db.js';
import { settleInvoice } from './payment-api.js';
import { entitlementSchema, grantEntitlementSchema, invoiceSchema } from './schemas.js';
import { toEntitlement, toInvoice } from './views.js';

const idParam = z.object({ id: z.string().max(64).openapi({ param: { name: 'id', in: 'path' } }) });
const userQuery = z.object({ user_id: z.string().min(1).max(64) });

const mine = createRoute({
  method: 'get', path: '/', tags: ['billing'], summary: 'The caller\'s entitlements (plain array, newest first)', security: BEARER,
  middleware: [requireAuth({ scope: 'read' })],
  responses: { 200: jsonOk(z.array(entitlementSchema), 'the entitlements'), ...AUTH_ERRORS },
});

/** `/v1/entitlements` (docs/api/billing.md "Entitlements"): the caller's own. */
export function entitlementsRouter(deps: AppDeps) {
  const r = createRouter();
  r.openapi(mine, async (c) => ok(c, (await listEntitlements(deps.sql, c.get('principal')!.user_id)).map(toEntitlement), 200));
  return r;
}

const admin = (deps: AppDeps) => [requireAdmin(deps)];
const FORBIDDEN = { 403: jsonError('FORBIDDEN: not an administrator, or no write scope') };

/** `/v1/admin` billing routes (docs/api/billing.md "Administration"): entitlements and manual payments; every change is audited. */
export function adminBillingRouter(deps: AppDeps) {
  const r = createRouter();
  const list = createRoute({
    method: 'get', path: '/entitlements', tags: ['admin'], summary: 'An account\'s entitlements', security: BEARER, middleware: admin(deps),
    request: { query: userQuery },
    responses: { 200: jsonOk(z.array(entitlementSchema), 'the entitlements'), 400: jsonError('VALIDATION_FAILED'), ...FORBIDDEN, ...AUTH_ERRORS },
  });
  const grant = createRoute({
    method: 'post', path: '/entitlements', tags: ['admin'], summary: 'Grant an entitlement to an account', security: BEARER, middleware: admin(deps),
    request: { body: jsonBody(grantEntitlementSchema) },
    responses: { 201: jsonOk(entitlementSchema, 'the entitlement'), 400: jsonError('VALIDATION_FAILED'), 404: jsonError('ACCOUNT_NOT_FOUND'), ...FORBIDDEN, ...AUTH_ERRORS },
  });
  const revoke = createRoute({
    method: 'delete', path: '/entitlements/{id}', tags: ['admin'], summary: 'Revoke an active entitlement', security: BEARER, middleware: admin(deps),
    request: { params: idParam },
    responses: { 200: jsonOk(entitlementSchema, 'the revoked entitlement'), 404: jsonError('NOT_FOUND'), 409: jsonError('CONFLICT: not active'), ...FORBIDDEN, ...AUTH_ERRORS },
  });
  const markPaid = createRoute({
    method: 'post', path: '/billing/invoices/{id}/mark-paid', tags: ['admin'], summary: 'Mark an open invoice paid (manual payments)', security: BEARER, middleware: admin(deps),
    request: { params: idParam },
    responses: { 200: jsonOk(invoiceSchema, 'the paid invoice'), 404: jsonError('BILLING_INVOICE_NOT_FOUND'), 409: jsonError('CONFLICT: not open'), ...FORBIDDEN, ...AUTH_ERRORS },
  });

  r.openapi(list, async (c) => ok(c, (await listEntitlements(deps.sql, c.req.valid('query').user_id)).map(toEntitlement), 200));

  r.openapi(grant, async (c) => {
    const body = c.req.valid('json');
    const [user] = await deps.sql`SELECT id FROM users WHERE id = ${body.user_id}`;
    if (!user) throw new ApiError('ACCOUNT_NOT_FOUND', `no account ${body.user_id}`);
    if (body.expires_at && Date.parse(body.expires_at) <= Date.now()) throw new ApiError('VALIDATION_FAILED', 'expires_at must be in the future', { fields: [{ path: 'expires_at', message: 'in the past' }] });
    if (body.kind === 'quota_override' && Object.keys(body.attrs).length === 0) {
      throw new ApiError('VALIDATION_FAILED', 'a quota_override names at least one quota in attrs', { fields: [{ path: 'attrs', message: 'empty' }] });
    }
    const row = await insertEntitlement(deps.sql, {
      user_id: body.user_id, kind: body.kind, balance: body.balance, attrs: body.attrs, source: body.source, order_ref: body.order_ref,
      expires_at: body.expires_at ? new Date(body.expires_at) : null,
    });
    await auditAdmin(c, deps, 'entitlement.grant', row.id, { user_id: row.user_id, kind: row.kind, balance: Number(row.balance) });
    return ok(c, toEntitlement(row), 201);
  });

  r.openapi(revoke, async (c) => {
    const { id } = c.req.valid('param');
    const row = await revokeEntitlement(deps.sql, id);
    if (!row) {
      if (await findEntitlement(deps.sql, id)) throw new ApiError('CONFLICT', 'the entitlement is not active');
      throw new ApiError('NOT_FOUND', `no entitlement ${id}`);
    }
    await auditAdmin(c, deps, 'entitlement.revoke', row.id, { user_id: row.user_id });
    return ok(c, toEntitlement(row), 200);
  });

  r.openapi(markPaid, async (c) => {
    const { id } = c.req.valid('param');
    const existing = await getInvoice(deps.sql, null, id);
    if (!existing) throw new ApiError('BILLING_INVOICE_NOT_FOUND', `no invoice ${id}`);
    if (existing.provider !== 'manual') throw new ApiError('CONFLICT', 'only invoices of the manual provider are marked paid by hand');
    const paid = await deps.sql.begin((tx) => settleInvoice(tx, id));
    if (!paid) throw new ApiError('CONFLICT', `the invoice is ${existing.status}`);
    await auditAdmin(c, deps, 'invoice.mark_paid', id, { user_id: paid.user_id, amount: Number(paid.amount_cents), currency: paid.currency });
    return ok(c, toInvoice(paid), 200);
  });
  return r;
}
