import { createRoute, z } from '@hono/zod-openapi';
import {
  agentObsConfigRequestSchema, agentObsConfigSchema, agentObsMonitorSchema, AGENT_OBS_CHECK_TYPES, createAgentObsMonitorSchema, isId, newId,
  patchAgentObsMonitorSchema, type AgentObsEndpointConfig, type AgentObsFailureThreshold,
} from '@vantage/shared-protocol';
import type { Context } from 'hono';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonBody, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { requireAuth } from '../middleware/auth.js';
import { signalAssignmentsChanged } from '../monitors/assignment-signals.js';
import { maskedConfig } from '../monitors/header-secrets.js';
import { deleteMonitor, findMonitor, insertMonitor, updateMonitor } from '../monitors/monitors.db.js';
import { assertQuota, monitorsCap } from '../billing/quotas.js';
import { createPlacementEngine } from '../monitors/placement-engine.js';
import { planLimits } from '../monitors/plans.js';
import { ownedChannelIds } from '../alerting/alert-channels.db.js';
import { secretBoxOf } from '../secrets/secret-box.js';
import { authorize, ownerForNew, ownerScope, type Owner } from '../teams/authorize.js';
import { backingMonitorBuilder, type BackingSource } from './backing-monitor.js';
import type { CheckOptions } from './check-config.js';
import {
  deleteAgentObsMonitor, findAgentObsMonitor, insertAgentObsMonitor, listAgentObsMonitors, moveAgentObsStatus, updateAgentObsMonitor,
  type AgentObsFields, type AgentObsMonitorRow,
} from './monitors.db.js';
import { toAgentObsConfig, toAgentObsMonitor } from './view.js';

const read = [requireAuth({ scope: 'read' })];
const write = [requireAuth({ scope: 'write' })];
const TAGS = ['agent-obs'];
export const agentObsIdParam = z.object({ id: z.string().max(64).openapi({ param: { name: 'id', in: 'path' }, example: 'aom_01jd3k6w9z4q8r2t7v5x1y3b6c' }) });
const NOT_FOUND = { 404: jsonError('NOT_FOUND: no agent-obs monitor of yours (or your teams\') with this id') };
const INVALID = {
  400: jsonError('VALIDATION_FAILED (shape; endpoint_config for the type; budget_per_check_usd for llm; notification_channels: your alert channels)'),
  409: jsonError('MONITOR_NAME_TAKEN: never for distinct ids (the backing monitor is named after the agent and its id)'),
  422: jsonError('MONITOR_INVALID_TARGET (endpoint_url is private without a node of yours that allows it), MONITOR_LIMIT_EXCEEDED (plan quota: the backing monitor counts)'),
};
const FORBIDDEN = { 403: jsonError('FORBIDDEN: the credential lacks the scope, or your role in the team cannot change it') };
const STATUS_CONFLICT = jsonError('CONFLICT: not in a state this move starts from, or (resume from exceeded_budget) the month\'s cost is still at or over budget_monthly_usd');

const list = createRoute({
  method: 'get', path: '/monitors', tags: TAGS, security: BEARER, middleware: read, summary: 'Your agent-obs monitors and your teams\', newest first (plain array)',
  responses: { 200: jsonOk(z.array(agentObsMonitorSchema), 'the monitors'), ...AUTH_ERRORS },
});
const create = createRoute({
  method: 'post', path: '/monitors', tags: TAGS, security: BEARER, middleware: write,
  summary: 'Create an agent-obs monitor (LLM, tool or RAG endpoint); it runs on nodes every frequency_seconds',
  request: { body: jsonBody(createAgentObsMonitorSchema) },
  responses: { 201: jsonOk(agentObsMonitorSchema, 'the monitor'), ...INVALID, ...AUTH_ERRORS, ...FORBIDDEN },
});
const readOne = createRoute({
  method: 'get', path: '/monitors/{id}', tags: TAGS, security: BEARER, middleware: read, summary: 'One agent-obs monitor, with its cost this month',
  request: { params: agentObsIdParam },
  responses: { 200: jsonOk(agentObsMonitorSchema, 'the monitor'), ...NOT_FOUND, ...AUTH_ERRORS },
});
const patch = createRoute({
  method: 'patch', path: '/monitors/{id}', tags: TAGS, security: BEARER, middleware: write,
  summary: 'Change an agent-obs monitor (any create field but type; endpoint_config and failure_threshold replaced whole)',
  request: { params: agentObsIdParam, body: jsonBody(patchAgentObsMonitorSchema) },
  responses: { 200: jsonOk(agentObsMonitorSchema, 'the monitor after'), ...INVALID, ...NOT_FOUND, ...AUTH_ERRORS, ...FORBIDDEN },
});
const remove = createRoute({
  method: 'delete', path: '/monitors/{id}', tags: TAGS, security: BEARER, middleware: write, summary: 'Delete an agent-obs monitor, its events and its backing monitor',
  request: { params: agentObsIdParam },
  responses: { 200: jsonOk(z.null(), 'deleted'), ...NOT_FOUND, ...AUTH_ERRORS, ...FORBIDDEN },
});
const pause = createRoute({
  method: 'post', path: '/monitors/{id}/pause', tags: TAGS, security: BEARER, middleware: write, summary: 'Pause an active agent-obs monitor (paused_at is set; its checks stop)',
  request: { params: agentObsIdParam },
  responses: { 200: jsonOk(agentObsMonitorSchema, 'the monitor, paused'), 409: STATUS_CONFLICT, ...NOT_FOUND, ...AUTH_ERRORS, ...FORBIDDEN },
});
const resume = createRoute({
  method: 'post', path: '/monitors/{id}/resume', tags: TAGS, security: BEARER, middleware: write,
  summary: 'Resume a paused or exceeded_budget agent-obs monitor (exceeded_budget: only once budget_monthly_usd is above the month\'s cost)',
  request: { params: agentObsIdParam },
  responses: { 200: jsonOk(agentObsMonitorSchema, 'the monitor, active'), 409: STATUS_CONFLICT, ...NOT_FOUND, ...AUTH_ERRORS, ...FORBIDDEN },
});
const getConfig = createRoute({
  method: 'get', path: '/monitors/{id}/config', tags: TAGS, security: BEARER, middleware: read, summary: 'The agent-obs config of a monitor',
  request: { params: agentObsIdParam },
  responses: { 200: jsonOk(agentObsConfigSchema, 'the config'), ...NOT_FOUND, ...AUTH_ERRORS },
});
const putConfig = createRoute({
  method: 'put', path: '/monitors/{id}/config', tags: TAGS, security: BEARER, middleware: write,
  summary: 'Replace the agent-obs config (obs_type must be the monitor\'s check type; omitted optional fields are cleared)',
  request: { params: agentObsIdParam, body: jsonBody(agentObsConfigRequestSchema) },
  responses: { 200: jsonOk(agentObsConfigSchema, 'the config after'), ...INVALID, ...NOT_FOUND, ...AUTH_ERRORS, ...FORBIDDEN },
});

/** Body fields of create/PATCH as stored (endpoint_config without headers: those live sealed in the backing monitor). */
function storedFields(b: {
  agent_name: string; endpoint_url: string; frequency_seconds: number; failure_threshold: AgentObsFailureThreshold; budget_per_check_usd?: number | null;
  budget_monthly_usd?: number | null; step_name?: string | null; endpoint_config?: AgentObsEndpointConfig; notification_channels?: string[]; check_options: CheckOptions;
}): AgentObsFields {
  const { headers: _headers, ...endpoint_config } = b.endpoint_config ?? {};
  return {
    agent_name: b.agent_name, endpoint_url: b.endpoint_url, frequency_seconds: b.frequency_seconds, failure_threshold: b.failure_threshold,
    budget_per_check_usd: b.budget_per_check_usd ?? null, budget_monthly_usd: b.budget_monthly_usd ?? null, step_name: b.step_name ?? null,
    endpoint_config, notification_channels: [...new Set(b.notification_channels ?? [])], check_options: b.check_options as Record<string, unknown>,
  };
}

/**
 * `/v1/agent-obs` monitors (docs/api/agent-obs.md): list, create, read, PATCH, delete, pause,
 * resume, and the agent-obs config. Each monitor is backed by a monitor of the matching check
 * type (llm_endpoint, tool_api, rag) that runs on nodes (backing-monitor.ts). Access is decided
 * by teams/authorize.ts; another tenant's id is 404 NOT_FOUND.
 */
export function agentObsMonitorsRouter(deps: AppDeps) {
  const r = createRouter();
  const build = backingMonitorBuilder(deps);
  const plan = planLimits(deps.config);
  const box = secretBoxOf(deps.config);
  const placement = createPlacementEngine({ sql: deps.sql, log: deps.log, config: deps.config });

  async function monitorFor(c: Context<AppEnv>, id: string, access: 'read' | 'write'): Promise<AgentObsMonitorRow> {
    const row = isId('agent_obs_monitor', id) ? await findAgentObsMonitor(deps.sql, id) : null;
    await authorize(c, deps, row && { user_id: row.user_id, team_id: row.team_id }, access, 'NOT_FOUND', 'agent-obs monitor');
    return row!;
  }

  /** The masked request headers of the backing monitors of `rows`. */
  async function headersOf(rows: AgentObsMonitorRow[]): Promise<Map<string, Record<string, string>>> {
    const out = new Map<string, Record<string, string>>();
    for (const row of rows) {
      const m = await findMonitor(deps.sql, row.monitor_id);
      if (m) out.set(row.id, (maskedConfig(box, m.id, m.type, m.config).headers ?? {}) as Record<string, string>);
    }
    return out;
  }
  const shown = async (row: AgentObsMonitorRow) => toAgentObsMonitor(row, (await headersOf([row])).get(row.id));

  async function checkChannels(c: Context<AppEnv>, owner: Owner, ids: string[] | undefined) {
    if (!ids || ids.length === 0) return;
    const owned = await ownedChannelIds(deps.sql, { user_id: owner.team_id === null ? owner.user_id : null, team_ids: owner.team_id === null ? [] : [owner.team_id] }, ids);
    const missing = ids.filter((id) => !owned.has(id));
    if (missing.length > 0) {
      throw new ApiError('VALIDATION_FAILED', `notification_channels: no alert channel ${missing.join(', ')} of the monitor's owner`,
        { fields: [{ path: 'notification_channels', message: 'unknown alert channel' }], in: 'body' });
    }
    void c;
  }

  const sourceOf = (row: AgentObsMonitorRow, f: AgentObsFields, endpoint_config: AgentObsEndpointConfig): BackingSource => ({
    id: row.id, agent_name: f.agent_name, type: row.type, endpoint_url: f.endpoint_url, frequency_seconds: f.frequency_seconds,
    failure_threshold: f.failure_threshold as AgentObsFailureThreshold, endpoint_config, options: f.check_options as CheckOptions,
  });

  /** Store `f` on `row` and rebuild its backing monitor; `endpoint_config` is the full one (with headers, masks allowed). */
  async function change(c: Context<AppEnv>, row: AgentObsMonitorRow, f: AgentObsFields, endpoint_config: AgentObsEndpointConfig, config_changed: boolean) {
    const owner = { user_id: row.user_id, team_id: row.team_id };
    await checkChannels(c, owner, f.notification_channels);
    const current = await findMonitor(deps.sql, row.monitor_id);
    if (!current) throw new ApiError('NOT_FOUND', 'agent-obs monitor not found');
    const fields = await build(owner, row.monitor_id, sourceOf(row, f, endpoint_config), current.config);
    const updated = await updateMonitor(deps.sql, owner, row.monitor_id, { ...fields, group_id: current.group_id, tags: current.tags, team_id: row.team_id }, Number.MAX_SAFE_INTEGER);
    if (updated === null || typeof updated === 'string') throw new ApiError('CONFLICT', 'the backing monitor could not be updated');
    const after = await updateAgentObsMonitor(deps.sql, row.id, f, config_changed);
    if (!after) throw new ApiError('NOT_FOUND', 'agent-obs monitor not found');
    await placement.placeNow(row.monitor_id);
    return after;
  }

  r.openapi(list, async (c) => {
    const rows = await listAgentObsMonitors(deps.sql, await ownerScope(c, deps, 'read'));
    const headers = await headersOf(rows);
    return ok(c, rows.map((row) => toAgentObsMonitor(row, headers.get(row.id))), 200);
  });

  r.openapi(create, async (c) => {
    const body = c.req.valid('json');
    const owner = await ownerForNew(c, deps);
    await checkChannels(c, owner, body.notification_channels);
    // The backing monitor counts toward the account plan's monitors quota (docs/api/billing.md).
    const deploymentLimit = () => new ApiError('MONITOR_LIMIT_EXCEEDED', `the ${plan.plan} plan allows ${plan.monitors_max} monitors (an agent-obs monitor counts as one)`, { limit: 'monitors', max: plan.monitors_max });
    const cap = monitorsCap(await assertQuota(deps, owner, 'monitors'), owner, plan.monitors_max, deploymentLimit);
    const id = newId('agent_obs_monitor');
    const monitor_id = newId('monitor');
    const f = storedFields({ ...body, check_options: {} });
    const fields = await build(owner, monitor_id, { id, agent_name: f.agent_name, type: body.type, endpoint_url: f.endpoint_url, frequency_seconds: f.frequency_seconds,
      failure_threshold: body.failure_threshold, endpoint_config: body.endpoint_config ?? {}, options: {} }, null);
    const out = await insertMonitor(deps.sql, { ...fields, id: monitor_id, ...owner, type: AGENT_OBS_CHECK_TYPES[body.type], heartbeat: null }, cap.max);
    if ('refused' in out) throw out.refused === 'limit' ? cap.refusal() : new ApiError('MONITOR_NAME_TAKEN', 'a monitor of that name exists');
    let row: AgentObsMonitorRow;
    try {
      row = await insertAgentObsMonitor(deps.sql, { ...f, id, monitor_id, ...owner, type: body.type });
    } catch (err) {
      await deleteMonitor(deps.sql, monitor_id);
      throw err;
    }
    await placement.placeNow(monitor_id);
    return ok(c, await shown(row), 201);
  });

  r.openapi(readOne, async (c) => ok(c, await shown(await monitorFor(c, c.req.valid('param').id, 'read')), 200));

  r.openapi(patch, async (c) => {
    const row = await monitorFor(c, c.req.valid('param').id, 'write');
    const p = c.req.valid('json');
    if (row.type === 'llm' && p.budget_per_check_usd === null) {
      throw new ApiError('VALIDATION_FAILED', 'budget_per_check_usd: required for type llm', { fields: [{ path: 'budget_per_check_usd', message: 'required for type llm' }], in: 'body' });
    }
    const current_headers = (await headersOf([row])).get(row.id) ?? {};
    const endpoint_config = p.endpoint_config ?? { ...(row.endpoint_config as AgentObsEndpointConfig), headers: current_headers };
    const f = storedFields({
      agent_name: p.agent_name ?? row.agent_name, endpoint_url: p.endpoint_url ?? row.endpoint_url, frequency_seconds: p.frequency_seconds ?? row.frequency_seconds,
      failure_threshold: p.failure_threshold ?? row.failure_threshold as AgentObsFailureThreshold,
      budget_per_check_usd: p.budget_per_check_usd !== undefined ? p.budget_per_check_usd : row.budget_per_check_usd,
      budget_monthly_usd: p.budget_monthly_usd !== undefined ? p.budget_monthly_usd : row.budget_monthly_usd,
      step_name: p.step_name !== undefined ? p.step_name : row.step_name, endpoint_config,
      notification_channels: p.notification_channels ?? row.notification_channels, check_options: row.check_options as CheckOptions,
    });
    const config_changed = p.endpoint_url !== undefined || p.frequency_seconds !== undefined || p.failure_threshold !== undefined;
    return ok(c, await shown(await change(c, row, f, endpoint_config, config_changed)), 200);
  });

  r.openapi(remove, async (c) => {
    const row = await monitorFor(c, c.req.valid('param').id, 'write');
    const nodes = await deleteAgentObsMonitor(deps.sql, row.id);
    if (nodes === null) throw new ApiError('NOT_FOUND', 'agent-obs monitor not found');
    signalAssignmentsChanged(nodes);
    return ok(c, null, 200);
  });

  r.openapi(pause, async (c) => {
    const row = await monitorFor(c, c.req.valid('param').id, 'write');
    if (row.status !== 'active') throw new ApiError('CONFLICT', `the monitor is ${row.status}: only an active monitor can be paused`);
    const after = await moveAgentObsStatus(deps.sql, row.id, ['active'], 'paused');
    if (!after) throw new ApiError('CONFLICT', 'the monitor is no longer active');
    await placement.placeNow(row.monitor_id);
    return ok(c, await shown(after), 200);
  });

  r.openapi(resume, async (c) => {
    const row = await monitorFor(c, c.req.valid('param').id, 'write');
    if (row.status === 'active') throw new ApiError('CONFLICT', 'the monitor is already active');
    if (row.status === 'exceeded_budget' && row.budget_monthly_usd !== null && row.total_cost_this_month_usd >= row.budget_monthly_usd) {
      throw new ApiError('CONFLICT', `this month's cost (${row.total_cost_this_month_usd} USD) is at or over budget_monthly_usd (${row.budget_monthly_usd} USD): raise the budget first`,
        { total_cost_this_month_usd: row.total_cost_this_month_usd, budget_monthly_usd: row.budget_monthly_usd });
    }
    const after = await moveAgentObsStatus(deps.sql, row.id, [row.status], 'active');
    if (!after) throw new ApiError('CONFLICT', 'the monitor changed meanwhile: read it and try again');
    await placement.placeNow(row.monitor_id);
    return ok(c, await shown(after), 200);
  });

  r.openapi(getConfig, async (c) => ok(c, toAgentObsConfig(await monitorFor(c, c.req.valid('param').id, 'read')), 200));

  r.openapi(putConfig, async (c) => {
    const row = await monitorFor(c, c.req.valid('param').id, 'write');
    const body = c.req.valid('json');
    if (body.obs_type !== AGENT_OBS_CHECK_TYPES[row.type]) {
      throw new ApiError('VALIDATION_FAILED', `obs_type: this monitor's checks are ${AGENT_OBS_CHECK_TYPES[row.type]} (its type ${row.type}); create another monitor for another type`,
        { fields: [{ path: 'obs_type', message: `must be ${AGENT_OBS_CHECK_TYPES[row.type]}` }], in: 'body' });
    }
    const threshold = { ...(row.failure_threshold as AgentObsFailureThreshold) };
    delete threshold.latency;
    if (body.latency_sla_ms) threshold.latency = body.latency_sla_ms;
    const options: CheckOptions = {
      ...(body.expected_tokens_max ? { expected_tokens_max: body.expected_tokens_max } : {}),
      ...(body.model_name ? { model_name: body.model_name } : {}),
      ...(body.payload_template ? { payload_template: body.payload_template } : {}),
    };
    const headers = (await headersOf([row])).get(row.id) ?? {};
    const endpoint_config = { ...(row.endpoint_config as AgentObsEndpointConfig), headers };
    const f = storedFields({
      agent_name: row.agent_name, endpoint_url: body.endpoint_url, frequency_seconds: body.check_interval_s, failure_threshold: threshold,
      budget_per_check_usd: row.budget_per_check_usd, budget_monthly_usd: row.budget_monthly_usd, step_name: row.step_name, endpoint_config,
      notification_channels: row.notification_channels, check_options: options,
    });
    return ok(c, toAgentObsConfig(await change(c, row, f, endpoint_config, true)), 200);
  });

  return r;
}
