import { newId } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';
import type { AppDeps } from '../deps.js';
import { insertDeliveries } from '../delivery/deliveries.db.js';
import { renderEmail } from '../email/layout.js';
import { publicLink } from '../email/links.js';
import type { VerdictOrderRow } from './verdicts.db.js';
import { VERDICT_WEBHOOK_CHANNEL } from './webhook-sender.js';

/**
 * Completion notices of an order (docs/api/verdicts.md "Completion"), queued in `tx` with the
 * order's change so none is lost or sent for a change rolled back: an e-mail to `notify_email`
 * and, when `webhook_url` is set, a `verdict.completed` / `verdict.failed` callback, both through
 * the delivery engine (sent independently, in parallel).
 */
export async function queueCompletionNotices(deps: Pick<AppDeps, 'config' | 'mail'>, tx: SqlExecutor, order: VerdictOrderRow, outcome: { status: 'completed' | 'failed'; content_hash: string | null; error: string | null }): Promise<void> {
  const pdf_url = outcome.status === 'completed' ? publicLink(deps.config, `/v1/verdict/orders/${order.id}/pdf`) : null;
  const rendered = renderEmail({
    subject: outcome.status === 'completed' ? `Your Vantage report ${order.id} is ready` : `Your Vantage report ${order.id} could not be generated`,
    paragraphs: outcome.status === 'completed'
      ? [`The signed ${order.template} report for ${order.target} (${order.time_window_start.toISOString()} to ${order.time_window_end.toISOString()}) is ready.`,
        `Content hash: ${outcome.content_hash}. Anyone can verify the file at ${publicLink(deps.config, '/v1/attest/verify')}.`]
      : [`Generating the ${order.template} report for ${order.target} failed after its retries: ${outcome.error ?? 'unknown error'}.`],
    ...(pdf_url ? { action: { label: 'Download the report', url: pdf_url } } : {}),
  });
  await deps.mail.send({ ...rendered, to: order.notify_email, user_id: order.user_id, kind: `verdict.${outcome.status}` }, tx);
  if (!order.webhook_url) return;
  const type = `verdict.${outcome.status}`;
  await insertDeliveries(tx, [{
    id: newId('delivery'), message_id: newId('message'), channel: VERDICT_WEBHOOK_CHANNEL, destination: order.id, user_id: order.user_id, event_type: type,
    payload: { type, timestamp: new Date().toISOString(), data: { order_id: order.id, status: outcome.status, content_hash: outcome.content_hash, pdf_url, error: outcome.error } } as never,
  }], deps.config.delivery_notify_channel);
}
