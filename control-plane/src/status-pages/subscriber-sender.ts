import { WEBHOOK_HEADERS, webhookSignatureHeader } from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';
import type { Sql } from '../db/sql.js';
import type { DeliveryRow } from '../delivery/deliveries.db.js';
import type { OutboundHttp } from '../delivery/http-client.js';
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
      const body = JSON.stringify(delivery.payload);
      const timestamp = Math.floor(Date.now() / 1000);
      const res = await deps.http.post(sub.address, body, {
        'content-type': 'application/json',
        'user-agent': 'Vantage-Webhooks/1',
        [WEBHOOK_HEADERS.id]: delivery.message_id,
        [WEBHOOK_HEADERS.timestamp]: String(timestamp),
        [WEBHOOK_HEADERS.signature]: webhookSignatureHeader([sub.secret], delivery.message_id, timestamp, body),
      }, { timeout_ms: deps.config.delivery_timeout_ms, signal: ctx.signal });
      if (res.kind === 'error') return { ok: false, retriable: !res.refused, error: res.error, status_code: null, response_body: null, latency_ms: res.latency_ms };
      if (res.status_code >= 200 && res.status_code < 300) return { ok: true, status_code: res.status_code, response_body: res.response_body, latency_ms: res.latency_ms };
      return { ok: false, retriable: true, error: `HTTP ${res.status_code}`, status_code: res.status_code, response_body: res.response_body, latency_ms: res.latency_ms };
    },
  };
}
