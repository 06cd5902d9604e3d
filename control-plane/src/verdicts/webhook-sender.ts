import type { Config } from '../config/index.js';
import type { Sql } from '../db/sql.js';
import type { DeliveryRow } from '../delivery/deliveries.db.js';
import type { OutboundHttp } from '../delivery/http-client.js';
import { postSignedWebhook } from '../delivery/signed-webhook.js';
import { failure, type SendContext, type SendOutcome, type Sender } from '../delivery/sender.js';
import { secretBoxOf } from '../secrets/secret-box.js';
import { webhookSecretAad } from './orders.js';
import { findOrder } from './verdicts.db.js';

/** The delivery channel of verdict completion callbacks (`destination` = the order id). */
export const VERDICT_WEBHOOK_CHANNEL = 'verdict.webhook';

/**
 * Sends a verdict order's completion callback to its `webhook_url`, signed per Standard Webhooks
 * with the order's secret (returned as `webhook_secret` at creation): webhook-id = the delivery's
 * message id (the same on every retry), webhook-timestamp, webhook-signature. An order gone fails
 * for good; non-2xx answers and network errors are retried by the delivery engine; the outbound
 * address policy applies as for every webhook.
 */
export function createVerdictWebhookSender(deps: { sql: Sql; config: Config; http: OutboundHttp }): Sender {
  return {
    channel: VERDICT_WEBHOOK_CHANNEL,
    async send(delivery: DeliveryRow, ctx: SendContext): Promise<SendOutcome> {
      const order = await findOrder(deps.sql, delivery.destination);
      if (!order || !order.webhook_url || !order.webhook_secret_sealed) return failure('the order or its webhook is gone', false);
      const secret = secretBoxOf(deps.config).open(order.webhook_secret_sealed, webhookSecretAad(order.id));
      return postSignedWebhook(deps.http, deps.config, order.webhook_url, [secret], delivery, ctx);
    },
  };
}
