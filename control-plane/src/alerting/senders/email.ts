import { createHash } from 'node:crypto';
import { emailChannelConfigSchema, type AlertNotification } from '@vantage/shared-protocol';
import { jwtKey } from '../../accounts/jwt.js';
import type { Config } from '../../config/index.js';
import type { Sql } from '../../db/sql.js';
import { failure, type Sender, type SendOutcome } from '../../delivery/sender.js';
import { renderEmail } from '../../email/layout.js';
import { publicLink } from '../../email/links.js';
import type { MailTransport, SmtpAccepted } from '../../email/transport.js';
import type { AlertChannelRow } from '../alert-channels.db.js';
import { signUnsubscribeToken } from '../email-recipient-tokens.js';
import { RECIPIENT_PATHS, sendableRecipients } from '../email-recipients.js';
import { deliveryChannel } from '../notify.js';
import type { ChannelLoader } from './channel-loader.js';
import { afterSuccess, loadDelivery } from './http-channel.js';

const LOG_MAX_CHARS = 1024;

/** What the e-mail sender reads and signs with: the session key (unsubscribe links) and the public URL. */
export interface AlertEmailSenderDeps {
  sql: Sql;
  config: Config;
  transport: MailTransport | null;
  /** Batches the channel reads of sends started together (channel-loader.ts). */
  channels?: ChannelLoader;
}

/** One recipient's outcome. */
type Sent = { address: string; accepted: SmtpAccepted } | { address: string; error: string; code: number | null; response: string | null };

/**
 * The `email` alert channel (docs/api/alerting.md "E-mail recipients"): the notification as one
 * e-mail to each confirmed recipient of the channel through the deployment's SMTP server (the
 * delivery engine's transport), with that recipient's one-click unsubscribe link in the body and
 * in List-Unsubscribe / List-Unsubscribe-Post (RFC 2369, RFC 8058). Pending and unsubscribed
 * addresses are skipped and named with why in the attempt's log; with no confirmed recipient the
 * attempt fails at once. Message-ID = the delivery's message id plus a tag of the address (the
 * same on every retry). Classified like the engine's e-mail sender: SMTP 5xx fails at once, 4xx
 * and connection errors are retried (a retry sends to every confirmed recipient again, with the
 * same Message-IDs). Without an SMTP server it fails at once with that reason.
 */
export function createAlertEmailSender(deps: AlertEmailSenderDeps): Sender {
  async function sendTo(channel: AlertChannelRow, n: AlertNotification, address: string, message_id: string): Promise<Sent> {
    const token = await signUnsubscribeToken(await jwtKey(deps), channel.user_id, address);
    const unsubscribe_url = publicLink(deps.config, RECIPIENT_PATHS.unsubscribe, { token });
    const rendered = renderEmail({
      subject: n.title || 'Vantage alert',
      paragraphs: n.body.split(/\n{2,}/).filter(Boolean),
      footer: `${n.severity} · ${n.event_action} · ${n.occurred_at} · sent by the Vantage alert channel "${channel.name}" to ${address}`,
      unsubscribe_url,
    });
    try {
      const accepted = await deps.transport!.send({
        to: address, subject: rendered.subject, text: rendered.text, html: rendered.html,
        message_id: `${message_id}.${createHash('sha256').update(address).digest('hex').slice(0, 12)}`,
        headers: { 'List-Unsubscribe': `<${unsubscribe_url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
      });
      return { address, accepted };
    } catch (err) {
      const e = err as Error & { responseCode?: number; response?: string; code?: string };
      return { address, error: `${e.code ? `${e.code}: ` : ''}${e.message}`.replace(/\u0000/g, ''), code: typeof e.responseCode === 'number' ? e.responseCode : null, response: e.response ?? null };
    }
  }

  return {
    channel: deliveryChannel('email'),
    async send(delivery, ctx): Promise<SendOutcome> {
      if (!deps.transport) return failure('no SMTP server is configured (VANTAGE_SMTP_URL)', false);
      const loaded = await loadDelivery(deps, delivery, 'email');
      if (!('channel' in loaded)) return loaded;
      const { channel, n } = loaded;
      if (!emailChannelConfigSchema.safeParse(channel.config).success) return failure('the channel\'s stored config is invalid', false);
      const { send, skipped } = await sendableRecipients(deps.sql, channel);
      const skips = skipped.map((s) => `${s.address}: ${s.reason}`);
      if (send.length === 0) return failure(`no confirmed recipient (${skips.join('; ')})`.slice(0, LOG_MAX_CHARS), false);
      const started = performance.now();
      const results: Sent[] = [];
      for (const address of send) results.push(await sendTo(channel, n, address, delivery.message_id));
      const log = [
        ...results.map((r) => ('accepted' in r ? `sent ${r.address}: ${r.accepted.response}` : `failed ${r.address}: ${r.response ?? r.error}`)),
        ...skips.map((s) => `skipped ${s}`),
      ].join('\n').slice(0, LOG_MAX_CHARS);
      const latency_ms = Math.round(performance.now() - started);
      const failed = results.filter((r): r is Extract<Sent, { error: string }> => 'error' in r);
      if (failed.length === 0) {
        await afterSuccess(deps.sql, delivery, n, channel, ctx);
        const code = Number(/^(\d{3})/.exec((results[0] as Extract<Sent, { accepted: SmtpAccepted }>).accepted.response)?.[1] ?? NaN);
        return { ok: true, status_code: Number.isFinite(code) ? code : null, response_body: log, latency_ms };
      }
      return {
        ok: false, retriable: failed.some((f) => f.code === null || f.code < 500),
        error: failed.map((f) => `${f.address}: ${f.error}`).join('; ').slice(0, LOG_MAX_CHARS),
        status_code: failed[0]!.code, response_body: log, latency_ms,
      };
    },
  };
}
