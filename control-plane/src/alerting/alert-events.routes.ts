import { createRoute } from '@hono/zod-openapi';
import { alertEventDetailSchema, alertEventListQuerySchema, alertEventListSchema, alertEventRecordSchema, isId, resolveTime } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { AUTH_ERRORS, BEARER, jsonError, jsonOk } from '../http/openapi-responses.js';
import { ok } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { eventNotifications, getEvent, listEvents } from './alert-events.db.js';
import { acknowledgeEvent, resolveEvent } from './engine.js';
import { toAlertEvent } from './events.js';
import { idParam, READ, TAGS, WRITE } from './route-kit.js';

const params = idParam('ae_01jd3k6w9z4q8r2t7v5x1y3b6c');
const NOT_FOUND = { 404: jsonError('NOT_FOUND: no such alert event of yours') };
const list = createRoute({ method: 'get', path: '/', tags: TAGS, security: BEARER, middleware: READ, summary: 'Your alert events, newest first (filters: status, monitor_id, from/to on started_at)', request: { query: alertEventListQuerySchema }, responses: { 200: jsonOk(alertEventListSchema, 'a page of events'), 400: jsonError('VALIDATION_FAILED'), ...AUTH_ERRORS } });
const readOne = createRoute({ method: 'get', path: '/{id}', tags: TAGS, security: BEARER, middleware: READ, summary: 'One alert event with its notifications', request: { params }, responses: { 200: jsonOk(alertEventDetailSchema, 'the event'), ...NOT_FOUND, ...AUTH_ERRORS } });
const ack = createRoute({ method: 'post', path: '/{id}/ack', tags: TAGS, security: BEARER, middleware: WRITE, summary: 'Acknowledge a firing event: escalation stops, the channels already paged are told', request: { params }, responses: { 200: jsonOk(alertEventRecordSchema, 'the event'), 409: jsonError('CONFLICT: the event is resolved'), ...NOT_FOUND, ...AUTH_ERRORS } });
const resolve = createRoute({ method: 'post', path: '/{id}/resolve', tags: TAGS, security: BEARER, middleware: WRITE, summary: 'Resolve an event by hand: the channels already paged are told', request: { params }, responses: { 200: jsonOk(alertEventRecordSchema, 'the event'), ...NOT_FOUND, ...AUTH_ERRORS } });

/** `/v1/alert-events` (docs/api/alerting.md "Alert events"): list, read, acknowledge, resolve. */
export function alertEventsRouter(deps: AppDeps) {
  const r = createRouter();
  const engine = { sql: deps.sql, config: deps.config, events: deps.events, log: deps.log };
  const notFound = (id: string) => new ApiError('NOT_FOUND', `no alert event ${id}`);

  r.openapi(list, async (c) => {
    const q = c.req.valid('query');
    const now = Date.now();
    const { rows, total } = await listEvents(deps.sql, c.get('principal')!.user_id, {
      status: q.status, monitor_id: q.monitor_id, from: q.from ? new Date(resolveTime(q.from, now)) : undefined, to: q.to ? new Date(resolveTime(q.to, now)) : undefined,
      limit: q.page_size, offset: (q.page - 1) * q.page_size,
    });
    return ok(c, { items: rows.map(toAlertEvent), total, page: q.page, page_size: q.page_size, has_more: q.page * q.page_size < total }, 200);
  });
  r.openapi(readOne, async (c) => {
    const { id } = c.req.valid('param');
    const row = isId('alert_event', id) ? await getEvent(deps.sql, c.get('principal')!.user_id, id) : null;
    if (!row) throw notFound(id);
    const notifications = (await eventNotifications(deps.sql, id)).map((n) => ({
      level: n.level, channel_id: n.channel_id, kind: n.kind, delivery_id: n.delivery_id, suppressed: n.suppressed, created_at: n.created_at.toISOString(),
    }));
    return ok(c, { ...toAlertEvent(row), notifications }, 200);
  });
  r.openapi(ack, async (c) => {
    const { id } = c.req.valid('param');
    const out = isId('alert_event', id) ? await acknowledgeEvent(engine, c.get('principal')!.user_id, id) : 'missing';
    if (out === 'missing') throw notFound(id);
    if (out === 'resolved') throw new ApiError('CONFLICT', `alert event ${id} is resolved`);
    return ok(c, toAlertEvent(out), 200);
  });
  r.openapi(resolve, async (c) => {
    const { id } = c.req.valid('param');
    const out = isId('alert_event', id) ? await resolveEvent(engine, c.get('principal')!.user_id, id) : 'missing';
    if (out === 'missing') throw notFound(id);
    return ok(c, toAlertEvent(out), 200);
  });
  return r;
}
