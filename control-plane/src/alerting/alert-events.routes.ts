import { createRoute } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { alertEventDetailSchema, alertEventListQuerySchema, alertEventListSchema, alertEventRecordSchema, isId } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { authorize, ownerScope } from '../teams/authorize.js';
import type { Access } from '../teams/roles.js';
import { eventNotifications, getEvent } from './alert-events.db.js';
import { alertEventsPage } from './alert-events-list.js';
import { acknowledgeEvent, resolveEvent } from './engine.js';
import { toAlertEvent } from './events.js';
import { idParam, ownerOf, READ, TAGS, WRITE } from './route-kit.js';

const params = idParam('ae_01jd3k6w9z4q8r2t7v5x1y3b6c');
const NOT_FOUND = { 404: jsonError('NOT_FOUND: no such alert event you can read (an event is owned like its policy)') };
const FORBIDDEN = { 403: jsonError('FORBIDDEN: the credential lacks the required scope, or your role in the policy\'s team cannot acknowledge or resolve (a viewer only reads)') };
const list = createRoute({ method: 'get', path: '/', tags: TAGS, security: BEARER, middleware: READ, summary: 'The alert events you can read, yours and your teams\', newest first (filters: status, monitor_id, team_id, from/to on started_at)', request: { query: alertEventListQuerySchema }, responses: { 200: jsonOk(alertEventListSchema, 'a page of events'), 400: jsonError('VALIDATION_FAILED'), ...AUTH_ERRORS } });
const readOne = createRoute({ method: 'get', path: '/{id}', tags: TAGS, security: BEARER, middleware: READ, summary: 'One alert event with its notifications', request: { params }, responses: { 200: jsonOk(alertEventDetailSchema, 'the event'), ...NOT_FOUND, ...AUTH_ERRORS } });
const ack = createRoute({ method: 'post', path: '/{id}/ack', tags: TAGS, security: BEARER, middleware: WRITE, summary: 'Acknowledge a firing event: escalation stops, the channels already paged are told', request: { params }, responses: { 200: jsonOk(alertEventRecordSchema, 'the event'), 409: jsonError('CONFLICT: the event is resolved'), ...NOT_FOUND, ...AUTH_ERRORS, ...FORBIDDEN } });
const resolve = createRoute({ method: 'post', path: '/{id}/resolve', tags: TAGS, security: BEARER, middleware: WRITE, summary: 'Resolve an event by hand: the channels already paged are told', request: { params }, responses: { 200: jsonOk(alertEventRecordSchema, 'the event'), ...NOT_FOUND, ...AUTH_ERRORS, ...FORBIDDEN } });

/**
 * `/v1/alert-events` (docs/api/alerting.md "Alert events"): list, read, acknowledge, resolve. An
 * event is owned like its policy: reads need `read`, ack and resolve `write` (teams/authorize.ts).
 */
export function alertEventsRouter(deps: AppDeps) {
  const r = createRouter();
  const engine = { sql: deps.sql, config: deps.config, events: deps.events, log: deps.log };
  const notFound = (id: string) => new ApiError('NOT_FOUND', `no alert event ${id}`);
  const owned = async (c: Context<AppEnv>, id: string, access: Access) => {
    const row = isId('alert_event', id) ? await getEvent(deps.sql, id) : null;
    await authorize(c, deps, row && ownerOf(row), access, 'NOT_FOUND', 'alert event');
    return row!;
  };

  r.openapi(list, async (c) => {
    const q = c.req.valid('query');
    return ok(c, await alertEventsPage(deps.sql, await ownerScope(c, deps, 'read', q.team_id), q), 200);
  });
  r.openapi(readOne, async (c) => {
    const { id } = c.req.valid('param');
    const row = await owned(c, id, 'read');
    const notifications = (await eventNotifications(deps.sql, id)).map((n) => ({
      level: n.level, channel_id: n.channel_id, kind: n.kind, delivery_id: n.delivery_id, suppressed: n.suppressed, created_at: n.created_at.toISOString(),
    }));
    return ok(c, { ...toAlertEvent(row), notifications }, 200);
  });
  r.openapi(ack, async (c) => {
    const { id } = c.req.valid('param');
    const { team_id } = await owned(c, id, 'write');
    const out = await acknowledgeEvent(engine, c.get('principal')!.user_id, id);
    if (out === 'missing') throw notFound(id);
    if (out === 'resolved') throw new ApiError('CONFLICT', `alert event ${id} is resolved`);
    return ok(c, toAlertEvent({ ...out, team_id }), 200);
  });
  r.openapi(resolve, async (c) => {
    const { id } = c.req.valid('param');
    const { team_id } = await owned(c, id, 'write');
    const out = await resolveEvent(engine, c.get('principal')!.user_id, id);
    if (out === 'missing') throw notFound(id);
    return ok(c, toAlertEvent({ ...out, team_id }), 200);
  });
  return r;
}
