import { newId, type StatusPageWebhookPayload } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';
import type { AppDeps } from '../deps.js';
import { insertDeliveries, type NewDelivery } from '../delivery/deliveries.db.js';
import { renderEmail } from '../email/layout.js';
import { publicLink } from '../email/links.js';
import { subscriberLink } from './subscriber-links.js';
import { SUBSCRIBER_WEBHOOK_CHANNEL } from './subscriber-sender.js';
import { confirmedSubscribers } from './subscribers.db.js';

/** One notice to a page's subscribers: its webhook `type` and `data`, and its e-mail's subject (after `[<page title>] `) and paragraphs. */
export interface SubscriberNotice {
  type: StatusPageWebhookPayload['type'];
  subject: string;
  paragraphs: string[];
  data: Record<string, unknown>;
}

/**
 * Queue `notice` for the confirmed subscribers of `page_ids` (docs/api/status-pages.md
 * "Subscribers") through the delivery engine, in `tx`, the transaction of the change it reports
 * (the notices commit with it: none lost across restarts, none for a change rolled back): an
 * e-mail per address with its one-click unsubscribe link, and a Standard Webhooks delivery per
 * webhook (payload StatusPageWebhookPayload, `data.page` added).
 * @returns how many notices were queued (e-mails only logged without SMTP count too)
 */
export async function queueSubscriberNotices(deps: Pick<AppDeps, 'sql' | 'config' | 'mail'>, tx: SqlExecutor, page_ids: string[], notice: SubscriberNotice): Promise<number> {
  const subs = await confirmedSubscribers(tx, page_ids);
  const hooks: NewDelivery[] = [];
  let sent = 0;
  for (const s of subs) {
    const page_url = publicLink(deps.config, `/status/${s.slug}`);
    if (s.kind === 'webhook') {
      const payload: StatusPageWebhookPayload = { type: notice.type, timestamp: new Date().toISOString(), data: { page: { slug: s.slug, title: s.title, url: page_url }, ...notice.data } as never };
      hooks.push({ id: newId('delivery'), message_id: newId('message'), channel: SUBSCRIBER_WEBHOOK_CHANNEL, destination: s.id, user_id: s.user_id, event_type: notice.type, payload: payload as never });
      continue;
    }
    const rendered = renderEmail({
      subject: `[${s.title}] ${notice.subject}`,
      paragraphs: notice.paragraphs,
      action: { label: 'View the status page', url: page_url },
      footer: `You get this because you subscribed to ${s.title} at ${page_url}.`,
      unsubscribe_url: await subscriberLink(deps, s.slug, 'unsubscribe', s.id),
    });
    await deps.mail.send({ ...rendered, to: s.address, user_id: s.user_id, kind: `status_page.${notice.type}` }, tx);
    sent++;
  }
  return sent + await insertDeliveries(tx, hooks, deps.config.delivery_notify_channel);
}
