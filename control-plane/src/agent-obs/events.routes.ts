import { createRoute, z } from '@hono/zod-openapi';
import {
  agentObsCheckListSchema, agentObsCheckQuerySchema, agentObsEventQuerySchema, agentObsEventSchema, agentObsStreamQuerySchema, isId, resolveTime,
} from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { requireAuth } from '../middleware/auth.js';
import { authorize, ownerScope } from '../teams/authorize.js';
import { eventSeq, listAgentObsChecks, listAgentObsEvents } from './events.db.js';
import { findAgentObsMonitor } from './monitors.db.js';
import { agentObsIdParam } from './monitors.routes.js';
import { streamAgentObsEvents } from './stream.js';
import { streamHubOf } from './stream-hub.js';
import { toAgentObsCheck, toAgentObsEvent } from './view.js';

const read = [requireAuth({ scope: 'read' })];
const TAGS = ['agent-obs'];
const NOT_FOUND = { 404: jsonError('NOT_FOUND: no agent-obs monitor of yours (or your teams\') with this id') };

const checks = createRoute({
  method: 'get', path: '/monitors/{id}/checks', tags: TAGS, security: BEARER, middleware: read,
  summary: 'Check records of a monitor, newest first: offset mode (offset) or keyset mode (cursor = a next_cursor)',
  request: { params: agentObsIdParam, query: agentObsCheckQuerySchema },
  responses: { 200: jsonOk(agentObsCheckListSchema, '{items[], limit, offset, total, next_cursor?}'), 400: jsonError('VALIDATION_FAILED (a cursor that is not one of ours)'), ...NOT_FOUND, ...AUTH_ERRORS },
});
const events = createRoute({
  method: 'get', path: '/events', tags: TAGS, security: BEARER, middleware: read,
  summary: 'Agent-obs events of your monitors, newest first; filters monitor_id, from, to, success',
  request: { query: agentObsEventQuerySchema },
  responses: { 200: jsonOk(z.object({ items: z.array(agentObsEventSchema), limit: z.number().int(), offset: z.number().int(), total: z.number().int() }), '{items[], limit, offset, total}'), 400: jsonError('VALIDATION_FAILED'), ...AUTH_ERRORS },
});
const stream = createRoute({
  method: 'get', path: '/events/stream', tags: TAGS, security: BEARER, middleware: read,
  summary: 'Server-sent events: every new event of your monitors (or of monitor_id) as agent_obs.event frames; Last-Event-ID resumes after the event it names',
  request: { query: agentObsStreamQuerySchema },
  responses: {
    200: { description: 'text/event-stream of agent_obs.event frames', content: { 'text/event-stream': { schema: z.string(), example: 'event: agent_obs.event\nid: aoe_01jd3k6w9z4q8r2t7v5x1y3b6c\ndata: {"id":"aoe_01jd3k6w9z4q8r2t7v5x1y3b6c","monitor_id":"aom_…",…}\n\n' } } },
    ...NOT_FOUND, ...AUTH_ERRORS,
  },
});

/** A checks cursor: the keyset position (`c` + the last item's event id). */
const encodeCursor = (id: string) => Buffer.from(id).toString('base64url');
const decodeCursor = (cursor: string) => Buffer.from(cursor, 'base64url').toString();

/**
 * `/v1/agent-obs` events (docs/api/agent-obs.md): a monitor's check records, the event list, and
 * the resumable event stream (one hub per process: stream-hub.ts).
 */
export function agentObsEventsRouter(deps: AppDeps) {
  const r = createRouter();
  const hub = streamHubOf({ sql: deps.sql, log: deps.log, poll_ms: deps.config.agent_obs_stream_poll_ms });

  const monitorFor = async (c: Parameters<typeof authorize>[0], id: string) => {
    const row = isId('agent_obs_monitor', id) ? await findAgentObsMonitor(deps.sql, id) : null;
    await authorize(c, deps, row && { user_id: row.user_id, team_id: row.team_id }, 'read', 'NOT_FOUND', 'agent-obs monitor');
    return row!;
  };

  r.openapi(checks, async (c) => {
    const row = await monitorFor(c, c.req.valid('param').id);
    const q = c.req.valid('query');
    let before: string | null = null;
    if (q.cursor !== undefined) {
      const id = decodeCursor(q.cursor);
      before = isId('agent_obs_event', id) ? await eventSeq(deps.sql, id) : null;
      if (before === null) throw new ApiError('VALIDATION_FAILED', 'cursor: not a cursor of this list (send back a next_cursor)', { fields: [{ path: 'cursor', message: 'unknown cursor' }], in: 'query' });
    }
    const offset_mode = q.offset !== undefined;
    const { rows, total } = await listAgentObsChecks(deps.sql, row.id, q.limit + 1, q.offset ?? 0, before);
    const page = rows.slice(0, q.limit);
    const body: { items: ReturnType<typeof toAgentObsCheck>[]; limit: number; offset: number; total: number; next_cursor?: string } = {
      items: page.map(toAgentObsCheck), limit: q.limit, offset: q.offset ?? 0, total,
    };
    // Keyset mode (no offset given): the cursor of the next page, when there is one.
    if (rows.length > q.limit && !offset_mode) body.next_cursor = encodeCursor(page[page.length - 1]!.id);
    return ok(c, body, 200);
  });

  r.openapi(events, async (c) => {
    const q = c.req.valid('query');
    const scope = await ownerScope(c, deps, 'read');
    const now = Date.now();
    const { rows, total } = await listAgentObsEvents(deps.sql, scope, {
      monitor_ids: q.monitor_id === undefined ? null : [q.monitor_id],
      from_ms: q.from === undefined ? undefined : resolveTime(q.from, now), to_ms: q.to === undefined ? undefined : resolveTime(q.to, now), success: q.success,
    }, q.limit, q.offset);
    return ok(c, { items: rows.map(toAgentObsEvent), limit: q.limit, offset: q.offset, total }, 200);
  });

  r.openapi(stream, async (c) => {
    const { monitor_id } = c.req.valid('query');
    if (monitor_id !== undefined) await monitorFor(c, monitor_id);
    const scope = await ownerScope(c, deps, 'read');
    return await streamAgentObsEvents(c, { sql: deps.sql, hub }, scope, monitor_id ?? null) as never;
  });

  return r;
}
