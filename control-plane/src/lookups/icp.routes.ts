import { createRoute } from '@hono/zod-openapi';
import { icpFilingSchema, icpImportResultSchema, icpImportSchema, icpQuerySchema } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { auditAdmin, requireAdmin } from '../accounts/admin.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { requireAuth } from '../middleware/auth.js';
import { importIcpRecords, type IcpRow } from './icp.db.js';
import { toIcpRow } from './icp.js';
import { createLookups, notRegistrable, type Lookups } from './lookups.js';


/** `/v1/info/icp` (docs/api/lookups.md "ICP filing"; public): the filing of a domain's registrable domain. */
export function icpRouter(deps: AppDeps, lookups: Lookups = createLookups(deps)) {
  const r = createRouter();
  r.openapi(createRoute({
    method: 'get', path: '/icp', tags: ['info'],
    summary: 'Mainland-China ICP filing of a domain, from the operator-loaded ICP data set; public',
    description: 'The domain is reduced to its registrable domain (Public Suffix List) and looked up in the records an operator imported (docs/api/lookups.md "ICP filing"). No match answers 200 with null fields and a `note`.',
    request: { query: icpQuerySchema },
    responses: { 200: jsonOk(icpFilingSchema, 'ICP filing'), 400: jsonError('VALIDATION_FAILED: q is not a registrable domain'), 429: jsonError('RATE_LIMIT_EXCEEDED') },
  }), async (c) => {
    return ok(c, await lookups.icp(c.req.valid('query').q), 200);
  });
  return r;
}

/** `/v1/admin/icp-records` (docs/api/lookups.md "ICP filing"): administrators load ICP records; audit-logged (`icp.import`). */
export function icpAdminRouter(deps: AppDeps) {
  const r = createRouter();
  r.openapi(createRoute({
    method: 'post', path: '/icp-records', tags: ['admin'], security: BEARER, middleware: [requireAuth({ scope: 'write' }), requireAdmin(deps)],
    summary: 'Load ICP filing records (administrators): added or replacing those of the same registrable domain; `replace` loads the whole set',
    request: { body: jsonBody(icpImportSchema) },
    responses: {
      200: jsonOk(icpImportResultSchema, '{imported, total}'), 400: jsonError('VALIDATION_FAILED'),
      ...AUTH_ERRORS, 403: jsonError('FORBIDDEN: not an administrator (VANTAGE_ADMIN_EMAILS), or the credential lacks the scope'),
    },
  }), async (c) => {
    const { records, replace } = c.req.valid('json');
    const rows: IcpRow[] = records.map((record, i) => {
      try { return toIcpRow(record); } catch { throw notRegistrable(`records[${i}].domain`, record.domain); }
    });
    const result = await importIcpRecords(deps.sql, rows, replace);
    await auditAdmin(c, deps, 'icp.import', null, { imported: result.imported, replace });
    return ok(c, result, 200);
  });
  return r;
}
