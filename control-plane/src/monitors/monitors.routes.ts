import { createRoute, z } from '@hono/zod-openapi';
import {
  heartbeatRotatedSchema, monitorCreateSchema, monitorListQuerySchema, monitorListSchema, monitorPatchSchema,
  monitorSchema, monitorStatusChangeSchema, probeCreatedSchema, probeRequestSchema, type MonitorStatus,
} from '@vantage/shared-protocol';
import type { Context } from 'hono';
import { publicBaseUrl } from '../config/public-url.js';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { ownerForNew, ownerScope, type Owner } from '../teams/authorize.js';
import { ownerAfterMove } from '../teams/move.js';
import { AUTH_ERRORS, BEARER, jsonError } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { requireAuth } from '../middleware/auth.js';
import type { HostResolver } from '../probes/address-policy.js';
import { probeCreator } from '../probes/create.js';
import { nodeLinkStates } from '../nodes/nodes.db.js';
import { signalAssignmentsChanged } from './assignment-signals.js';
import { adhocProbeOf } from './run.js';
import { monitorFor } from './access.js';
import { EXAMPLES, EXAMPLE_MONITOR_ID, bodyWithExample, okWithExample } from './examples.js';
import { heartbeatUrl, newHeartbeatToken } from './heartbeat.js';
import { openedConfig, sealedConfig, secretsFailure } from './header-secrets.js';
import { monitorWriter } from './writer.js';
import {
  deleteMonitor, listMonitors, rotateHeartbeatToken, updateMonitor,
} from './monitors.db.js';
import { toMonitor } from './view.js';
import { flapFactsSince, flappingSince, flapSinceOf } from '../alerting/flap-marks.js';
import { flapColumn, flapFactsOfColumn, type FlapColumn } from '../alerting/noise-rules.db.js';

const read = [requireAuth({ scope: 'read' })];
const write = [requireAuth({ scope: 'write' })];
const TAGS = ['monitors'];
/** Path parameter `id`: an `m_` id; anything else is simply not found. */
export const monitorIdParam = z.object({ id: z.string().max(64).openapi({ param: { name: 'id', in: 'path' }, example: EXAMPLE_MONITOR_ID }) });
const NOT_FOUND = { 404: jsonError('MONITOR_NOT_FOUND: no such monitor you can see (another account\'s or another team\'s monitor is not found either)') };
/** 403 of the routes that change a monitor: a scope the credential lacks, or a role that cannot write (docs/api/teams.md). */
const FORBIDDEN = { 403: jsonError('FORBIDDEN: the credential lacks the scope, or your role in the monitor\'s team cannot change it (details.required_role)') };
const INVALID = {
  400: jsonError('VALIDATION_FAILED (shape, config of the type, group_id: a group of the monitor\'s owner), MONITOR_INVALID_INTERVAL'),
  409: jsonError('MONITOR_NAME_TAKEN: its owner (you, or the team) already has a monitor of that name'),
  422: jsonError('MONITOR_INVALID_TARGET (target does not fit the type, or is private without a node of yours that allows it), MONITOR_LIMIT_EXCEEDED (plan quota or node_count)'),
};

const list = createRoute({
  method: 'get', path: '/', tags: TAGS, security: BEARER, middleware: read,
  summary: 'Your monitors and those of your teams, newest first; filters status, state, type, group_id (none = ungrouped), tag, q (name), team_id',
  request: { query: monitorListQuerySchema },
  responses: { 200: okWithExample(monitorListSchema, '{items[], total, page, limit}', { items: [EXAMPLES.monitor], total: 1, page: 1, limit: 20 }), 400: jsonError('VALIDATION_FAILED'), ...AUTH_ERRORS },
});
const create = createRoute({
  method: 'post', path: '/', tags: TAGS, security: BEARER, middleware: write,
  summary: 'Create a monitor, personal or a team\'s (team_id); a heartbeat monitor\'s check-in token and URL are returned once',
  request: { body: bodyWithExample(monitorCreateSchema, EXAMPLES.create) },
  responses: {
    201: okWithExample(monitorSchema, 'the monitor (config with its defaults filled)', EXAMPLES.monitor), ...INVALID,
    404: jsonError('TEAM_NOT_FOUND: team_id names no team you are in'), ...AUTH_ERRORS, ...FORBIDDEN,
  },
});
const readOne = createRoute({
  method: 'get', path: '/{id}', tags: TAGS, security: BEARER, middleware: read, summary: 'One monitor',
  request: { params: monitorIdParam },
  responses: { 200: okWithExample(monitorSchema, 'the monitor', EXAMPLES.monitor), ...NOT_FOUND, ...AUTH_ERRORS },
});
const patch = createRoute({
  method: 'patch', path: '/{id}', tags: TAGS, security: BEARER, middleware: write,
  summary: 'Change name, interval_s, target, config (replaced whole), tags, group_id, node_count or team_id (moves it); checked as on create',
  description: 'Secret request header values (every header but Accept*, Cache-Control, Content-Language, Content-Type, Pragma and User-Agent) are stored encrypted and read back masked (`••••abcd`); '
    + 'send a mask back unchanged to keep the stored secret, or a new value to replace it (docs/api/monitors.md "Secrets in headers").',
  request: { params: monitorIdParam, body: bodyWithExample(monitorPatchSchema, EXAMPLES.patch) },
  responses: { 200: okWithExample(monitorSchema, 'the updated monitor', EXAMPLES.monitor), ...INVALID, ...NOT_FOUND, ...AUTH_ERRORS, ...FORBIDDEN },
});
const remove = createRoute({
  method: 'delete', path: '/{id}', tags: TAGS, security: BEARER, middleware: write,
  summary: 'Delete a monitor for good; it is removed from its nodes',
  request: { params: monitorIdParam },
  responses: { 200: okWithExample(z.null(), 'deleted', null), ...NOT_FOUND, ...AUTH_ERRORS, ...FORBIDDEN },
});
const pause = createRoute({
  method: 'post', path: '/{id}/pause', tags: TAGS, security: BEARER, middleware: write,
  summary: 'Pause an active monitor: its runs stop on every node; state becomes paused',
  request: { params: monitorIdParam },
  responses: {
    200: okWithExample(monitorStatusChangeSchema, '{id, status: paused, state: paused}', { id: EXAMPLE_MONITOR_ID, status: 'paused', state: 'paused' }),
    409: jsonError('MONITOR_PAUSED: the monitor is already paused'), ...NOT_FOUND, ...AUTH_ERRORS, ...FORBIDDEN,
  },
});
const resume = createRoute({
  method: 'post', path: '/{id}/resume', tags: TAGS, security: BEARER, middleware: write,
  summary: 'Resume a paused monitor: its runs start again; state is pending until the next verdict',
  request: { params: monitorIdParam },
  responses: {
    200: okWithExample(monitorStatusChangeSchema, '{id, status: active, state: pending}', { id: EXAMPLE_MONITOR_ID, status: 'active', state: 'pending' }),
    409: jsonError('CONFLICT: the monitor is already active'), ...NOT_FOUND, ...AUTH_ERRORS, ...FORBIDDEN,
  },
});
const run = createRoute({
  method: 'post', path: '/{id}/run', tags: TAGS, security: BEARER, middleware: write,
  summary: 'Run one round now on the monitor\'s online nodes, as an ad-hoc probe: poll GET /v1/probe/tasks/{task_id}',
  request: { params: monitorIdParam },
  responses: {
    202: okWithExample(probeCreatedSchema, '{task_id, task_ids[], status: queued}', { task_id: 'pt_01jd3k6w9z4q8r2t7v5x1y3b6c', task_ids: ['pt_01jd3k6w9z4q8r2t7v5x1y3b6c'], status: 'queued' }),
    409: jsonError('MONITOR_PAUSED: the monitor is paused (resume it first); CONFLICT: the type has no ad-hoc probe (heartbeat, domain_expiry, rbl, browser)'),
    422: jsonError('PROBE_TOO_FEW_NODES: the monitor is placed on no node yet'),
    503: jsonError('NODE_OFFLINE: none of the monitor\'s nodes is online'),
    ...NOT_FOUND, ...AUTH_ERRORS, ...FORBIDDEN,
  },
});
const rotate = createRoute({
  method: 'post', path: '/{id}/heartbeat/rotate', tags: TAGS, security: BEARER, middleware: write,
  summary: 'New check-in token for a heartbeat monitor; the old token is invalid at once',
  request: { params: monitorIdParam },
  responses: {
    200: okWithExample(heartbeatRotatedSchema, '{token, url}: shown only here', EXAMPLES.rotated),
    409: jsonError('CONFLICT: not a heartbeat monitor'), ...NOT_FOUND, ...AUTH_ERRORS, ...FORBIDDEN,
  },
});

/**
 * `/v1/monitors` (docs/api/monitors.md): list, create, read, patch,
 * delete, pause, resume and heartbeat token rotation. Access is decided by teams/authorize.ts:
 * a personal monitor is its creator's alone, a team's monitor its members' by role (viewers
 * read); another account's or another team's id is 404 MONITOR_NOT_FOUND.
 * @param opts.resolve host resolver for the target address policy (tests; default the system resolver)
 */
export function monitorsRouter(deps: AppDeps, opts: { resolve?: HostResolver } = {}) {
  const r = createRouter();
  const writer = monitorWriter(deps, { resolve: opts.resolve });
  const { check, plan, box, shown, shownInPlace, placed, quotaError, nameTaken } = writer;
  const probe = probeCreator({ sql: deps.sql, generic_sql: deps.generic_sql, log: deps.log, config: deps.config, hub: deps.hub, resolve: opts.resolve });

  async function setStatus(c: Context<AppEnv>, from: MonitorStatus, to: MonitorStatus) {
    const { id } = c.req.param() as { id: string };
    const { row: current } = await monitorFor(c, deps, id, 'write');
    return ok(c, await writer.setStatus(current, from, to), 200);
  }

  r.openapi(list, async (c) => {
    const { page, limit, team_id, ...filters } = c.req.valid('query');
    // The page's flap marks are read in the same statement (alerting/flap-marks.ts).
    const now = new Date();
    const { rows, total } = await listMonitors<FlapColumn>(deps.sql, await ownerScope(c, deps, 'read', team_id), filters, page, limit,
      { name: 'flap', sql: flapColumn(deps.sql, flapFactsSince(now)) });
    // toMonitor picks its fields: `extra` is not copied off each row first, nor the rows (this
    // request's own) to mask their secrets.
    const items = rows.map((row) => toMonitor(shownInPlace(row), undefined, flapSinceOf(flapFactsOfColumn(row.id, row.extra ?? null), now)));
    return ok(c, { items, total, page, limit }, 200);
  });

  r.openapi(create, async (c) => {
    const { team_id, ...body } = c.req.valid('json');
    const { row, heartbeat } = await writer.create(await ownerForNew(c, deps, team_id), body);
    return ok(c, toMonitor(row, heartbeat), 201);
  });

  r.openapi(readOne, async (c) => {
    const { row } = await monitorFor(c, deps, c.req.valid('param').id, 'read');
    return ok(c, toMonitor(shown(row), undefined, (await flappingSince(deps.sql, [row.id])).get(row.id)), 200);
  });

  r.openapi(patch, async (c) => {
    const { id } = c.req.valid('param');
    const p = c.req.valid('json');
    const { row: current } = await monitorFor(c, deps, id, 'write');
    // A move (team_id) needs write on the side it goes to as well (docs/api/monitors.md "Teams").
    const { owner, moved } = await ownerAfterMove(c, deps, current, p.team_id, 'monitor');
    const team_id = owner.team_id;
    const fields = await check(owner, {
      name: p.name ?? current.name, type: current.type,
      target: p.target !== undefined ? p.target : current.target,
      // Without a new config the stored one is checked as shown (masks), and its secrets kept below.
      config: p.config !== undefined ? p.config : shown(current).config,
      interval_s: p.interval_s ?? current.interval_s, node_count: p.node_count ?? current.node_count,
      // A move leaves the old owner's group unless the request names one of the new owner's.
      group_id: p.group_id !== undefined ? p.group_id : moved ? null : current.group_id, tags: p.tags ?? current.tags,
      // A move changes whose nodes may reach a private target: the address is judged again.
    }, { recheck_address: moved || p.target !== undefined || p.config !== undefined, previous_private: current.private_target });
    const config = secretsFailure(() => sealedConfig(box, id, current.type, fields.config, current.config));
    const row = await updateMonitor(deps.sql, current, id, { ...fields, config, team_id }, plan.monitors_max);
    if (row === 'name_taken') throw nameTaken(owner, fields.name);
    if (row === 'limit') throw quotaError();
    if (!row) throw new ApiError('MONITOR_NOT_FOUND', `no monitor ${id}`);
    return ok(c, toMonitor(shown(await placed(row)), undefined, (await flappingSince(deps.sql, [row.id])).get(row.id)), 200);
  });

  r.openapi(remove, async (c) => {
    const { id } = c.req.valid('param');
    await monitorFor(c, deps, id, 'write');
    const gone = await deleteMonitor(deps.sql, id);
    if (!gone) throw new ApiError('MONITOR_NOT_FOUND', `no monitor ${id}`);
    // Its placements went with it (their nodes' versions were bumped by 0024's trigger): it leaves them as a delta.
    signalAssignmentsChanged(gone.node_ids);
    return ok(c, null, 200);
  });

  r.openapi(pause, (c) => setStatus(c, 'active', 'paused'));
  r.openapi(resume, (c) => setStatus(c, 'paused', 'active'));

  r.openapi(run, async (c) => {
    const { id } = c.req.valid('param');
    const principal = c.get('principal')!;
    const { row: m } = await monitorFor(c, deps, id, 'write');
    // Paused means no rounds: a run would record nothing and contradict the state shown.
    if (m.status === 'paused') throw new ApiError('MONITOR_PAUSED', 'the monitor is paused: resume it (POST /v1/monitors/{id}/resume) to run it');
    const adhoc = adhocProbeOf(m.type, m.target, secretsFailure(() => openedConfig(box, m.id, m.type, m.config)));
    if (!adhoc) throw new ApiError('CONFLICT', `a ${m.type} monitor has no ad-hoc probe: its rounds only run on schedule`);
    if (m.node_ids.length === 0) throw new ApiError('PROBE_TOO_FEW_NODES', 'the monitor is placed on no node yet (no online node can run it)');
    const states = await nodeLinkStates(deps.sql, m.node_ids);
    const online = m.node_ids.filter((n) => states.get(n)?.status === 'online');
    if (online.length === 0) throw new ApiError('NODE_OFFLINE', 'none of the monitor\'s nodes is online', { node_ids: m.node_ids });
    const body = probeRequestSchema(adhoc.type).safeParse({ target: adhoc.target, params: adhoc.params, node_ids: online });
    if (!body.success) throw new ApiError('CONFLICT', `the monitor's config does not fit an ad-hoc ${adhoc.type} probe: ${body.error.issues[0]?.message ?? 'invalid'}`);
    // Its nodes are its owner's (a team monitor's: the team's): the run is made for that owner.
    return ok(c, await probe(adhoc.type, body.data as never, principal, { user_id: m.user_id, team_id: m.team_id ?? null }), 202);
  });

  r.openapi(rotate, async (c) => {
    const { id } = c.req.valid('param');
    const { row: current } = await monitorFor(c, deps, id, 'write');
    if (current.type !== 'heartbeat') throw new ApiError('CONFLICT', `a ${current.type} monitor has no check-in token: only heartbeat monitors do`);
    const hb = newHeartbeatToken();
    if (!(await rotateHeartbeatToken(deps.sql, id, hb))) throw new ApiError('MONITOR_NOT_FOUND', `no monitor ${id}`);
    return ok(c, { token: hb.token, url: heartbeatUrl(publicBaseUrl(deps.config), hb.token) }, 200);
  });

  return r;
}
