import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import {
  alertPolicyCreateSchema, alertPolicyListSchema, alertPolicyMuteRule, alertPolicyPatchSchema, alertPolicyQuerySchema, alertPolicySchema, isId,
  type AlertPolicy,
} from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter, validationError } from '../http/router.js';
import { requireAuth } from '../middleware/auth.js';
import { authorize, ownerForNew, ownerScope, type Owner } from '../teams/authorize.js';
import type { Access } from '../teams/roles.js';
import { ownedChannelIds } from './alert-channels.db.js';
import { deletePolicy, getPolicy, insertPolicy, listPolicies, ownedStatusPageIds, ownsMonitor, updatePolicy, type AlertPolicyRow, type PolicyFields } from './alert-policies.db.js';
import { ownerOf, sameOwner } from './route-kit.js';
import { checkPolicyTemplates } from './template-model.js';
import { teamScheduleIds } from '../oncall/schedules.db.js';
import { ownerAfterMove } from '../teams/move.js';

const read = [requireAuth({ scope: 'read' })];
const write = [requireAuth({ scope: 'write' })];
const TAGS = ['alerting'];
const idParam = z.object({ id: z.string().max(64).openapi({ param: { name: 'id', in: 'path' }, example: 'ap_01jd3k6w9z4q8r2t7v5x1y3b6c' }) });
const NOT_FOUND = { 404: jsonError('ALERT_RULE_NOT_FOUND (no such policy you can read), MONITOR_NOT_FOUND or ALERT_CHANNEL_NOT_FOUND (not of the policy\'s owner: a team policy uses only that team\'s monitor and channels, a personal one only yours), TEAM_NOT_FOUND (team_id is not a team of yours), ONCALL_SCHEDULE_NOT_FOUND (a schedule_ids entry is not a schedule of the policy\'s team), STATUS_PAGE_NOT_FOUND (an incident_status_page_ids entry is not a status page of the policy\'s owner)') };
const FORBIDDEN = { 403: jsonError('FORBIDDEN: the credential lacks the required scope, or your role in the team cannot change its policies (a viewer only reads); details team_id, role, required_role') };
const BAD = { 400: jsonError('VALIDATION_FAILED: a field, an escalation level or a template is invalid') };
const CONFLICT = { 409: jsonError('ALERT_RULE_CONFLICT: the monitor already has a policy of that name') };

const list = createRoute({
  method: 'get', path: '/', tags: TAGS, security: BEARER, middleware: read, summary: 'The alert policies you can read, yours and your teams\', oldest first (`monitor_id`, `team_id` filter)',
  request: { query: alertPolicyQuerySchema }, responses: { 200: jsonOk(alertPolicyListSchema, 'the policies'), ...AUTH_ERRORS },
});
const create = createRoute({
  method: 'post', path: '/', tags: TAGS, security: BEARER, middleware: write,
  summary: 'Create an alert policy for one of your monitors: channels, delay, recovery threshold, mute window, templates, escalation levels',
  request: { body: jsonBody(alertPolicyCreateSchema) },
  responses: { 201: jsonOk(alertPolicySchema, 'the policy'), ...BAD, ...NOT_FOUND, ...CONFLICT, ...AUTH_ERRORS, ...FORBIDDEN },
});
const readOne = createRoute({
  method: 'get', path: '/{id}', tags: TAGS, security: BEARER, middleware: read, summary: 'One alert policy',
  request: { params: idParam }, responses: { 200: jsonOk(alertPolicySchema, 'the policy'), ...NOT_FOUND, ...AUTH_ERRORS },
});
const patch = createRoute({
  method: 'patch', path: '/{id}', tags: TAGS, security: BEARER, middleware: write,
  summary: 'Change a policy; escalation_levels, when given, replaces all levels; team_id moves it (its monitor, channels and schedules must then be the new owner\'s)',
  request: { params: idParam, body: jsonBody(alertPolicyPatchSchema) },
  responses: { 200: jsonOk(alertPolicySchema, 'the updated policy'), ...BAD, ...NOT_FOUND, ...CONFLICT, ...AUTH_ERRORS, ...FORBIDDEN },
});
const remove = createRoute({
  method: 'delete', path: '/{id}', tags: TAGS, security: BEARER, middleware: write, summary: 'Delete an alert policy',
  request: { params: idParam }, responses: { 200: jsonOk(z.null(), 'deleted'), ...NOT_FOUND, ...AUTH_ERRORS, ...FORBIDDEN },
});

/** A policy row as the API returns it. */
export function toPolicy(row: AlertPolicyRow): AlertPolicy {
  return {
    id: row.id, user_id: row.user_id, team_id: row.team_id, name: row.name, monitor_id: row.monitor_id, channel_ids: row.channel_ids, enabled: row.enabled,
    delay_s: row.delay_s, recovery_n: row.recovery_n, mute_start: row.mute_start, mute_end: row.mute_end,
    title_template: row.title_template, body_template: row.body_template, escalation_levels: row.escalation_levels,
    fire_on_degraded: row.fire_on_degraded, notify_on_no_data: row.notify_on_no_data, incident_status_page_ids: row.incident_status_page_ids, created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString(),
  };
}

/**
 * `/v1/alert-policies` (docs/api/alerting.md "Policies"): list, create, read, patch, delete.
 * Every access decides through teams/authorize.ts (another account's or team's policy is 404
 * ALERT_RULE_NOT_FOUND, a viewer's change 403). The monitor and every channel must have the
 * policy's own owner (MONITOR_NOT_FOUND, ALERT_CHANNEL_NOT_FOUND naming the field, as for unknown
 * ids); templates must compile.
 */
export function alertPoliciesRouter(deps: AppDeps) {
  const r = createRouter();
  const notFound = (id: string) => new ApiError('ALERT_RULE_NOT_FOUND', `no alert policy ${id}`);
  const conflict = (f: PolicyFields) => new ApiError('ALERT_RULE_CONFLICT', `monitor ${f.monitor_id} already has an alert policy named "${f.name}"`, { fields: [{ path: 'name', message: 'already used on this monitor' }] });

  /** The policy `id` once the caller may `access` it (404 / 403 otherwise). */
  async function owned(c: Context<AppEnv>, id: string, access: Access): Promise<AlertPolicyRow> {
    const row = isId('alert_policy', id) ? await getPolicy(deps.sql, id) : null;
    await authorize(c, deps, row && ownerOf(row), access, 'ALERT_RULE_NOT_FOUND', 'alert policy');
    return row!;
  }

  /** Check what the body refers to (all of `owner`'s own) and its templates. */
  async function check(owner: Owner, f: PolicyFields): Promise<void> {
    if (!(await ownsMonitor(deps.sql, sameOwner(owner), f.monitor_id))) {
      throw new ApiError('MONITOR_NOT_FOUND', `no monitor ${f.monitor_id}`, { fields: [{ path: 'monitor_id', message: 'not one of your monitors' }] });
    }
    const refs = [
      ...f.channel_ids.map((id, i) => ({ id, path: `channel_ids[${i}]` })),
      ...f.escalation_levels.flatMap((l, li) => l.channel_ids.map((id, i) => ({ id, path: `escalation_levels[${li}].channel_ids[${i}]` }))),
    ];
    const mine = await ownedChannelIds(deps.sql, sameOwner(owner), [...new Set(refs.map((x) => x.id))]);
    const missing = refs.filter((x) => !mine.has(x.id));
    if (missing.length > 0) {
      throw new ApiError('ALERT_CHANNEL_NOT_FOUND', `no alert channel ${missing[0]!.id}`, { fields: missing.map((m) => ({ path: m.path, message: 'not one of your alert channels' })) });
    }
    // Escalation levels page on-call schedules of the policy's own team only (docs/api/teams.md "On-call schedules").
    const schedule_refs = f.escalation_levels.flatMap((l, li) => l.schedule_ids.map((id, i) => ({ id, path: `escalation_levels[${li}].schedule_ids[${i}]` })));
    const schedules = await teamScheduleIds(deps.sql, owner.team_id, [...new Set(schedule_refs.map((x) => x.id))]);
    const unknown = schedule_refs.filter((x) => !schedules.has(x.id));
    if (unknown.length > 0) {
      throw new ApiError('ONCALL_SCHEDULE_NOT_FOUND', `no on-call schedule ${unknown[0]!.id} in the policy's team`, { fields: unknown.map((m) => ({ path: m.path, message: 'not a schedule of the policy\'s team' })) });
    }
    const pages = await ownedStatusPageIds(deps.sql, sameOwner(owner), f.incident_status_page_ids);
    const pageMissing = f.incident_status_page_ids.findIndex((id) => !pages.has(id));
    if (pageMissing >= 0) {
      throw new ApiError('STATUS_PAGE_NOT_FOUND', `no status page ${f.incident_status_page_ids[pageMissing]}`, { fields: [{ path: `incident_status_page_ids[${pageMissing}]`, message: 'not one of the policy owner\'s status pages' }] });
    }
    checkPolicyTemplates(f);
  }

  r.openapi(list, async (c) => {
    const { monitor_id, team_id } = c.req.valid('query');
    return ok(c, { items: (await listPolicies(deps.sql, await ownerScope(c, deps, 'read', team_id), monitor_id)).map(toPolicy) }, 200);
  });

  r.openapi(create, async (c) => {
    const { team_id, ...body } = c.req.valid('json');
    const owner = await ownerForNew(c, deps, team_id);
    await check(owner, body);
    const id = await insertPolicy(deps.sql, owner, body);
    if (id === 'conflict') throw conflict(body);
    return ok(c, toPolicy((await getPolicy(deps.sql, id))!), 201);
  });

  r.openapi(readOne, async (c) => {
    return ok(c, toPolicy(await owned(c, c.req.valid('param').id, 'read')), 200);
  });

  r.openapi(patch, async (c) => {
    const { id } = c.req.valid('param');
    const body = c.req.valid('json');
    const row = await owned(c, id, 'write');
    const merged: PolicyFields = {
      name: body.name ?? row.name, monitor_id: body.monitor_id ?? row.monitor_id, channel_ids: body.channel_ids ?? row.channel_ids,
      enabled: body.enabled ?? row.enabled, delay_s: body.delay_s ?? row.delay_s, recovery_n: body.recovery_n ?? row.recovery_n,
      mute_start: body.mute_start !== undefined ? body.mute_start : row.mute_start, mute_end: body.mute_end !== undefined ? body.mute_end : row.mute_end,
      title_template: body.title_template !== undefined ? body.title_template : row.title_template,
      body_template: body.body_template !== undefined ? body.body_template : row.body_template,
      fire_on_degraded: body.fire_on_degraded ?? row.fire_on_degraded,
      notify_on_no_data: body.notify_on_no_data ?? row.notify_on_no_data,
      incident_status_page_ids: body.incident_status_page_ids ?? row.incident_status_page_ids,
      escalation_levels: body.escalation_levels ?? row.escalation_levels.map(({ level_index, after_seconds, channel_ids, schedule_ids }) => ({ level_index, after_seconds, channel_ids, schedule_ids })),
    };
    const mute = z.object({ mute_start: z.string().nullable(), mute_end: z.string().nullable() }).superRefine(alertPolicyMuteRule).safeParse(merged);
    if (!mute.success) throw validationError(mute.error as never, 'body');
    // A move (team_id: docs/api/teams.md "Moving a resource"): what it refers to must be the new owner's.
    const { owner, moved } = await ownerAfterMove(c, deps, ownerOf(row), body.team_id, 'alert policy');
    await check(owner, merged);
    const result = await updatePolicy(deps.sql, id, merged, moved ? owner.team_id : undefined);
    if (result === 'missing') throw notFound(id);
    if (result === 'conflict') throw conflict(merged);
    return ok(c, toPolicy((await getPolicy(deps.sql, id))!), 200);
  });

  r.openapi(remove, async (c) => {
    const { id } = c.req.valid('param');
    await owned(c, id, 'write');
    if (!(await deletePolicy(deps.sql, id))) throw notFound(id);
    return ok(c, null, 200);
  });

  return r;
}
