import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { alertSilenceCreateSchema, alertSilenceListSchema, alertSilencePatchSchema, alertSilenceQuerySchema, alertSilenceSchema, isId, newId } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { authorize, ownerForNew, ownerScope } from '../teams/authorize.js';
import type { Access } from '../teams/roles.js';
import { ownsMonitor } from './alert-policies.db.js';
import { deleteSilence, getSilence, insertSilence, listSilences, updateSilence, type SilenceRow } from './alert-silences.db.js';
import { idParam, ownerOf, READ, sameOwner, TAGS, WRITE } from './route-kit.js';
import { ownerAfterMove } from '../teams/move.js';
import { silenceStatus } from './windows.js';

const params = idParam('asl_01jd3k6w9z4q8r2t7v5x1y3b6c');
const NOT_FOUND = { 404: jsonError('NOT_FOUND: no such silence you can read; MONITOR_NOT_FOUND: the monitor is not of the silence\'s owner (a team silence: that team\'s; a personal one: yours); TEAM_NOT_FOUND: team_id is not a team of yours') };
const FORBIDDEN = { 403: jsonError('FORBIDDEN: the credential lacks the required scope, or your role in the team cannot change its silences (a viewer only reads)') };
const BAD = { 400: jsonError('VALIDATION_FAILED (ends_at must be after starts_at)') };
const list = createRoute({ method: 'get', path: '/', tags: TAGS, security: BEARER, middleware: READ, summary: 'The alert silences you can read, yours and your teams\', latest start first (`status`, `team_id` filter)', request: { query: alertSilenceQuerySchema }, responses: { 200: jsonOk(alertSilenceListSchema, 'the silences'), ...AUTH_ERRORS } });
const create = createRoute({ method: 'post', path: '/', tags: TAGS, security: BEARER, middleware: WRITE, summary: 'Silence one monitor or all of the owner\'s (yours, or the team\'s of team_id) between starts_at and ends_at', request: { body: jsonBody(alertSilenceCreateSchema) }, responses: { 201: jsonOk(alertSilenceSchema, 'the silence'), ...BAD, ...NOT_FOUND, ...AUTH_ERRORS, ...FORBIDDEN } });
const readOne = createRoute({ method: 'get', path: '/{id}', tags: TAGS, security: BEARER, middleware: READ, summary: 'One alert silence', request: { params }, responses: { 200: jsonOk(alertSilenceSchema, 'the silence'), ...NOT_FOUND, ...AUTH_ERRORS } });
const patch = createRoute({ method: 'patch', path: '/{id}', tags: TAGS, security: BEARER, middleware: WRITE, summary: 'Change a silence\'s reason or times (end it now: ends_at = now)', request: { params, body: jsonBody(alertSilencePatchSchema) }, responses: { 200: jsonOk(alertSilenceSchema, 'the silence'), ...BAD, ...NOT_FOUND, ...AUTH_ERRORS, ...FORBIDDEN } });
const remove = createRoute({ method: 'delete', path: '/{id}', tags: TAGS, security: BEARER, middleware: WRITE, summary: 'Delete an alert silence', request: { params }, responses: { 200: jsonOk(z.null(), 'deleted'), ...NOT_FOUND, ...AUTH_ERRORS, ...FORBIDDEN } });

function toSilence(row: SilenceRow, now = new Date()) {
  return {
    id: row.id, user_id: row.user_id, team_id: row.team_id, monitor_id: row.monitor_id, reason: row.reason, starts_at: row.starts_at.toISOString(),
    ends_at: row.ends_at.toISOString(), status: silenceStatus(row, now), created_at: row.created_at.toISOString(),
  };
}

/**
 * `/v1/alert-silences` (docs/api/alerting.md "Silences"): status (upcoming, active, expired) is derived from the time of the request.
 * Every access decides through teams/authorize.ts; a silence's monitor has the silence's own owner.
 */
export function alertSilencesRouter(deps: AppDeps) {
  const r = createRouter();
  const notFound = (id: string) => new ApiError('NOT_FOUND', `no alert silence ${id}`);
  const owned = async (c: Context<AppEnv>, id: string, access: Access) => {
    const row = isId('alert_silence', id) ? await getSilence(deps.sql, id) : null;
    await authorize(c, deps, row && ownerOf(row), access, 'NOT_FOUND', 'alert silence');
    return row!;
  };

  r.openapi(list, async (c) => {
    const { status, team_id } = c.req.valid('query');
    const items = (await listSilences(deps.sql, await ownerScope(c, deps, 'read', team_id))).map((row) => toSilence(row));
    return ok(c, { items: status ? items.filter((s) => s.status === status) : items }, 200);
  });
  r.openapi(create, async (c) => {
    const body = c.req.valid('json');
    const owner = await ownerForNew(c, deps, body.team_id);
    if (body.monitor_id && !(await ownsMonitor(deps.sql, sameOwner(owner), body.monitor_id))) {
      throw new ApiError('MONITOR_NOT_FOUND', `no monitor ${body.monitor_id}`, { fields: [{ path: 'monitor_id', message: 'not one of your monitors' }] });
    }
    const row = await insertSilence(deps.sql, { id: newId('alert_silence'), ...owner, monitor_id: body.monitor_id, reason: body.reason, starts_at: new Date(body.starts_at), ends_at: new Date(body.ends_at) });
    return ok(c, toSilence(row), 201);
  });
  r.openapi(readOne, async (c) => ok(c, toSilence(await owned(c, c.req.valid('param').id, 'read')), 200));
  r.openapi(patch, async (c) => {
    const { id } = c.req.valid('param');
    const body = c.req.valid('json');
    const cur = await owned(c, id, 'write');
    const next = { reason: body.reason ?? cur.reason, starts_at: body.starts_at ? new Date(body.starts_at) : cur.starts_at, ends_at: body.ends_at ? new Date(body.ends_at) : cur.ends_at };
    if (next.ends_at <= next.starts_at) throw new ApiError('VALIDATION_FAILED', 'ends_at: must be after starts_at', { fields: [{ path: 'ends_at', message: 'must be after starts_at' }] });
    // A move (team_id: docs/api/teams.md "Moving a resource"): a silence of one monitor moves only with a monitor of the new owner.
    const { owner, moved } = await ownerAfterMove(c, deps, ownerOf(cur), body.team_id, 'alert silence');
    if (moved && cur.monitor_id && !(await ownsMonitor(deps.sql, sameOwner(owner), cur.monitor_id))) {
      throw new ApiError('MONITOR_NOT_FOUND', `no monitor ${cur.monitor_id} of the new owner`, { fields: [{ path: 'team_id', message: 'the silence\'s monitor is not one of the new owner\'s' }] });
    }
    const row = await updateSilence(deps.sql, id, { ...next, team_id: moved ? owner.team_id : undefined });
    if (!row) throw notFound(id);
    return ok(c, toSilence(row), 200);
  });
  r.openapi(remove, async (c) => {
    const { id } = c.req.valid('param');
    await owned(c, id, 'write');
    if (!(await deleteSilence(deps.sql, id))) throw notFound(id);
    return ok(c, null, 200);
  });
  return r;
}
