import { createRoute, z } from '@hono/zod-openapi';
import {
  checkListQuerySchema, checkListSchema, isId, stateChangeListQuerySchema, stateChangeListSchema, statsQuerySchema, statsSchema,
  STATS_BUCKETS_MAX, uptimeQuerySchema, uptimeSchema,
} from '@vantage/shared-protocol';
import { artifactUrlHook } from '../artifacts/urls.js';
import type { Context } from 'hono';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonError } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { requireAuth } from '../middleware/auth.js';
import { authorize, type Owner } from '../teams/authorize.js';
import { okWithExample } from '../monitors/examples.js';
import { findMonitorOwner } from '../monitors/monitors.db.js';
import { monitorIdParam } from '../monitors/monitors.routes.js';
import { toStateChange } from './decide.js';
import { HISTORY_EXAMPLES } from './examples.js';
import { listStateChanges } from './history.db.js';
import { autoBucketS } from './stats.js';
import { streamMonitorEvents, type MonitorStreamTimings } from './stream.js';
import { badRange, historyRange, historyReads } from './history-reads.js';

const read = [requireAuth({ scope: 'read' })];
const TAGS = ['monitors'];
const DAY_MS = 86_400_000;
const NOT_FOUND = { 404: jsonError('MONITOR_NOT_FOUND: no such monitor you can read (another account\'s or another team\'s is not found either)') };
const BAD = { 400: jsonError('VALIDATION_FAILED: a bad from/to (ISO 8601, now, or relative like -7d), from not before to, or a bad parameter') };

const checks = createRoute({
  method: 'get', path: '/{id}/checks', tags: TAGS, security: BEARER, middleware: read,
  summary: 'Raw checks of a monitor, newest first: one per node and round; from (default -24h), to, node_id, page, page_size',
  request: { params: monitorIdParam, query: checkListQuerySchema },
  responses: { 200: okWithExample(checkListSchema, '{items[], total, page, page_size, has_more}', HISTORY_EXAMPLES.checks), ...BAD, ...NOT_FOUND, ...AUTH_ERRORS },
});
const uptime = createRoute({
  method: 'get', path: '/{id}/uptime', tags: TAGS, security: BEARER, middleware: read,
  summary: 'Uptime over period=24h|7d|30d|90d (default 24h) or from/to: uptime %, downtime, incidents, mean time to recovery; maintenance left out',
  request: { params: monitorIdParam, query: uptimeQuerySchema },
  responses: { 200: okWithExample(uptimeSchema, 'the uptime over the range', HISTORY_EXAMPLES.uptime), ...BAD, ...NOT_FOUND, ...AUTH_ERRORS },
});
const stats = createRoute({
  method: 'get', path: '/{id}/stats', tags: TAGS, security: BEARER, middleware: read,
  summary: 'Response time p50/p95/p99 and failure rate per time bucket, overall and per node or country (group_by); from (default -24h), to, bucket_s',
  request: { params: monitorIdParam, query: statsQuerySchema },
  responses: { 200: okWithExample(statsSchema, 'statistics per bucket', HISTORY_EXAMPLES.stats), ...BAD, ...NOT_FOUND, ...AUTH_ERRORS },
});
const stateChanges = createRoute({
  method: 'get', path: '/{id}/state-changes', tags: TAGS, security: BEARER, middleware: read,
  summary: 'State changes of a monitor, newest first, each with its reason (failed nodes, their errors) and whether it was learnt late',
  request: { params: monitorIdParam, query: stateChangeListQuerySchema },
  responses: { 200: okWithExample(stateChangeListSchema, '{items[], total, page, page_size, has_more}', HISTORY_EXAMPLES.stateChanges), ...BAD, ...NOT_FOUND, ...AUTH_ERRORS },
});
const stream = createRoute({
  method: 'get', path: '/{id}/stream', tags: TAGS, security: BEARER, middleware: read,
  summary: 'Server-sent events of a monitor: event check (a stored check) and event state_change; resume with Last-Event-ID',
  request: {
    params: monitorIdParam,
    headers: z.object({ 'last-event-id': z.string().max(100).optional().openapi({ description: 'id of the last event received' }) }),
  },
  responses: {
    200: { description: 'text/event-stream of check and state_change frames', content: { 'text/event-stream': { schema: z.string(), example: 'event: check\nid: 1795000000123456_7_1795000000000_1042\ndata: {"monitor_id":"m_…","node_id":"n_…",…}\n\n' } } },
    ...NOT_FOUND, ...AUTH_ERRORS,
  },
});

/**
 * A monitor's history under /v1/monitors/{id} (docs/api/monitors.md "Checks and history"): raw
 * checks, uptime, response-time stats, state changes and the event stream. Whoever may read the
 * monitor sees them (its creator, or any member of its team: teams/authorize.ts); another
 * account's or another team's monitor, like a malformed id, is 404 MONITOR_NOT_FOUND.
 * @param opts.stream stream timings (tests; default from config checks_stream_poll_ms)
 */
export function monitorHistoryRouter(deps: AppDeps, opts: { stream?: Partial<MonitorStreamTimings> } = {}) {
  const r = createRouter();
  const reads = historyReads(deps);

  // Access by the one authorization rule (teams/authorize.ts), from the monitor's owner alone:
  // these routes answer from its history, never from its record, so its record's per-row columns
  // (placement, uptime_24h) are not read for them.
  const owned = async (c: Context<AppEnv>, id: string) => {
    const owner = isId('monitor', id) ? await findMonitorOwner(deps.sql, id) : null;
    await authorize(c, deps, owner, 'read', 'MONITOR_NOT_FOUND', 'monitor');
  };
  // The same rule for a read whose statement returns the owner with the answer (one round trip
  // after the credential's): nothing is answered unless the caller may read the monitor.
  const ownedRead = async <T extends { owner: Owner | null }>(c: Context<AppEnv>, id: string, read: () => Promise<T>): Promise<T> => {
    if (!isId('monitor', id)) await authorize(c, deps, null, 'read', 'MONITOR_NOT_FOUND', 'monitor');
    const answer = await read();
    await authorize(c, deps, answer.owner, 'read', 'MONITOR_NOT_FOUND', 'monitor');
    return answer;
  };

  r.openapi(checks, async (c) => {
    const { id } = c.req.valid('param');
    const q = c.req.valid('query');
    await owned(c, id);
    return ok(c, await reads.checks(id, q), 200);
  });

  r.openapi(uptime, async (c) => {
    const { id } = c.req.valid('param');
    const q = c.req.valid('query');
    const now = Date.now();
    const window = reads.uptimeWindow(q, now);
    const { uptime } = await ownedRead(c, id, () => reads.uptimeAndOwner(id, window, now));
    return ok(c, uptime, 200);
  });

  r.openapi(stats, async (c) => {
    const { id } = c.req.valid('param');
    const q = c.req.valid('query');
    const now = Date.now();
    const { from, to } = historyRange(q, now, now - DAY_MS);
    const bucket_s = q.bucket_s ?? autoBucketS(to.getTime() - from.getTime());
    if ((to.getTime() - from.getTime()) / (bucket_s * 1000) > STATS_BUCKETS_MAX) {
      throw badRange('bucket_s', `gives more than ${STATS_BUCKETS_MAX} buckets over this range: widen it`);
    }
    const { stats } = await ownedRead(c, id, () => reads.statsAndOwner(id, from, to, bucket_s, q.group_by));
    return ok(c, stats, 200);
  });

  r.openapi(stateChanges, async (c) => {
    const { id } = c.req.valid('param');
    const q = c.req.valid('query');
    await owned(c, id);
    const now = Date.now();
    const { from, to } = historyRange(q, now, 0, now + DAY_MS);
    const { rows, total } = await listStateChanges(deps.sql, id, from, to, q.to_state, q.page_size, (q.page - 1) * q.page_size);
    return ok(c, { items: rows.map(toStateChange), total, page: q.page, page_size: q.page_size, has_more: q.page * q.page_size < total }, 200);
  });

  r.openapi(stream, async (c) => {
    const { id } = c.req.valid('param');
    await owned(c, id);
    const timings = { poll_ms: deps.config.checks_stream_poll_ms, settle_ms: deps.config.checks_stream_settle_ms, ...opts.stream };
    return streamMonitorEvents(c, deps.sql, id, timings, await artifactUrlHook(deps)) as never;
  });

  return r;
}
