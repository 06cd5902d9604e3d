import { newId, type AlertChannelType, type AlertNotification } from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';
import type { SqlExecutor } from '../contracts.js';
import { insertDeliveries, type NewDelivery } from '../delivery/deliveries.db.js';

/** The delivery channel (sender kind) of an alert channel type: `alert.slack`, `alert.email`… */
export function deliveryChannel(type: AlertChannelType): string {
  return `alert.${type}`;
}

/**
 * Queue `notification` for one alert channel in the delivery engine (inside `ex` when it is a
 * transaction): destination = the channel id (its sender reads the config at send time), payload
 * = the notification. `message_id` is the stable id receivers see on every attempt; give one
 * derived from the event and action (e.g. `msg_<event>_<level>_<action>`) so queueing twice is a no-op.
 * @returns the delivery id and whether it was queued now
 */
export async function queueNotification(
  ex: SqlExecutor, config: Pick<Config, 'delivery_notify_channel'>,
  channel: { id: string; type: AlertChannelType; user_id: string },
  notification: AlertNotification, message_id: string = newId('message'),
): Promise<{ delivery_id: string; queued: boolean }> {
  const row = notificationDelivery(channel, notification, message_id);
  const n = await insertDeliveries(ex, [row], config.delivery_notify_channel);
  return { delivery_id: row.id, queued: n > 0 };
}

/**
 * The delivery row of `notification` for one alert channel (a new delivery id; `message_id` as
 * for queueNotification), for callers that queue many in one insertDeliveries.
 */
export function notificationDelivery(channel: { id: string; type: AlertChannelType; user_id: string }, notification: AlertNotification, message_id: string): NewDelivery {
  return {
    id: newId('delivery'), message_id, channel: deliveryChannel(channel.type), destination: channel.id,
    user_id: channel.user_id, event_type: notification.kind === 'test' ? 'alert.test' : `alert.${notification.event_action}`,
    payload: notification,
  };
}

/** The notification a channel test sends. */
export function testNotification(channel: { id: string; name: string }, now = new Date()): AlertNotification {
  return {
    kind: 'test', event_action: 'trigger', dedup_key: `vantage-test-${channel.id}`, severity: 'info',
    title: `Vantage test notification for "${channel.name}"`,
    body: 'This is a test notification from Vantage. If you can read it, this channel delivers alerts.',
    occurred_at: now.toISOString(), monitor: null, event_id: null, policy_id: null,
  };
}
