import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import {
  alertOwnerQuerySchema, isId, maintenanceWindowCreateSchema, maintenanceWindowListSchema, maintenanceWindowPatchSchema, maintenanceWindowSchema, maintenanceWindowWholeSchema, newId,
} from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter, validationError } from '../http/router.js';
import { authorize, ownerForNew, ownerScope, type Owner } from '../teams/authorize.js';
import type { Access } from '../teams/roles.js';
import { deleteWindow, getWindow, insertWindow, listWindows, ownedScopeIds, updateWindow, type MaintenanceWindowRow, type WindowFields } from './maintenance-windows.db.js';
import { ownerAfterMove } from '../teams/move.js';
import { idParam, ownerOf, READ, sameOwner, TAGS, WRITE } from './route-kit.js';

const params = idParam('mmw_01jd3k6w9z4q8r2t7v5x1y3b6c');
const NOT_FOUND = { 404: jsonError('NOT_FOUND: no such window you can read, or a scope id that is not a group of the window\'s owner (MONITOR_NOT_FOUND for a monitor); TEAM_NOT_FOUND: team_id is not a team of yours') };
const FORBIDDEN = { 403: jsonError('FORBIDDEN: the credential lacks the required scope, or your role in the team cannot change its maintenance windows (a viewer only reads)') };
const BAD = { 400: jsonError('VALIDATION_FAILED') };
const list = createRoute({ method: 'get', path: '/', tags: TAGS, security: BEARER, middleware: READ, summary: 'The maintenance windows you can read, yours and your teams\' (`team_id` filters)', request: { query: alertOwnerQuerySchema }, responses: { 200: jsonOk(maintenanceWindowListSchema, 'the windows'), ...AUTH_ERRORS } });
const create = createRoute({ method: 'post', path: '/', tags: TAGS, security: BEARER, middleware: WRITE, summary: 'Create a maintenance window (scope monitor, group, tag or all; optional daily, weekly or monthly recurrence in your time zone)', request: { body: jsonBody(maintenanceWindowCreateSchema) }, responses: { 201: jsonOk(maintenanceWindowSchema, 'the window'), ...BAD, ...NOT_FOUND, ...AUTH_ERRORS, ...FORBIDDEN } });
const readOne = createRoute({ method: 'get', path: '/{id}', tags: TAGS, security: BEARER, middleware: READ, summary: 'One maintenance window', request: { params }, responses: { 200: jsonOk(maintenanceWindowSchema, 'the window'), ...NOT_FOUND, ...AUTH_ERRORS } });
const patch = createRoute({ method: 'patch', path: '/{id}', tags: TAGS, security: BEARER, middleware: WRITE, summary: 'Change a maintenance window (checked whole as it ends up)', request: { params, body: jsonBody(maintenanceWindowPatchSchema) }, responses: { 200: jsonOk(maintenanceWindowSchema, 'the window'), ...BAD, ...NOT_FOUND, ...AUTH_ERRORS, ...FORBIDDEN } });
const remove = createRoute({ method: 'delete', path: '/{id}', tags: TAGS, security: BEARER, middleware: WRITE, summary: 'Delete a maintenance window', request: { params }, responses: { 200: jsonOk(z.null(), 'deleted'), ...NOT_FOUND, ...AUTH_ERRORS, ...FORBIDDEN } });

function toWindow(row: MaintenanceWindowRow) {
  return {
    id: row.id, user_id: row.user_id, team_id: row.team_id, title: row.title, scope_type: row.scope_type, scope_ids: row.scope_ids,
    starts_at: row.starts_at.toISOString(), ends_at: row.ends_at.toISOString(), recurrence: row.recurrence,
    recurrence_until: row.recurrence_until?.toISOString() ?? null, advance_notice_minutes: row.advance_notice_minutes, created_at: row.created_at.toISOString(),
  };
}

/** A window's fields as stored: scope_ids [] for all, tags lower-cased and de-duplicated, recurrence_until null without recurrence. */
function normalise(w: { title: string | null; scope_type: WindowFields['scope_type']; scope_ids: string[]; starts_at: string; ends_at: string; recurrence: WindowFields['recurrence']; recurrence_until: string | null; advance_notice_minutes: number }): WindowFields {
  const ids = w.scope_type === 'all' ? [] : [...new Set(w.scope_type === 'tag' ? w.scope_ids.map((s) => s.toLowerCase()) : w.scope_ids)];
  return {
    title: w.title, scope_type: w.scope_type, scope_ids: ids, starts_at: new Date(w.starts_at), ends_at: new Date(w.ends_at), recurrence: w.recurrence,
    recurrence_until: w.recurrence === 'none' || !w.recurrence_until ? null : new Date(w.recurrence_until), advance_notice_minutes: w.advance_notice_minutes,
  };
}

/** `/v1/maintenance-windows` (docs/api/alerting.md "Maintenance windows"); every access decides through teams/authorize.ts. */
export function maintenanceWindowsRouter(deps: AppDeps) {
  const r = createRouter();
  const notFound = (id: string) => new ApiError('NOT_FOUND', `no maintenance window ${id}`);

  const owned = async (c: Context<AppEnv>, id: string, access: Access) => {
    const row = isId('maintenance_window', id) ? await getWindow(deps.sql, id) : null;
    await authorize(c, deps, row && ownerOf(row), access, 'NOT_FOUND', 'maintenance window');
    return row!;
  };

  /** The scope's monitors or groups must have the window's own owner. */
  async function checkScope(owner: Owner, w: WindowFields): Promise<void> {
    if (w.scope_type !== 'monitor' && w.scope_type !== 'group') return;
    const mine = await ownedScopeIds(deps.sql, sameOwner(owner), w.scope_type, w.scope_ids);
    const missing = w.scope_ids.map((id, i) => ({ id, i })).filter((x) => !mine.has(x.id));
    if (missing.length === 0) return;
    const code = w.scope_type === 'monitor' ? 'MONITOR_NOT_FOUND' : 'NOT_FOUND';
    throw new ApiError(code, `no ${w.scope_type === 'monitor' ? 'monitor' : 'monitor group'} ${missing[0]!.id}`, { fields: missing.map((m) => ({ path: `scope_ids[${m.i}]`, message: `not one of your ${w.scope_type}s` })) });
  }

  r.openapi(list, async (c) => ok(c, { items: (await listWindows(deps.sql, await ownerScope(c, deps, 'read', c.req.valid('query').team_id))).map(toWindow) }, 200));
  r.openapi(create, async (c) => {
    const { team_id, ...body } = c.req.valid('json');
    const owner = await ownerForNew(c, deps, team_id);
    const w = normalise(body);
    await checkScope(owner, w);
    return ok(c, toWindow(await insertWindow(deps.sql, newId('maintenance_window'), owner, w)), 201);
  });
  r.openapi(readOne, async (c) => {
    return ok(c, toWindow(await owned(c, c.req.valid('param').id, 'read')), 200);
  });
  r.openapi(patch, async (c) => {
    const { id } = c.req.valid('param');
    const cur = await owned(c, id, 'write');
    const whole = maintenanceWindowWholeSchema.safeParse({ ...toWindow(cur), ...c.req.valid('json') });
    if (!whole.success) throw validationError(whole.error as never, 'body');
    const w = normalise(whole.data);
    // A move (team_id: docs/api/teams.md "Moving a resource"): its monitors or groups must be the new owner's.
    const { owner, moved } = await ownerAfterMove(c, deps, ownerOf(cur), c.req.valid('json').team_id, 'maintenance window');
    await checkScope(owner, w);
    const row = await updateWindow(deps.sql, id, w, moved ? owner.team_id : undefined);
    if (!row) throw notFound(id);
    return ok(c, toWindow(row), 200);
  });
  r.openapi(remove, async (c) => {
    const { id } = c.req.valid('param');
    await owned(c, id, 'write');
    if (!(await deleteWindow(deps.sql, id))) throw notFound(id);
    return ok(c, null, 200);
  });
  return r;
}
