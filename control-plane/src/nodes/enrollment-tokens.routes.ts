import { createRoute, z } from '@hono/zod-openapi';
import {
  enrollmentTokenCreateSchema, enrollmentTokenCreatedSchema, enrollmentTokenListSchema, maskSecret, newId, newSecret,
  type EnrollmentTokenCreate, type EnrollmentTokenItem,
} from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { deleteEnrollmentToken, getEnrollmentToken, insertEnrollmentToken, listEnrollmentTokens, type EnrollmentTokenRow } from './enrollment-tokens.db.js';
import { authorize, ownerForNew, ownerScope } from '../teams/authorize.js';
import { ApiError } from '../errors.js';
import { cityById } from './geo/cities.js';
import { isKnownProvince } from './geo/provinces.js';
import { secretHash } from './secrets.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { requireAuth } from '../middleware/auth.js';
import { createRouter } from '../http/router.js';

const read = [requireAuth({ scope: 'read' })];
const write = [requireAuth({ scope: 'write' })];
const idParam = z.object({ id: z.string().max(64).openapi({ param: { name: 'id', in: 'path' }, example: 'et_01jd3k6w9z4q8r2t7v5x1y3b6c' }) });

const create = createRoute({
  method: 'post', path: '/', tags: ['nodes'], security: BEARER, middleware: write,
  summary: 'Create a single-use node enrollment token; the ent_ token is returned once',
  request: { body: jsonBody(enrollmentTokenCreateSchema) },
  responses: {
    ...AUTH_ERRORS,
    201: jsonOk(enrollmentTokenCreatedSchema, '{id, token, expires_at}'),
    400: jsonError('VALIDATION_FAILED: label, country, province whitelist, city dictionary, operator, shared'),
    403: jsonError('FORBIDDEN: the credential lacks the required scope, or team_id names a team where the caller\'s role cannot create (viewer)'),
    404: jsonError('TEAM_NOT_FOUND: team_id names a team the caller is not a member of'),
  },
});
const list = createRoute({
  method: 'get', path: '/', tags: ['nodes'], security: BEARER, middleware: read,
  summary: "The enrollment tokens the caller can read (its own and its teams'), newest first: {tokens[]} with masked previews",
  responses: { 200: jsonOk(enrollmentTokenListSchema, '{tokens[]}'), ...AUTH_ERRORS },
});
const revoke = createRoute({
  method: 'delete', path: '/{id}', tags: ['nodes'], security: BEARER, middleware: write,
  summary: 'Revoke (delete) an enrollment token; a node it already enrolled is unaffected',
  request: { params: idParam },
  responses: { ...AUTH_ERRORS, 200: jsonOk(z.null(), 'revoked'), 403: jsonError('FORBIDDEN: the credential lacks the required scope, or a team\'s token and a viewer'), 404: jsonError('NOT_FOUND'), },
});

function fieldError(path: string, message: string): ApiError {
  return new ApiError('VALIDATION_FAILED', `${path}: ${message}`, { fields: [{ path, message }], in: 'json' });
}

/**
 * Dictionary checks of docs/api/nodes.md on a shape-valid body, filling country/province from the city or
 * province when omitted: the province must be whitelisted and in the country; the city must exist
 * and lie in the country and province. @throws ApiError VALIDATION_FAILED naming the field
 */
export function checkDeclaredLocation(body: EnrollmentTokenCreate): { country_code: string | null; declared_province: string | null; city_id: number | null } {
  let country = body.country_code ?? null;
  let province = body.declared_province ?? null;
  if (province !== null) {
    if (!isKnownProvince(province)) throw fieldError('declared_province', `${province} is not a known ISO 3166-2 code`);
    if (country !== null && !province.startsWith(`${country}-`)) throw fieldError('declared_province', `${province} is not in ${country}`);
    country ??= province.slice(0, 2);
  }
  if (body.city_id !== undefined) {
    const city = cityById(body.city_id);
    if (!city) throw fieldError('city_id', `${body.city_id} is not in the city dictionary (GET /v1/geo/cities)`);
    if (country !== null && city.country !== country) throw fieldError('city_id', `${city.name} is not in ${country}`);
    if (province !== null && city.province !== province) throw fieldError('city_id', `${city.name} is not in ${province}`);
    country ??= city.country;
    province ??= city.province;
  }
  return { country_code: country, declared_province: province, city_id: body.city_id ?? null };
}

function toItem(row: EnrollmentTokenRow): EnrollmentTokenItem {
  return {
    id: row.id, label: row.label, status: row.status, created_at: row.created_at.toISOString(),
    expires_at: row.expires_at.toISOString(), preview: row.preview, consumed_node_id: row.consumed_node_id,
    country_code: row.country_code, declared_province: row.declared_province, city_id: row.city_id,
    operator: row.operator as EnrollmentTokenItem['operator'], shared: row.shared, team_id: row.team_id,
  };
}

/** `/v1/enrollment-tokens`: create (ent_ once, only a hash stored), list, revoke (docs/api/nodes.md; paths ours, docs/api/nodes.md). */
export function enrollmentTokensRouter(deps: AppDeps) {
  const r = createRouter();

  r.openapi(create, async (c) => {
    const body = c.req.valid('json');
    const user_id = c.get('principal')!.user_id;
    if (body.sponsor_user_id !== undefined && body.sponsor_user_id !== user_id) {
      throw new ApiError('FORBIDDEN', "sponsor_user_id: only the caller's own user id is accepted",
        { fields: [{ path: 'sponsor_user_id', message: "only the caller's own user id is accepted" }] });
    }
    const owner = await ownerForNew(c, deps, body.team_id);
    const location = checkDeclaredLocation(body);
    const token = newSecret('enrollment_token');
    const row = await insertEnrollmentToken(deps.sql, {
      id: newId('enrollment_token_record'), user_id, team_id: owner.team_id, token_hash: secretHash(token), preview: maskSecret(token),
      label: body.label ?? null, ...location, operator: body.operator ?? null, sponsor_user_id: body.sponsor_user_id ?? null,
      ttl_hours: body.ttl_hours ?? deps.config.enrollment_token_ttl_hours,
      // Owner-only unless the owner says otherwise: enrolling a machine does not volunteer it for
      // every other account's checks (docs/api/nodes.md "Sharing").
      shared: body.shared ?? false,
    });
    return ok(c, { id: row.id, token, expires_at: row.expires_at.toISOString() }, 201);
  });

  r.openapi(list, async (c) => {
    const rows = await listEnrollmentTokens(deps.sql, await ownerScope(c, deps));
    return ok(c, { tokens: rows.map(toItem) }, 200);
  });

  r.openapi(revoke, async (c) => {
    const { id } = c.req.valid('param');
    await authorize(c, deps, await getEnrollmentToken(deps.sql, id), 'write', 'NOT_FOUND', 'enrollment token');
    if (!(await deleteEnrollmentToken(deps.sql, id))) throw new ApiError('NOT_FOUND', 'no such enrollment token');
    return ok(c, null, 200);
  });

  return r;
}
