import { newId, parseEventData, type EventEnvelope, type EventType } from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';
import type { EventPublisher, OutboundEvent, SqlExecutor } from '../contracts.js';
import type { Sql } from '../db/sql.js';
import { insertDeliveries } from '../delivery/deliveries.db.js';
import type { WakeSignal } from '../delivery/wake.js';
import type { Logger } from '../log.js';
import { eventOwner } from './event-owner.db.js';
import { subscribedEndpoints, WEBHOOK_CHANNEL } from './webhook-endpoints.db.js';

/** Queue one event envelope for `endpoint_ids` (one delivery each, message id = event id). @returns how many were new */
export async function queueEvent(ex: SqlExecutor, config: Pick<Config, 'delivery_notify_channel'>, user_id: string, envelope: EventEnvelope, endpoint_ids: string[]): Promise<number> {
  return insertDeliveries(ex, endpoint_ids.map((destination) => ({
    id: newId('delivery'), message_id: envelope.id, channel: WEBHOOK_CHANNEL, destination,
    user_id, event_type: envelope.type, payload: envelope,
  })), config.delivery_notify_channel);
}

/**
 * The EventPublisher of contracts.ts: validates `data` against the catalog (shared-protocol
 * events.ts; an invalid event is logged and dropped), builds the envelope `{id, type, timestamp,
 * data}` and queues one delivery per enabled endpoint of the event's owner subscribed to the type
 * or to `*`, in the caller's transaction when given: the team's endpoints for an event of a team's
 * monitor, policy or node, the account's personal ones otherwise (event-owner.db.ts). The event id is the message id of every
 * delivery (the `webhook-id`); publishing an event id twice queues nothing new.
 */
export function createEventPublisher(deps: { sql: Sql; log: Logger; config: Config; signal?: WakeSignal }): EventPublisher {
  const log = deps.log.child({ module: 'events' });
  return {
    async publish(event: OutboundEvent, tx?: SqlExecutor): Promise<number> {
      const parsed = parseEventData(event.type, event.data);
      if (!parsed.ok) {
        log.error({ type: event.type, error: parsed.error }, 'event dropped: data does not match the catalog schema');
        return 0;
      }
      const ex = tx ?? deps.sql;
      const endpoints = await subscribedEndpoints(ex, await eventOwner(ex, event), event.type);
      if (endpoints.length === 0) return 0;
      const envelope: EventEnvelope<EventType> = {
        id: event.id ?? newId('event'), type: event.type,
        timestamp: (event.occurred_at ?? new Date()).toISOString(), data: parsed.value,
      };
      const queued = await queueEvent(ex, deps.config, event.user_id, envelope, endpoints);
      if (!tx) deps.signal?.wake();
      return queued;
    },
  };
}
