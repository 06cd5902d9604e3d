import { newId, parseEventData, type EventEnvelope, type EventType } from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';
import type { EventPublisher, OutboundEvent, SqlExecutor } from '../contracts.js';
import type { Sql } from '../db/sql.js';
import { insertDeliveries, type NewDelivery } from '../delivery/deliveries.db.js';
import type { WakeSignal } from '../delivery/wake.js';
import type { Logger } from '../log.js';
import { eventOwners } from './event-owner.db.js';
import { enabledEndpointsOf, ownerKey, WEBHOOK_CHANNEL } from './webhook-endpoints.db.js';

/** The deliveries of one event envelope to `endpoint_ids` (one each, message id = event id). */
function eventDeliveries(user_id: string, envelope: EventEnvelope, endpoint_ids: string[]): NewDelivery[] {
  return endpoint_ids.map((destination) => ({
    id: newId('delivery'), message_id: envelope.id, channel: WEBHOOK_CHANNEL, destination,
    user_id, event_type: envelope.type, payload: envelope,
  }));
}

/** Queue one event envelope for `endpoint_ids` (one delivery each, message id = event id). @returns how many were new */
export async function queueEvent(ex: SqlExecutor, config: Pick<Config, 'delivery_notify_channel'>, user_id: string, envelope: EventEnvelope, endpoint_ids: string[]): Promise<number> {
  return insertDeliveries(ex, eventDeliveries(user_id, envelope, endpoint_ids), config.delivery_notify_channel);
}

/**
 * The EventPublisher of contracts.ts: validates `data` against the catalog (shared-protocol
 * events.ts; an invalid event with a subscribed endpoint is logged and dropped), builds the envelope `{id, type, timestamp,
 * data}` and queues one delivery per enabled endpoint of the event's owner subscribed to the type
 * or to `*`, in the caller's transaction when given: the team's endpoints for an event of a team's
 * monitor, policy or node, the account's personal ones otherwise (event-owner.db.ts). The event id is the message id of every
 * delivery (the `webhook-id`); publishing an event id twice queues nothing new. `publishMany`
 * does the same for many events in a few statements: the owners' lookups per kind of resource,
 * the owners' endpoints, the deliveries, each one statement.
 */
export function createEventPublisher(deps: { sql: Sql; log: Logger; config: Config; signal?: WakeSignal }): EventPublisher {
  const log = deps.log.child({ module: 'events' });
  async function publishMany(events: OutboundEvent[], tx?: SqlExecutor): Promise<number> {
    if (events.length === 0) return 0;
    const ex = tx ?? deps.sql;
    // Owners and their endpoints first: an event nobody is subscribed to is not even checked
    // (a storm's monitor.down events of an account without webhooks cost two reads, no parse).
    const owners = await eventOwners(ex, events);
    const endpoints = await enabledEndpointsOf(ex, owners);
    const rows: NewDelivery[] = [];
    events.forEach((event, i) => {
      const subscribed = (endpoints.get(ownerKey(owners[i]!)) ?? []).filter((e) => e.events.includes(event.type) || e.events.includes('*'));
      if (subscribed.length === 0) return;
      const parsed = parseEventData(event.type, event.data);
      if (!parsed.ok) {
        log.error({ type: event.type, error: parsed.error }, 'event dropped: data does not match the catalog schema');
        return;
      }
      const envelope: EventEnvelope<EventType> = {
        id: event.id ?? newId('event'), type: event.type,
        timestamp: (event.occurred_at ?? new Date()).toISOString(), data: parsed.value,
      };
      rows.push(...eventDeliveries(event.user_id, envelope, subscribed.map((e) => e.id)));
    });
    if (rows.length === 0) return 0;
    const queued = await insertDeliveries(ex, rows, deps.config.delivery_notify_channel);
    if (!tx) deps.signal?.wake();
    return queued;
  }
  return {
    publish: (event, tx) => publishMany([event], tx),
    publishMany,
  };
}
