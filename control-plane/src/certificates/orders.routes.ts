import { createRoute, z } from '@hono/zod-openapi';
import { CERT_CHALLENGE_TYPES, CERT_ORDER_STATUSES } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import type { Sql } from '../db/sql.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { authorize, ownerForNew, ownerScope } from '../teams/authorize.js';
import { getDnsCredential } from './dns-credentials.db.js';
import { changeOrder, getOrder, insertOrder, listEvents, listOrders, lockOrder, type OrderChange, type OrderRow, type OrderStatus } from './orders.db.js';
import { CONFLICT, idParam, listQuery, NOT_FOUND, owned, read, TAGS, write } from './route-kit.js';
import { MAX_SANS, normaliseSans } from './sans.js';
import { orderSchema, pageOf, toOrder } from './views.js';

const createBody = z.object({
  sans: z.array(z.string().min(1).max(253)).min(1).max(MAX_SANS).openapi({ description: 'DNS names, Unicode or ASCII; `*.` wildcards allowed', example: ['example.com', '*.example.com'] }),
  common_name: z.string().max(64).nullable().optional().openapi({ description: 'one of the SANs; default the first' }),
  challenge_type: z.enum(CERT_CHALLENGE_TYPES),
  dns_credential_id: z.number().int().positive().nullable().optional().openapi({ description: 'required for dns-01, absent for manual-dns' }),
  tier: z.enum(['dv']).default('dv').openapi({ description: 'ACME issues domain-validated certificates only' }),
  team_id: z.string().max(64).nullable().optional(),
}).strict();
const ordersQuery = listQuery.extend({ status: z.enum(CERT_ORDER_STATUSES).optional() });

const BAD = { 400: jsonError('VALIDATION_FAILED (a field: a SAN that is not a DNS name, a credential missing or not allowed, a revoked credential)') };
const action = (path: string, summary: string) => createRoute({
  method: 'post', path, tags: TAGS, security: BEARER, middleware: write, summary, request: { params: idParam },
  responses: { 200: jsonOk(orderSchema, 'the order'), ...NOT_FOUND, ...CONFLICT, 503: jsonError('UNAVAILABLE (submit, retry: no ACME directory configured)'), ...AUTH_ERRORS },
});
const list = createRoute({
  method: 'get', path: '/', tags: TAGS, security: BEARER, middleware: read, summary: 'Your certificate orders and your teams\', newest first (`status` filters)',
  request: { query: ordersQuery }, responses: { 200: jsonOk(pageOf(orderSchema), 'a page of orders'), ...BAD, ...AUTH_ERRORS },
});
const create = createRoute({
  method: 'post', path: '/', tags: TAGS, security: BEARER, middleware: write, summary: 'Create a draft certificate order',
  request: { body: jsonBody(createBody) }, responses: { 201: jsonOk(orderSchema, 'the draft order'), ...BAD, 404: jsonError('TEAM_NOT_FOUND; NOT_FOUND (the DNS credential is not yours)'), ...AUTH_ERRORS },
});
const readOne = createRoute({
  method: 'get', path: '/{id}', tags: TAGS, security: BEARER, middleware: read, summary: 'One order with its events and, for manual DNS, the TXT records to create',
  request: { params: idParam }, responses: { 200: jsonOk(orderSchema, 'the order'), ...NOT_FOUND, ...AUTH_ERRORS },
});
const submit = action('/{id}/submit', 'Submit a draft: validation starts (draft → validating)');
const confirm = action('/{id}/confirm', 'Manual DNS: the TXT records are in place; they are checked on the authoritative servers before the CA is asked');
const retry = action('/{id}/retry', 'Retry a failed order with a new ACME order (failed → validating; manual challenges are regenerated)');
const cancel = action('/{id}/cancel', 'Cancel an order not yet issued (draft or validating → failed)');

/**
 * `/v1/certificates/orders` (docs/api/certificates.md "Orders"): create a draft, submit, confirm
 * manual DNS, retry, cancel, read with events. The steps themselves run as jobs (order-jobs.ts).
 */
export function certOrdersRouter(deps: AppDeps) {
  const r = createRouter();
  const load = (id: number) => getOrder(deps.sql, id);
  const view = async (o: OrderRow) => toOrder(o, await listEvents(deps.sql, [o.id]));

  /** Move order `id` from one of `from` with `change`, under a row lock. @throws CONFLICT from any other state, or while a step is running */
  async function move(id: number, from: OrderStatus[], change: (o: OrderRow) => OrderChange | string, action: string): Promise<OrderRow> {
    return (deps.sql as Sql).begin(async (tx) => {
      const o = (await lockOrder(tx, id))!;
      if (!from.includes(o.status)) throw new ApiError('CONFLICT', `the order is ${o.status}; this needs ${from.join(' or ')}`, { status: o.status });
      if (o.lease_until && o.lease_until.getTime() > Date.now() && action !== 'manual_confirmed') {
        throw new ApiError('CONFLICT', 'a step of the order is running; try again shortly', { status: o.status });
      }
      const ch = change(o);
      if (typeof ch === 'string') throw new ApiError('CONFLICT', ch, { status: o.status });
      return changeOrder(tx, id, ch, action);
    });
  }
  const needAcme = () => {
    if (!deps.config.certificates_acme_directory_url) throw new ApiError('UNAVAILABLE', 'certificate orders cannot be submitted: no ACME directory is configured (VANTAGE_CERTIFICATES_ACME_DIRECTORY_URL)');
  };

  r.openapi(list, async (c) => {
    const q = c.req.valid('query');
    const { rows, total } = await listOrders(deps.sql, await ownerScope(c, deps, 'read', q.team_id), { status: q.status, limit: q.page_size, offset: (q.page - 1) * q.page_size });
    const events = await listEvents(deps.sql, rows.map((o) => o.id));
    return ok(c, { items: rows.map((o) => toOrder(o, events)), total, page: q.page, page_size: q.page_size, has_more: q.page * q.page_size < total }, 200);
  });

  r.openapi(create, async (c) => {
    const body = c.req.valid('json');
    const names = normaliseSans(body.sans);
    if ('fields' in names) throw new ApiError('VALIDATION_FAILED', `${names.fields[0]!.path}: ${names.fields[0]!.message}`, { fields: names.fields });
    const bad = (path: string, message: string) => new ApiError('VALIDATION_FAILED', `${path}: ${message}`, { fields: [{ path, message }] });
    let common_name: string | null = names.sans[0]!;
    if (body.common_name != null) {
      const cn = normaliseSans([body.common_name]);
      if ('fields' in cn || !names.sans.includes(cn.sans[0]!)) throw bad('common_name', 'must be one of the SANs');
      common_name = cn.sans[0]!;
    }
    if (body.challenge_type === 'dns-01' && body.dns_credential_id == null) throw bad('dns_credential_id', 'required for challenge_type dns-01');
    if (body.challenge_type === 'manual-dns' && body.dns_credential_id != null) throw bad('dns_credential_id', 'not used with challenge_type manual-dns');
    const owner = await ownerForNew(c, deps, body.team_id);
    if (body.dns_credential_id != null) {
      const cred = await getDnsCredential(deps.sql, body.dns_credential_id);
      await authorize(c, deps, cred, 'read', 'NOT_FOUND', 'DNS credential');
      if (cred!.team_id !== owner.team_id || (cred!.team_id === null && cred!.user_id !== owner.user_id)) throw bad('dns_credential_id', 'the credential belongs to another owner than the order');
      if (cred!.revoked_at) throw bad('dns_credential_id', 'the credential is revoked');
    }
    const order = await deps.sql.begin((tx) => insertOrder(tx, {
      ...owner, ca: deps.config.certificates_ca_name, tier: body.tier, challenge_type: body.challenge_type, common_name,
      sans: names.sans, sans_unicode: names.sans_unicode, dns_credential_id: body.dns_credential_id ?? null,
    }));
    return ok(c, await view(order), 201);
  });

  r.openapi(readOne, async (c) => ok(c, await view(await owned(c, deps, c.req.valid('param').id, load, 'read', 'certificate order')), 200));

  r.openapi(submit, async (c) => {
    const o = await owned(c, deps, c.req.valid('param').id, load, 'write', 'certificate order');
    needAcme();
    return ok(c, await view(await move(o.id, ['draft'], () => ({ status: 'validating', due_at: new Date(), attempt: 0 }), 'submitted')), 200);
  });

  r.openapi(confirm, async (c) => {
    const o = await owned(c, deps, c.req.valid('param').id, load, 'write', 'certificate order');
    return ok(c, await view(await move(o.id, ['validating'], (x) => {
      if (x.challenge_type !== 'manual-dns') return 'only manual-dns orders are confirmed';
      if (x.manual_challenges.length === 0 || x.due_at !== null) return 'the order is not waiting for its TXT records';
      return { manual_confirmed: true, due_at: new Date() };
    }, 'manual_confirmed')), 200);
  });

  r.openapi(retry, async (c) => {
    const o = await owned(c, deps, c.req.valid('param').id, load, 'write', 'certificate order');
    needAcme();
    return ok(c, await view(await move(o.id, ['failed'], (x) => ({
      status: 'validating', retry_count: x.retry_count + 1, attempt: 0, acme_order_url: null, manual_challenges: [], manual_confirmed: false, due_at: new Date(), lease_until: null,
    }), 'retried')), 200);
  });

  r.openapi(cancel, async (c) => {
    const o = await owned(c, deps, c.req.valid('param').id, load, 'write', 'certificate order');
    return ok(c, await view(await move(o.id, ['draft', 'validating'], () => ({ status: 'failed', last_error: 'canceled by the owner', due_at: null, acme_order_url: null }), 'canceled')), 200);
  });

  return r;
}
