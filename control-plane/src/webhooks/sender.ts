import { WEBHOOK_HEADERS, webhookSignatureHeader } from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';
import type { Mailer } from '../contracts.js';
import type { Sql } from '../db/sql.js';
import type { DeliveryRow } from '../delivery/deliveries.db.js';
import type { OutboundHttp } from '../delivery/http-client.js';
import { failure, type Sender, type SendContext, type SendOutcome } from '../delivery/sender.js';
import { findUserById } from '../accounts/accounts.db.js';
import { endpointDisabledEmail } from './disabled-email.js';
import { clearFailing, disableIfFailing, getEndpointById, markFailing, WEBHOOK_CHANNEL, type EndpointRow } from './webhook-endpoints.db.js';

/**
 * How long an endpoint row read for one attempt serves others to the same endpoint, ms: a busy
 * endpoint costs one read per half second instead of one per attempt, and a change to it (URL,
 * secret rotation, disable) applies to attempts that start at most this much later.
 */
export const ENDPOINT_CACHE_MS = 500;

/** The secrets that sign now: the current one, and the previous one during its overlap after a rotation. */
export function signingSecrets(ep: Pick<EndpointRow, 'secret' | 'previous_secret' | 'previous_secret_expires_at'>, now = Date.now()): string[] {
  const live = ep.previous_secret && ep.previous_secret_expires_at && ep.previous_secret_expires_at.getTime() > now;
  return live ? [ep.secret, ep.previous_secret!] : [ep.secret];
}

/**
 * The `webhook` channel (docs/api/webhooks.md): POSTs the event envelope to the endpoint's URL
 * as read at send time (so a rotation or an URL change applies to retries), signed per the
 * Standard Webhooks specification: `webhook-id` (the event id, the same on every retry),
 * `webhook-timestamp` (seconds, this attempt), `webhook-signature` (`v1,<base64 HMAC-SHA256 of
 * id.timestamp.body>` per live secret, space-separated). The endpoint row is shared by attempts
 * starting within ENDPOINT_CACHE_MS. 2xx is success; any other answer,
 * a timeout or a network error is retried; a deleted or disabled endpoint and an address the
 * policy refuses fail at once. Each outcome moves the endpoint's health: the first failure after
 * a success sets `failing_since`, a success clears it, and a failure once it has been failing for
 * `webhook_disable_after_s` disables the endpoint and e-mails its owner (once).
 */
export function createWebhookSender(deps: { sql: Sql; config: Config; http: OutboundHttp; mail: Mailer }): Sender {
  const { sql, config, http, mail } = deps;
  const cache = new Map<string, { at: number; row: Promise<EndpointRow | null> }>();

  function endpoint(id: string): Promise<EndpointRow | null> {
    const now = performance.now();
    const hit = cache.get(id);
    if (hit && now - hit.at < ENDPOINT_CACHE_MS) return hit.row;
    if (cache.size > 10_000) for (const [k, v] of cache) if (now - v.at >= ENDPOINT_CACHE_MS) cache.delete(k);
    const row = getEndpointById(sql, id);
    cache.set(id, { at: now, row });
    row.catch(() => cache.delete(id));
    return row;
  }

  async function track(ep: EndpointRow, ok: boolean, ctx: SendContext): Promise<void> {
    if (ok) {
      if (ep.failing_since) {
        cache.delete(ep.id);
        await clearFailing(sql, ep.id);
      }
      return;
    }
    if (!ep.failing_since) {
      cache.delete(ep.id);
      return markFailing(sql, ep.id);
    }
    if (Date.now() - ep.failing_since.getTime() < config.webhook_disable_after_s * 1000) return;
    await sql.begin(async (tx) => {
      const disabled = await disableIfFailing(tx, ep.id, config.webhook_disable_after_s);
      if (!disabled) return;
      ctx.log.warn({ endpoint_id: ep.id, failing_since: ep.failing_since }, 'webhook endpoint disabled after failing continuously');
      const owner = await findUserById(sql, ep.user_id);
      if (!owner?.email) return;
      const rendered = endpointDisabledEmail({ url: ep.url, endpoint_id: ep.id, failing_since: ep.failing_since!, after_s: config.webhook_disable_after_s });
      await mail.send({ ...rendered, to: owner.email, user_id: owner.id, kind: 'webhook.endpoint_disabled' }, tx);
    });
  }

  return {
    channel: WEBHOOK_CHANNEL,
    async send(delivery: DeliveryRow, ctx: SendContext): Promise<SendOutcome> {
      const ep = await endpoint(delivery.destination);
      if (!ep) return failure('the webhook endpoint was deleted', false);
      if (!ep.enabled) return failure(`the webhook endpoint is disabled (${ep.disabled_reason ?? 'user'})`, false);
      const body = JSON.stringify(delivery.payload);
      const timestamp = Math.floor(Date.now() / 1000);
      const headers = {
        'content-type': 'application/json',
        'user-agent': 'Vantage-Webhooks/1',
        [WEBHOOK_HEADERS.id]: delivery.message_id,
        [WEBHOOK_HEADERS.timestamp]: String(timestamp),
        [WEBHOOK_HEADERS.signature]: webhookSignatureHeader(signingSecrets(ep), delivery.message_id, timestamp, body),
      };
      const res = await http.post(ep.url, body, headers, { timeout_ms: config.delivery_timeout_ms, signal: ctx.signal });
      let outcome: SendOutcome;
      if (res.kind === 'error') {
        outcome = { ok: false, retriable: !res.refused, error: res.error, status_code: null, response_body: null, latency_ms: res.latency_ms };
      } else if (res.status_code >= 200 && res.status_code < 300) {
        outcome = { ok: true, status_code: res.status_code, response_body: res.response_body, latency_ms: res.latency_ms };
      } else {
        outcome = { ok: false, retriable: true, error: `HTTP ${res.status_code}`, status_code: res.status_code, response_body: res.response_body, latency_ms: res.latency_ms };
      }
      await track(ep, outcome.ok, ctx).catch((err: unknown) => ctx.log.warn({ err, endpoint_id: ep.id }, 'endpoint health update failed'));
      return outcome;
    },
  };
}
