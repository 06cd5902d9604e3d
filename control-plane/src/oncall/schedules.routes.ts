import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import {
  isId, oncallNowSchema, oncallOverrideCreateSchema, oncallOverrideSchema, oncallScheduleCreateSchema, oncallSchedulePatchSchema, oncallScheduleSchema,
  type OncallOverride, type OncallRotation, type OncallSchedule,
} from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { requireAuth } from '../middleware/auth.js';
import { authorize, ownerForNew, ownerScope } from '../teams/authorize.js';
import { onCallAt, participantsOf } from './rotation.js';
import {
  deleteOverride, deleteSchedule, getSchedule, insertOverride, insertSchedule, listOverrides, listSchedules, teamMembersAmong, updateSchedule,
  type OverrideRow, type ScheduleRow,
} from './schedules.db.js';

const read = [requireAuth({ scope: 'read' })];
const write = [requireAuth({ scope: 'write' })];
const TAGS = ['oncall'];
const idParam = z.object({ id: z.string().max(64).openapi({ param: { name: 'id', in: 'path' }, example: 'ocs_01jd3k6w9z4q8r2t7v5x1y3b6c' }) });
const overrideParam = idParam.extend({ override_id: z.string().max(64).openapi({ param: { name: 'override_id', in: 'path' }, example: 'oco_01jd3k6w9z4q8r2t7v5x1y3b6c' }) });
const NOT_FOUND = { 404: jsonError('ONCALL_SCHEDULE_NOT_FOUND (no such schedule in your teams), TEAM_NOT_FOUND, ONCALL_PARTICIPANT_NOT_FOUND') };
const BAD = { 400: jsonError('VALIDATION_FAILED: a field or a rotation is invalid') };
const MEMBER = { 422: jsonError('ONCALL_TEAM_MEMBER_REQUIRED: a participant or the override\'s user is not a member of the schedule\'s team') };
const FORBIDDEN = { 403: jsonError('FORBIDDEN: your role in the team cannot change its schedules (viewer)') };
const listSchema = z.object({ items: z.array(oncallScheduleSchema) });
const overrideListSchema = z.object({ items: z.array(oncallOverrideSchema) });

const list = createRoute({
  method: 'get', path: '/', tags: TAGS, security: BEARER, middleware: read, summary: 'The on-call schedules of your teams, oldest first (`team_id` filters)',
  request: { query: z.object({ team_id: z.string().max(64).optional() }) }, responses: { 200: jsonOk(listSchema, 'the schedules'), ...AUTH_ERRORS },
});
const create = createRoute({
  method: 'post', path: '/', tags: TAGS, security: BEARER, middleware: write, summary: 'Create a team\'s on-call schedule: time zone and rotations',
  request: { body: jsonBody(oncallScheduleCreateSchema) },
  responses: { 201: jsonOk(oncallScheduleSchema, 'the schedule'), ...BAD, ...FORBIDDEN, ...NOT_FOUND, 409: jsonError('ONCALL_SCHEDULE_NAME_TAKEN'), ...MEMBER, ...AUTH_ERRORS },
});
const readOne = createRoute({
  method: 'get', path: '/{id}', tags: TAGS, security: BEARER, middleware: read, summary: 'One on-call schedule',
  request: { params: idParam }, responses: { 200: jsonOk(oncallScheduleSchema, 'the schedule'), ...NOT_FOUND, ...AUTH_ERRORS },
});
const patch = createRoute({
  method: 'patch', path: '/{id}', tags: TAGS, security: BEARER, middleware: write, summary: 'Change a schedule; `rotations`, when given, replaces all',
  request: { params: idParam, body: jsonBody(oncallSchedulePatchSchema) },
  responses: { 200: jsonOk(oncallScheduleSchema, 'the schedule'), ...BAD, ...FORBIDDEN, ...NOT_FOUND, 409: jsonError('ONCALL_SCHEDULE_NAME_TAKEN'), ...MEMBER, ...AUTH_ERRORS },
});
const remove = createRoute({
  method: 'delete', path: '/{id}', tags: TAGS, security: BEARER, middleware: write, summary: 'Delete a schedule (not while an escalation level pages it)',
  request: { params: idParam },
  responses: { 200: jsonOk(z.null(), 'deleted'), ...FORBIDDEN, ...NOT_FOUND, 409: jsonError('CONFLICT: escalation levels page it (details.policy_ids)'), ...AUTH_ERRORS },
});
const onCall = createRoute({
  method: 'get', path: '/{id}/on-call', tags: TAGS, security: BEARER, middleware: read, summary: 'Who is on call at `at` (default now); an override wins',
  request: { params: idParam, query: z.object({ at: z.iso.datetime({ offset: true }).optional() }) },
  responses: { 200: jsonOk(oncallNowSchema, 'who is on call'), ...BAD, ...NOT_FOUND, ...AUTH_ERRORS },
});
const overrides = createRoute({
  method: 'get', path: '/{id}/overrides', tags: TAGS, security: BEARER, middleware: read, summary: 'A schedule\'s overrides not yet over, by start',
  request: { params: idParam }, responses: { 200: jsonOk(overrideListSchema, 'the overrides'), ...NOT_FOUND, ...AUTH_ERRORS },
});
const addOverride = createRoute({
  method: 'post', path: '/{id}/overrides', tags: TAGS, security: BEARER, middleware: write, summary: 'Put a team member on call from starts_at to ends_at',
  request: { params: idParam, body: jsonBody(oncallOverrideCreateSchema) },
  responses: { 201: jsonOk(oncallOverrideSchema, 'the override'), ...BAD, ...FORBIDDEN, ...NOT_FOUND, ...MEMBER, ...AUTH_ERRORS },
});
const removeOverride = createRoute({
  method: 'delete', path: '/{id}/overrides/{override_id}', tags: TAGS, security: BEARER, middleware: write, summary: 'Delete an override',
  request: { params: overrideParam }, responses: { 200: jsonOk(z.null(), 'deleted'), ...FORBIDDEN, ...NOT_FOUND, ...AUTH_ERRORS },
});

/** A schedule row as the API returns it. */
export function toSchedule(row: ScheduleRow): OncallSchedule {
  return {
    id: row.id, team_id: row.team_id, name: row.name, time_zone: row.time_zone, rotations: row.rotations,
    created_by: row.created_by, created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString(),
  };
}

/** An override row as the API returns it. */
export function toOverride(row: OverrideRow): OncallOverride {
  return {
    id: row.id, schedule_id: row.schedule_id, user_id: row.user_id, replaces_user_id: row.replaces_user_id,
    starts_at: row.starts_at.toISOString(), ends_at: row.ends_at.toISOString(), created_by: row.created_by, created_at: row.created_at.toISOString(),
  };
}

/**
 * `/v1/oncall/schedules` (docs/api/teams.md "On-call schedules"): a team's schedules, their
 * overrides and who is on call. Every access goes through teams/authorize.ts: a viewer reads, a
 * member writes; another team's schedule is 404 ONCALL_SCHEDULE_NOT_FOUND. Participants and
 * override users must be team members (422 ONCALL_TEAM_MEMBER_REQUIRED naming the field).
 */
export function oncallSchedulesRouter(deps: AppDeps) {
  const r = createRouter();

  /** The schedule `id` if the caller may `access` it. @throws ONCALL_SCHEDULE_NOT_FOUND, FORBIDDEN */
  async function scheduleFor(c: Context<AppEnv>, id: string, access: 'read' | 'write'): Promise<ScheduleRow> {
    const row = isId('oncall_schedule', id) ? await getSchedule(deps.sql, id) : null;
    await authorize(c, deps, row && { user_id: row.created_by ?? '', team_id: row.team_id }, access, 'ONCALL_SCHEDULE_NOT_FOUND', 'on-call schedule');
    return row!;
  }

  /** Every id at `paths` must be a member of `team_id`. @throws ONCALL_TEAM_MEMBER_REQUIRED naming the fields */
  async function requireMembers(team_id: string, refs: Array<{ id: string; path: string }>): Promise<void> {
    const members = await teamMembersAmong(deps.sql, team_id, [...new Set(refs.map((x) => x.id))]);
    const outside = refs.filter((x) => !members.has(x.id));
    if (outside.length > 0) {
      throw new ApiError('ONCALL_TEAM_MEMBER_REQUIRED', `${outside[0]!.id} is not a member of team ${team_id}`,
        { fields: outside.map((x) => ({ path: x.path, message: 'not a member of the schedule\'s team' })) });
    }
  }
  const rotationRefs = (rotations: OncallRotation[]) => rotations.flatMap((rot, ri) => rot.participants.map((id, i) => ({ id, path: `rotations[${ri}].participants[${i}]` })));
  const nameTaken = (name: string) => new ApiError('ONCALL_SCHEDULE_NAME_TAKEN', `the team already has an on-call schedule named "${name}"`, { fields: [{ path: 'name', message: 'already used in this team' }] });

  r.openapi(list, async (c) => {
    const { team_id } = c.req.valid('query');
    const scope = await ownerScope(c, deps, 'read', team_id);
    return ok(c, { items: (await listSchedules(deps.sql, scope.team_ids)).map(toSchedule) }, 200);
  });

  r.openapi(create, async (c) => {
    const body = c.req.valid('json');
    const owner = await ownerForNew(c, deps, body.team_id);
    await requireMembers(owner.team_id!, rotationRefs(body.rotations));
    const row = await insertSchedule(deps.sql, { team_id: owner.team_id!, name: body.name, time_zone: body.time_zone, rotations: body.rotations, created_by: owner.user_id });
    if (row === 'name_taken') throw nameTaken(body.name);
    return ok(c, toSchedule(row), 201);
  });

  r.openapi(readOne, async (c) => ok(c, toSchedule(await scheduleFor(c, c.req.valid('param').id, 'read')), 200));

  r.openapi(patch, async (c) => {
    const body = c.req.valid('json');
    const row = await scheduleFor(c, c.req.valid('param').id, 'write');
    const merged = { name: body.name ?? row.name, time_zone: body.time_zone ?? row.time_zone, rotations: body.rotations ?? row.rotations };
    if (body.rotations) await requireMembers(row.team_id, rotationRefs(body.rotations));
    const updated = await updateSchedule(deps.sql, row.id, merged);
    if (updated === 'name_taken') throw nameTaken(merged.name);
    if (updated === 'missing') throw new ApiError('ONCALL_SCHEDULE_NOT_FOUND', 'on-call schedule not found');
    return ok(c, toSchedule(updated), 200);
  });

  r.openapi(remove, async (c) => {
    const row = await scheduleFor(c, c.req.valid('param').id, 'write');
    const result = await deleteSchedule(deps.sql, row.id);
    if (result === 'missing') throw new ApiError('ONCALL_SCHEDULE_NOT_FOUND', 'on-call schedule not found');
    if (result !== 'ok') throw new ApiError('CONFLICT', `escalation levels of ${result.policy_ids.length} alert policies page this schedule: remove it from them first`, { policy_ids: result.policy_ids });
    return ok(c, null, 200);
  });

  r.openapi(onCall, async (c) => {
    const row = await scheduleFor(c, c.req.valid('param').id, 'read');
    const q = c.req.valid('query');
    const at = q.at ? new Date(q.at) : new Date();
    return ok(c, onCallAt(row, await listOverrides(deps.sql, row.id, at), at), 200);
  });

  r.openapi(overrides, async (c) => {
    const row = await scheduleFor(c, c.req.valid('param').id, 'read');
    return ok(c, { items: (await listOverrides(deps.sql, row.id, new Date())).map(toOverride) }, 200);
  });

  r.openapi(addOverride, async (c) => {
    const body = c.req.valid('json');
    const row = await scheduleFor(c, c.req.valid('param').id, 'write');
    if (body.replaces_user_id !== null && !participantsOf(row.rotations).has(body.replaces_user_id)) {
      throw new ApiError('ONCALL_PARTICIPANT_NOT_FOUND', `${body.replaces_user_id} is not a participant of this schedule's rotations`,
        { fields: [{ path: 'replaces_user_id', message: 'not a participant of the schedule' }] });
    }
    await requireMembers(row.team_id, [{ id: body.user_id, path: 'user_id' }]);
    const created = await insertOverride(deps.sql, {
      schedule_id: row.id, user_id: body.user_id, replaces_user_id: body.replaces_user_id,
      starts_at: new Date(body.starts_at), ends_at: new Date(body.ends_at), created_by: c.get('principal')!.user_id,
    });
    return ok(c, toOverride(created), 201);
  });

  r.openapi(removeOverride, async (c) => {
    const { id, override_id } = c.req.valid('param');
    const row = await scheduleFor(c, id, 'write');
    if (!isId('oncall_override', override_id) || !(await deleteOverride(deps.sql, row.id, override_id))) {
      throw new ApiError('ONCALL_PARTICIPANT_NOT_FOUND', `no override ${override_id} on this schedule`);
    }
    return ok(c, null, 200);
  });

  return r;
}
