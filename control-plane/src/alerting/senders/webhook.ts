import { WEBHOOK_HEADERS, webhookSignatureHeader } from '@vantage/shared-protocol';
import { JSON_HEADERS, type ChannelFormat } from './http-channel.js';

/**
 * A signed JSON webhook, like webhook endpoints (docs/api/webhooks.md): the body is
 * `{id, type, timestamp, data}` (type `alert.test`, `alert.trigger`, `alert.acknowledge` or
 * `alert.resolve`; data = the notification), signed per the Standard Webhooks specification with
 * the channel's secret (`webhook-id` = the message id, the same on every retry).
 */
export const webhookFormat: ChannelFormat<'webhook'> = {
  type: 'webhook',
  build(c, n, { message_id, now }) {
    const type = n.kind === 'test' ? 'alert.test' : `alert.${n.event_action}`;
    const body = JSON.stringify({ id: message_id, type, timestamp: now.toISOString(), data: n });
    const timestamp = Math.floor(now.getTime() / 1000);
    return [{
      url: c.url, body,
      headers: {
        ...JSON_HEADERS,
        [WEBHOOK_HEADERS.id]: message_id,
        [WEBHOOK_HEADERS.timestamp]: String(timestamp),
        [WEBHOOK_HEADERS.signature]: webhookSignatureHeader([c.secret], message_id, timestamp, body),
      },
    }];
  },
};
