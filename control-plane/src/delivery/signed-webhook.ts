import { WEBHOOK_HEADERS, webhookSignatureHeader } from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';
import type { DeliveryRow } from './deliveries.db.js';
import type { OutboundHttp } from './http-client.js';
import type { SendContext, SendOutcome } from './sender.js';

/**
 * POST `delivery.payload` to `url` signed per Standard Webhooks with `secrets` (webhook-id = the
 * delivery's message id, the same on every retry; webhook-timestamp in seconds; webhook-signature)
 * and classify the answer: 2xx succeeds; non-2xx and network errors are retriable; an address the
 * outbound policy refuses is not.
 */
export async function postSignedWebhook(http: OutboundHttp, config: Pick<Config, 'delivery_timeout_ms'>, url: string, secrets: string[], delivery: DeliveryRow, ctx: SendContext): Promise<SendOutcome> {
  const body = JSON.stringify(delivery.payload);
  const timestamp = Math.floor(Date.now() / 1000);
  const res = await http.post(url, body, {
    'content-type': 'application/json',
    'user-agent': 'Vantage-Webhooks/1',
    [WEBHOOK_HEADERS.id]: delivery.message_id,
    [WEBHOOK_HEADERS.timestamp]: String(timestamp),
    [WEBHOOK_HEADERS.signature]: webhookSignatureHeader(secrets, delivery.message_id, timestamp, body),
  }, { timeout_ms: config.delivery_timeout_ms, signal: ctx.signal });
  if (res.kind === 'error') return { ok: false, retriable: !res.refused, error: res.error, status_code: null, response_body: null, latency_ms: res.latency_ms };
  if (res.status_code >= 200 && res.status_code < 300) return { ok: true, status_code: res.status_code, response_body: res.response_body, latency_ms: res.latency_ms };
  return { ok: false, retriable: true, error: `HTTP ${res.status_code}`, status_code: res.status_code, response_body: res.response_body, latency_ms: res.latency_ms };
}
