import { newId, type AlertChannelType, type AlertNotification } from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';
import type { SqlExecutor } from '../contracts.js';
import { insertDeliveries, type NewDelivery } from '../delivery/deliveries.db.js';
import type { EmailPayload } from '../delivery/email-sender.js';
import { renderEmail } from '../email/layout.js';
import type { OnCallContact } from '../oncall/contact.js';

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

/**
 * The delivery of `notification` to the person on call on a schedule (docs/api/teams.md "On-call
 * schedules"): an e-mail to their account address through the delivery engine's `email` channel
 * (the one account e-mails take; destination = the lower-cased address), `message_id` as for
 * queueNotification. `owner_id` is the policy owner's user id (the delivery's account).
 */
export function oncallEmailDelivery(contact: OnCallContact, notification: AlertNotification, message_id: string, owner_id: string): NewDelivery {
  const rendered = renderEmail({
    subject: notification.title || 'Vantage alert',
    paragraphs: notification.body.split(/\n{2,}/).filter(Boolean),
    footer: `${notification.severity} · ${notification.event_action} · ${notification.occurred_at} · you are on call on the schedule "${contact.schedule_name}"`,
  });
  const payload: EmailPayload = { to: contact.email, subject: rendered.subject, text: rendered.text, html: rendered.html };
  return {
    id: newId('delivery'), message_id, channel: 'email', destination: contact.email.toLowerCase(),
    user_id: owner_id, event_type: `alert.${notification.event_action}`, payload,
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
