import { createRoute, z } from '@hono/zod-openapi';
import { certificateMonitorRequestSchema, monitorSchema } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { monitorWriter } from '../monitors/writer.js';
import { toMonitor } from '../monitors/view.js';
import { ownerForNew, ownerScope } from '../teams/authorize.js';
import { createCertificateMonitor } from './certificate-monitor.js';
import { getCertificate, listCertificates, lockCertificateStatus, setCertificateStatus } from './certificates.db.js';
import { changeOrder } from './orders.db.js';
import { openCertificateKey } from './order-steps.js';
import { REVOKE_REASONS } from './revoke-reasons.js';
import { boxOf, CONFLICT, idParam, listQuery, NOT_FOUND, owned, read, TAGS, write } from './route-kit.js';
import { certificateSchema, pageOf, toCertificate } from './views.js';

const PEM = (description: string) => ({ content: { 'application/pem-certificate-chain': { schema: z.string() } }, description });
const list = createRoute({
  method: 'get', path: '/', tags: TAGS, security: BEARER, middleware: read, summary: 'Your issued certificates and your teams\', newest first',
  request: { query: listQuery }, responses: { 200: jsonOk(pageOf(certificateSchema), 'a page of certificates'), ...AUTH_ERRORS },
});
const readOne = createRoute({
  method: 'get', path: '/{id}', tags: TAGS, security: BEARER, middleware: read, summary: 'One certificate',
  request: { params: idParam }, responses: { 200: jsonOk(certificateSchema, 'the certificate'), ...NOT_FOUND, ...AUTH_ERRORS },
});
const chain = createRoute({
  method: 'get', path: '/{id}/chain', tags: TAGS, security: BEARER, middleware: read, summary: 'Download the PEM chain (leaf first, as the CA sent it; RFC 8555 §9.1)',
  request: { params: idParam }, responses: { 200: PEM('the chain'), ...NOT_FOUND, ...AUTH_ERRORS },
});
const privateKey = createRoute({
  method: 'get', path: '/{id}/private-key', tags: TAGS, security: BEARER, middleware: write, summary: 'Download the certificate\'s private key (PKCS#8 PEM); needs write access',
  request: { params: idParam }, responses: { 200: { content: { 'application/x-pem-file': { schema: z.string() } }, description: 'the key' }, ...NOT_FOUND, ...AUTH_ERRORS },
});
const revoke = createRoute({
  method: 'post', path: '/{id}/revoke', tags: TAGS, security: BEARER, middleware: write, summary: 'Revoke the certificate at the CA (issued → revoking → revoked)',
  request: { params: idParam, body: jsonBody(z.object({ reason: z.enum(REVOKE_REASONS).default('unspecified').openapi({ description: 'RFC 5280 CRLReason' }) }).strict()) },
  responses: { 200: jsonOk(certificateSchema, 'the certificate, revoking'), ...NOT_FOUND, ...CONFLICT, ...AUTH_ERRORS },
});

const monitor = createRoute({
  method: 'post', path: '/{id}/monitor', tags: TAGS, security: BEARER, middleware: write,
  summary: 'Create an ssl_expiry monitor of the certificate in one call (its expiry then reaches the monitor\'s alert policies)',
  request: { params: idParam, body: { required: false, content: { 'application/json': { schema: certificateMonitorRequestSchema } } } },
  responses: {
    201: jsonOk(monitorSchema, 'the monitor, owned like the certificate'),
    400: jsonError('VALIDATION_FAILED (`host` not covered by the certificate, a bad config field); MONITOR_INVALID_INTERVAL'), ...NOT_FOUND,
    409: jsonError('CONFLICT (the certificate is not issued: details.status); MONITOR_NAME_TAKEN'),
    422: jsonError('MONITOR_INVALID_TARGET, MONITOR_LIMIT_EXCEEDED'), ...AUTH_ERRORS,
  },
});

/**
 * `/v1/certificates` (docs/api/certificates.md "Certificates"): list, read, download the chain
 * and key, revoke (done at the CA by the order's job), and create a certificate's ssl_expiry
 * monitor in one call.
 */
export function certificatesRouter(deps: AppDeps) {
  const r = createRouter();
  const load = (id: number) => getCertificate(deps.sql, id);
  const box = boxOf(deps);

  r.openapi(list, async (c) => {
    const q = c.req.valid('query');
    const { rows, total } = await listCertificates(deps.sql, await ownerScope(c, deps, 'read', q.team_id), q.page_size, (q.page - 1) * q.page_size);
    return ok(c, { items: rows.map((x) => toCertificate(x)), total, page: q.page, page_size: q.page_size, has_more: q.page * q.page_size < total }, 200);
  });

  r.openapi(readOne, async (c) => ok(c, toCertificate(await owned(c, deps, c.req.valid('param').id, load, 'read', 'certificate')), 200));

  r.openapi(chain, async (c) => {
    const cert = await owned(c, deps, c.req.valid('param').id, load, 'read', 'certificate');
    return c.body(cert.chain_pem, 200, { 'content-type': 'application/pem-certificate-chain', 'content-disposition': `attachment; filename="certificate-${cert.id}.pem"` });
  });

  r.openapi(privateKey, async (c) => {
    const cert = await owned(c, deps, c.req.valid('param').id, load, 'write', 'certificate');
    return c.body(openCertificateKey(box, cert.order_id, cert.key_sealed), 200, { 'content-type': 'application/x-pem-file', 'cache-control': 'no-store' });
  });

  r.openapi(revoke, async (c) => {
    const { reason } = c.req.valid('json');
    const cert = await owned(c, deps, c.req.valid('param').id, load, 'write', 'certificate');
    const changed = await deps.sql.begin(async (tx) => {
      const status = await lockCertificateStatus(tx, cert.id);
      if (status !== 'issued') throw new ApiError('CONFLICT', `the certificate is ${status}; only an issued one is revoked`, { status });
      const row = await setCertificateStatus(tx, cert.id, { status: 'revoking', revoke_reason: reason });
      await changeOrder(tx, cert.order_id, { status: 'revoking', due_at: new Date(), attempt: 0, last_error: null }, 'revoke_requested', reason);
      return row!;
    });
    return ok(c, toCertificate(changed), 200);
  });

  const writer = monitorWriter(deps);
  r.openapi(monitor, async (c) => {
    const body = c.req.valid('json') ?? {};
    const cert = await owned(c, deps, c.req.valid('param').id, load, 'write', 'certificate');
    const row = await createCertificateMonitor(writer, await ownerForNew(c, deps, cert.team_id), cert, body);
    return ok(c, toMonitor(row), 201);
  });

  return r;
}
