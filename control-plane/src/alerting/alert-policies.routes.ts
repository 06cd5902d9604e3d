import { createRoute, z } from '@hono/zod-openapi';
import {
  alertPolicyCreateSchema, alertPolicyListSchema, alertPolicyMuteRule, alertPolicyPatchSchema, alertPolicyQuerySchema, alertPolicySchema, isId,
  type AlertPolicy,
} from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter, validationError } from '../http/router.js';
import { requireAuth } from '../middleware/auth.js';
import { ownedChannelIds } from './alert-channels.db.js';
import { deletePolicy, getPolicy, insertPolicy, listPolicies, ownsMonitor, updatePolicy, type AlertPolicyRow, type PolicyFields } from './alert-policies.db.js';
import { checkPolicyTemplates } from './template-model.js';

const read = [requireAuth({ scope: 'read' })];
const write = [requireAuth({ scope: 'write' })];
const TAGS = ['alerting'];
const idParam = z.object({ id: z.string().max(64).openapi({ param: { name: 'id', in: 'path' }, example: 'ap_01jd3k6w9z4q8r2t7v5x1y3b6c' }) });
const NOT_FOUND = { 404: jsonError('ALERT_RULE_NOT_FOUND (no such policy of yours), MONITOR_NOT_FOUND or ALERT_CHANNEL_NOT_FOUND (not yours)') };
const BAD = { 400: jsonError('VALIDATION_FAILED: a field, an escalation level or a template is invalid') };
const CONFLICT = { 409: jsonError('ALERT_RULE_CONFLICT: the monitor already has a policy of that name') };

const list = createRoute({
  method: 'get', path: '/', tags: TAGS, security: BEARER, middleware: read, summary: 'Your alert policies, oldest first (`monitor_id` filters)',
  request: { query: alertPolicyQuerySchema }, responses: { 200: jsonOk(alertPolicyListSchema, 'the policies'), ...AUTH_ERRORS },
});
const create = createRoute({
  method: 'post', path: '/', tags: TAGS, security: BEARER, middleware: write,
  summary: 'Create an alert policy for one of your monitors: channels, delay, recovery threshold, mute window, templates, escalation levels',
  request: { body: jsonBody(alertPolicyCreateSchema) },
  responses: { 201: jsonOk(alertPolicySchema, 'the policy'), ...BAD, ...NOT_FOUND, ...CONFLICT, ...AUTH_ERRORS },
});
const readOne = createRoute({
  method: 'get', path: '/{id}', tags: TAGS, security: BEARER, middleware: read, summary: 'One alert policy',
  request: { params: idParam }, responses: { 200: jsonOk(alertPolicySchema, 'the policy'), ...NOT_FOUND, ...AUTH_ERRORS },
});
const patch = createRoute({
  method: 'patch', path: '/{id}', tags: TAGS, security: BEARER, middleware: write,
  summary: 'Change a policy; escalation_levels, when given, replaces all levels',
  request: { params: idParam, body: jsonBody(alertPolicyPatchSchema) },
  responses: { 200: jsonOk(alertPolicySchema, 'the updated policy'), ...BAD, ...NOT_FOUND, ...CONFLICT, ...AUTH_ERRORS },
});
const remove = createRoute({
  method: 'delete', path: '/{id}', tags: TAGS, security: BEARER, middleware: write, summary: 'Delete an alert policy',
  request: { params: idParam }, responses: { 200: jsonOk(z.null(), 'deleted'), ...NOT_FOUND, ...AUTH_ERRORS },
});

/** A policy row as the API returns it. */
export function toPolicy(row: AlertPolicyRow): AlertPolicy {
  return {
    id: row.id, user_id: row.user_id, name: row.name, monitor_id: row.monitor_id, channel_ids: row.channel_ids, enabled: row.enabled,
    delay_s: row.delay_s, recovery_n: row.recovery_n, mute_start: row.mute_start, mute_end: row.mute_end,
    title_template: row.title_template, body_template: row.body_template, escalation_levels: row.escalation_levels,
    fire_on_degraded: row.fire_on_degraded, notify_on_no_data: row.notify_on_no_data, created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString(),
  };
}

/**
 * `/v1/alert-policies` (docs/api/alerting.md "Policies"): list, create, read, patch, delete.
 * The monitor and every channel must be the caller's (MONITOR_NOT_FOUND, ALERT_CHANNEL_NOT_FOUND
 * naming the field); templates must compile; another account's policy is 404 ALERT_RULE_NOT_FOUND.
 */
export function alertPoliciesRouter(deps: AppDeps) {
  const r = createRouter();
  const notFound = (id: string) => new ApiError('ALERT_RULE_NOT_FOUND', `no alert policy ${id}`);
  const conflict = (f: PolicyFields) => new ApiError('ALERT_RULE_CONFLICT', `monitor ${f.monitor_id} already has an alert policy named "${f.name}"`, { fields: [{ path: 'name', message: 'already used on this monitor' }] });

  /** Check what the body refers to and its templates. */
  async function check(user_id: string, f: PolicyFields): Promise<void> {
    if (!(await ownsMonitor(deps.sql, user_id, f.monitor_id))) {
      throw new ApiError('MONITOR_NOT_FOUND', `no monitor ${f.monitor_id}`, { fields: [{ path: 'monitor_id', message: 'not one of your monitors' }] });
    }
    const refs = [
      ...f.channel_ids.map((id, i) => ({ id, path: `channel_ids[${i}]` })),
      ...f.escalation_levels.flatMap((l, li) => l.channel_ids.map((id, i) => ({ id, path: `escalation_levels[${li}].channel_ids[${i}]` }))),
    ];
    const owned = await ownedChannelIds(deps.sql, user_id, [...new Set(refs.map((x) => x.id))]);
    const missing = refs.filter((x) => !owned.has(x.id));
    if (missing.length > 0) {
      throw new ApiError('ALERT_CHANNEL_NOT_FOUND', `no alert channel ${missing[0]!.id}`, { fields: missing.map((m) => ({ path: m.path, message: 'not one of your alert channels' })) });
    }
    checkPolicyTemplates(f);
  }

  r.openapi(list, async (c) => {
    const { monitor_id } = c.req.valid('query');
    return ok(c, { items: (await listPolicies(deps.sql, c.get('principal')!.user_id, monitor_id)).map(toPolicy) }, 200);
  });

  r.openapi(create, async (c) => {
    const body = c.req.valid('json');
    const user_id = c.get('principal')!.user_id;
    await check(user_id, body);
    const id = await insertPolicy(deps.sql, user_id, body);
    if (id === 'conflict') throw conflict(body);
    return ok(c, toPolicy((await getPolicy(deps.sql, user_id, id))!), 201);
  });

  r.openapi(readOne, async (c) => {
    const { id } = c.req.valid('param');
    const row = isId('alert_policy', id) ? await getPolicy(deps.sql, c.get('principal')!.user_id, id) : null;
    if (!row) throw notFound(id);
    return ok(c, toPolicy(row), 200);
  });

  r.openapi(patch, async (c) => {
    const { id } = c.req.valid('param');
    const body = c.req.valid('json');
    const user_id = c.get('principal')!.user_id;
    const row = isId('alert_policy', id) ? await getPolicy(deps.sql, user_id, id) : null;
    if (!row) throw notFound(id);
    const merged: PolicyFields = {
      name: body.name ?? row.name, monitor_id: body.monitor_id ?? row.monitor_id, channel_ids: body.channel_ids ?? row.channel_ids,
      enabled: body.enabled ?? row.enabled, delay_s: body.delay_s ?? row.delay_s, recovery_n: body.recovery_n ?? row.recovery_n,
      mute_start: body.mute_start !== undefined ? body.mute_start : row.mute_start, mute_end: body.mute_end !== undefined ? body.mute_end : row.mute_end,
      title_template: body.title_template !== undefined ? body.title_template : row.title_template,
      body_template: body.body_template !== undefined ? body.body_template : row.body_template,
      fire_on_degraded: body.fire_on_degraded ?? row.fire_on_degraded,
      notify_on_no_data: body.notify_on_no_data ?? row.notify_on_no_data,
      escalation_levels: body.escalation_levels ?? row.escalation_levels.map(({ level_index, after_seconds, channel_ids }) => ({ level_index, after_seconds, channel_ids })),
    };
    const mute = z.object({ mute_start: z.string().nullable(), mute_end: z.string().nullable() }).superRefine(alertPolicyMuteRule).safeParse(merged);
    if (!mute.success) throw validationError(mute.error as never, 'body');
    await check(user_id, merged);
    const result = await updatePolicy(deps.sql, user_id, id, merged);
    if (result === 'missing') throw notFound(id);
    if (result === 'conflict') throw conflict(merged);
    return ok(c, toPolicy((await getPolicy(deps.sql, user_id, id))!), 200);
  });

  r.openapi(remove, async (c) => {
    const { id } = c.req.valid('param');
    if (!isId('alert_policy', id) || !(await deletePolicy(deps.sql, c.get('principal')!.user_id, id))) throw notFound(id);
    return ok(c, null, 200);
  });

  return r;
}
