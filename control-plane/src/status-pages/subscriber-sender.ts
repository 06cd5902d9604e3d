import type { Config } from '../config/index.js';
import type { Sql } from '../db/sql.js';
import type { DeliveryRow } from '../delivery/deliveries.db.js';
import type { OutboundHttp } from '../delivery/http-client.js';
import { postSignedWebhook } from '../delivery/signed-webhook.js';
import { failure, type SendContext, type SendOutcome, type Sender } from '../delivery/sender.js';
import { getSubscriber } from './subscribers.db.js';

/** The delivery channel of status page webhook subscribers. */
export const SUBSCRIBER_WEBHOOK_CHANNEL = 'status_page.webhook';

/**
 * Sends a status page notice to a webhook subscriber (`destination` = the subscriber id) signed
 * per Standard Webhooks (webhook-id = the delivery's message id, the same on every retry;
 * webhook-timestamp; webhook-signature with the subscriber's secret). A subscriber gone or
 * unsubscribed fails the delivery for good; non-2xx answers and network errors are retried by the
 * delivery engine; the outbound address policy applies as for every webhook.
 */
export function createSubscriberWebhookSender(deps: { sql: Sql; config: Config; http: OutboundHttp }): Sender {
  return {
    channel: SUBSCRIBER_WEBHOOK_CHANNEL,
    async send(delivery: DeliveryRow, ctx: SendContext): Promise<SendOutcome> {
      const sub = await getSubscriber(deps.sql, delivery.destination);
      if (!sub || sub.state !== 'confirmed' || sub.secret === null) return failure('the subscriber unsubscribed or was removed', false);
      return postSignedWebhook(deps.http, deps.config, sub.address, [sub.secret], delivery, ctx);
    },
  };
}
