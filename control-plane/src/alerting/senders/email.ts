import type { MailTransport } from '../../email/transport.js';
import { renderEmail } from '../../email/layout.js';
import { failure, type Sender, type SendOutcome } from '../../delivery/sender.js';
import { emailChannelConfigSchema } from '@vantage/shared-protocol';
import { deliveryChannel } from '../notify.js';
import { afterSuccess, loadDelivery, type AlertSenderDeps } from './http-channel.js';

const LOG_MAX_CHARS = 1024;

/**
 * The `email` alert channel: the notification as one e-mail to the channel's addresses through
 * the deployment's SMTP server (the delivery engine's transport), Message-ID = the delivery's
 * message id. Classified like the engine's e-mail sender: SMTP 5xx fails at once, 4xx and
 * connection errors are retried. Without an SMTP server it fails at once with that reason.
 */
export function createAlertEmailSender(deps: Pick<AlertSenderDeps, 'sql'> & { transport: MailTransport | null }): Sender {
  return {
    channel: deliveryChannel('email'),
    async send(delivery, ctx): Promise<SendOutcome> {
      if (!deps.transport) return failure('no SMTP server is configured (VANTAGE_SMTP_URL)', false);
      const loaded = await loadDelivery(deps.sql, delivery, 'email');
      if (!('channel' in loaded)) return loaded;
      const { channel, n } = loaded;
      const config = emailChannelConfigSchema.safeParse(channel.config);
      if (!config.success) return failure('the channel\'s stored config is invalid', false);
      const rendered = renderEmail({
        subject: n.title || 'Vantage alert',
        paragraphs: n.body.split(/\n{2,}/).filter(Boolean),
        footer: `${n.severity} · ${n.event_action} · ${n.occurred_at} · sent by the Vantage alert channel "${channel.name}"`,
      });
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      try {
        const accepted = await deps.transport.send({ to: config.data.to.join(', '), subject: rendered.subject, text: rendered.text, html: rendered.html, message_id: delivery.message_id });
        const code = Number(/^(\d{3})/.exec(accepted.response)?.[1] ?? NaN);
        await afterSuccess(deps.sql, delivery, n, channel, ctx);
        return { ok: true, status_code: Number.isFinite(code) ? code : null, response_body: accepted.response.slice(0, LOG_MAX_CHARS), latency_ms: elapsed() };
      } catch (err) {
        const e = err as Error & { responseCode?: number; response?: string; code?: string };
        const code = typeof e.responseCode === 'number' ? e.responseCode : null;
        return {
          ok: false, retriable: code === null || code < 500, error: `${e.code ? `${e.code}: ` : ''}${e.message}`.replace(/\u0000/g, '').slice(0, LOG_MAX_CHARS),
          status_code: code, response_body: e.response ? e.response.slice(0, LOG_MAX_CHARS) : null, latency_ms: elapsed(),
        };
      }
    },
  };
}
