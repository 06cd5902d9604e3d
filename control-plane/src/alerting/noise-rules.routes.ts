import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import {
  alertNoiseKindRule, alertNoiseRuleCreateSchema, alertNoiseRuleListSchema, alertNoiseRulePatchSchema, alertNoiseRuleQuerySchema,
  alertNoiseRuleSchema, isId, newId, type AlertNoiseRule,
} from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter, validationError } from '../http/router.js';
import { authorize, ownerForNew, ownerScope, type Owner } from '../teams/authorize.js';
import type { Access } from '../teams/roles.js';
import {
  deleteNoiseRule, getNoiseRule, insertNoiseRule, listNoiseRules, monitorsOfOwner, updateNoiseRule, type NoiseRuleFields, type NoiseRuleRow,
} from './noise-rules.db.js';
import { ownerAfterMove } from '../teams/move.js';
import { idParam, ownerOf, READ, TAGS, WRITE } from './route-kit.js';

const params = idParam('anr_01jd3k6w9z4q8r2t7v5x1y3b6c');
const NOT_FOUND = { 404: jsonError('ALERT_NOISE_RULE_NOT_FOUND: no such rule you can read; MONITOR_NOT_FOUND: a monitor_ids entry is not of the rule\'s owner; TEAM_NOT_FOUND: team_id is not a team of yours') };
const FORBIDDEN = { 403: jsonError('FORBIDDEN: your role in the team cannot change its noise rules (a viewer only reads)') };
const BAD = { 400: jsonError('VALIDATION_FAILED: a field is out of bounds, or a kind-specific field is missing or given for another kind') };
const list = createRoute({ method: 'get', path: '/', tags: TAGS, security: BEARER, middleware: READ, summary: 'The alert noise rules you can read, yours and your teams\', oldest first (`kind`, `team_id` filter)', request: { query: alertNoiseRuleQuerySchema }, responses: { 200: jsonOk(alertNoiseRuleListSchema, 'the rules'), ...AUTH_ERRORS } });
const create = createRoute({ method: 'post', path: '/', tags: TAGS, security: BEARER, middleware: WRITE, summary: 'Create a noise rule: flap detection, duplicate suppression across monitors sharing a target, or a minimum down duration', request: { body: jsonBody(alertNoiseRuleCreateSchema) }, responses: { 201: jsonOk(alertNoiseRuleSchema, 'the rule'), ...BAD, ...NOT_FOUND, ...FORBIDDEN, ...AUTH_ERRORS } });
const readOne = createRoute({ method: 'get', path: '/{id}', tags: TAGS, security: BEARER, middleware: READ, summary: 'One alert noise rule', request: { params }, responses: { 200: jsonOk(alertNoiseRuleSchema, 'the rule'), ...NOT_FOUND, ...AUTH_ERRORS } });
const patch = createRoute({ method: 'patch', path: '/{id}', tags: TAGS, security: BEARER, middleware: WRITE, summary: 'Change a noise rule (not its kind nor its owner); checked whole as it ends up', request: { params, body: jsonBody(alertNoiseRulePatchSchema) }, responses: { 200: jsonOk(alertNoiseRuleSchema, 'the rule'), ...BAD, ...NOT_FOUND, ...FORBIDDEN, ...AUTH_ERRORS } });
const remove = createRoute({ method: 'delete', path: '/{id}', tags: TAGS, security: BEARER, middleware: WRITE, summary: 'Delete an alert noise rule', request: { params }, responses: { 200: jsonOk(z.null(), 'deleted'), ...NOT_FOUND, ...FORBIDDEN, ...AUTH_ERRORS } });

/** A rule row as the API returns it. */
export function toNoiseRule(row: NoiseRuleRow): AlertNoiseRule {
  return {
    id: row.id, user_id: row.user_id, team_id: row.team_id, name: row.name, kind: row.kind, enabled: row.enabled,
    monitor_ids: row.monitor_ids, tags: row.tags, flap_changes: row.flap_changes, flap_window_s: row.flap_window_s,
    duplicate_match: row.duplicate_match, min_down_s: row.min_down_s, created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString(),
  };
}

/**
 * `/v1/alert-noise-rules` (docs/api/alerting.md "Noise rules"): list, create, read, patch, delete.
 * Every access decides through teams/authorize.ts (a rule is owned like a policy); a rule's
 * `monitor_ids` must be monitors of its own owner (404 MONITOR_NOT_FOUND naming `monitor_ids[i]`);
 * a rule nobody may read is 404 ALERT_NOISE_RULE_NOT_FOUND.
 */
export function alertNoiseRulesRouter(deps: AppDeps) {
  const r = createRouter();
  const notFound = (id: string) => new ApiError('ALERT_NOISE_RULE_NOT_FOUND', `no alert noise rule ${id}`);
  const owned = async (c: Context<AppEnv>, id: string, access: Access) => {
    const row = isId('alert_noise_rule', id) ? await getNoiseRule(deps.sql, id) : null;
    await authorize(c, deps, row && ownerOf(row), access, 'ALERT_NOISE_RULE_NOT_FOUND', 'alert noise rule');
    return row!;
  };
  async function checkMonitors(owner: Owner, ids: string[]): Promise<void> {
    const found = await monitorsOfOwner(deps.sql, owner, ids);
    const missing = ids.flatMap((id, i) => (found.has(id) ? [] : [{ path: `monitor_ids[${i}]`, message: 'not a monitor of the rule\'s owner' }]));
    if (missing.length > 0) throw new ApiError('MONITOR_NOT_FOUND', `no monitor ${ids[Number(/\d+/.exec(missing[0]!.path)![0])]}`, { fields: missing });
  }

  r.openapi(list, async (c) => {
    const { team_id, kind } = c.req.valid('query');
    return ok(c, { items: (await listNoiseRules(deps.sql, await ownerScope(c, deps, 'read', team_id), kind)).map(toNoiseRule) }, 200);
  });
  r.openapi(create, async (c) => {
    const { team_id, kind, ...body } = c.req.valid('json');
    const owner = await ownerForNew(c, deps, team_id);
    await checkMonitors(owner, body.monitor_ids);
    const fields: NoiseRuleFields = { ...body, duplicate_match: kind === 'duplicate' ? (body.duplicate_match ?? 'host') : null };
    return ok(c, toNoiseRule(await insertNoiseRule(deps.sql, newId('alert_noise_rule'), owner, kind, fields)), 201);
  });
  r.openapi(readOne, async (c) => ok(c, toNoiseRule(await owned(c, c.req.valid('param').id, 'read')), 200));
  r.openapi(patch, async (c) => {
    const { id } = c.req.valid('param');
    const body = c.req.valid('json');
    const cur = await owned(c, id, 'write');
    const pick = <K extends keyof NoiseRuleFields>(k: K): NoiseRuleFields[K] => (body[k] !== undefined ? body[k] as NoiseRuleFields[K] : cur[k]);
    const next: NoiseRuleFields = {
      name: pick('name'), enabled: pick('enabled'), monitor_ids: pick('monitor_ids'), tags: pick('tags'), flap_changes: pick('flap_changes'),
      flap_window_s: pick('flap_window_s'), duplicate_match: pick('duplicate_match'), min_down_s: pick('min_down_s'),
    };
    const whole = z.object({}).passthrough().superRefine((v, ctx) => alertNoiseKindRule(v as never, ctx)).safeParse({ kind: cur.kind, ...next });
    if (!whole.success) throw validationError(whole.error as never, 'body');
    if (cur.kind === 'duplicate' && next.duplicate_match === null) next.duplicate_match = 'host';
    // A move (team_id: docs/api/teams.md "Moving a resource"): its monitors must be the new owner's.
    const { owner, moved } = await ownerAfterMove(c, deps, ownerOf(cur), body.team_id, 'alert noise rule');
    await checkMonitors(owner, next.monitor_ids);
    const row = await updateNoiseRule(deps.sql, id, next, moved ? owner.team_id : undefined);
    if (!row) throw notFound(id);
    return ok(c, toNoiseRule(row), 200);
  });
  r.openapi(remove, async (c) => {
    const { id } = c.req.valid('param');
    await owned(c, id, 'write');
    if (!(await deleteNoiseRule(deps.sql, id))) throw notFound(id);
    return ok(c, null, 200);
  });
  return r;
}
