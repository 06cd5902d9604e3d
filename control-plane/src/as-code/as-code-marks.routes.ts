import { createRoute, z } from '@hono/zod-openapi';
import { AS_CODE_KINDS, asCodeMarkListSchema, asCodeMarkPutSchema, asCodeMarkQuerySchema, asCodeMarkSchema } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { requireAuth } from '../middleware/auth.js';
import { actorOf } from '../teams/authorize.js';
import { deleteMark, listMarks, ownsResource, upsertMark, type AsCodeMarkRow } from './as-code-marks.db.js';

const TAGS = ['as-code'];
const READ = [requireAuth({ scope: 'read' })];
const WRITE = [requireAuth({ scope: 'write' })];
const params = z.object({
  kind: z.enum(AS_CODE_KINDS).openapi({ param: { name: 'kind', in: 'path' }, example: 'monitor' }),
  resource_id: z.string().min(1).max(64).openapi({ param: { name: 'resource_id', in: 'path' }, example: 'm_01jd3k6w9z4q8r2t7v5x1y3b6c' }),
});
const NOT_FOUND = { 404: jsonError('NOT_FOUND: no such resource of yours (personal, not a team\'s)') };
const list = createRoute({ method: 'get', path: '/marks', tags: TAGS, security: BEARER, middleware: READ, summary: 'Your resources applied from monitoring-as-code files, with their file and stable name', request: { query: asCodeMarkQuerySchema }, responses: { 200: jsonOk(asCodeMarkListSchema, 'the marks'), ...AUTH_ERRORS } });
const put = createRoute({ method: 'put', path: '/marks/{kind}/{resource_id}', tags: TAGS, security: BEARER, middleware: WRITE, summary: 'Mark one of your resources as applied from a file (what `vantage apply` does)', request: { params, body: jsonBody(asCodeMarkPutSchema) }, responses: { 200: jsonOk(asCodeMarkSchema, 'the mark'), 400: jsonError('VALIDATION_FAILED'), ...NOT_FOUND, ...AUTH_ERRORS } });
const remove = createRoute({ method: 'delete', path: '/marks/{kind}/{resource_id}', tags: TAGS, security: BEARER, middleware: WRITE, summary: 'Unmark a resource (it is no longer managed by files; prune will not delete it)', request: { params }, responses: { 200: jsonOk(z.null(), 'unmarked (also when there was no mark)'), ...AUTH_ERRORS } });

function toMark(row: AsCodeMarkRow) {
  return { kind: row.kind, resource_id: row.resource_id, key: row.key, source_file: row.source_file, updated_at: row.updated_at.toISOString() };
}

/**
 * `/v1/as-code` (docs/api/as-code.md "Marks"): marks are personal; only a personal resource of
 * the caller can be marked (another's, or a team's, is 404).
 */
export function asCodeMarksRouter(deps: AppDeps) {
  const r = createRouter();
  r.openapi(list, async (c) => {
    const actor = await actorOf(c, deps);
    return ok(c, { items: (await listMarks(deps.sql, actor.user_id, c.req.valid('query').kind ?? null)).map(toMark) }, 200);
  });
  r.openapi(put, async (c) => {
    const actor = await actorOf(c, deps);
    const { kind, resource_id } = c.req.valid('param');
    if (!(await ownsResource(deps.sql, actor.user_id, kind, resource_id))) throw new ApiError('NOT_FOUND', `no ${kind} ${resource_id}`);
    const b = c.req.valid('json');
    return ok(c, toMark(await upsertMark(deps.sql, { user_id: actor.user_id, kind, resource_id, key: b.key, source_file: b.source_file })), 200);
  });
  r.openapi(remove, async (c) => {
    const actor = await actorOf(c, deps);
    const { kind, resource_id } = c.req.valid('param');
    await deleteMark(deps.sql, actor.user_id, kind, resource_id);
    return ok(c, null, 200);
  });
  return r;
}
