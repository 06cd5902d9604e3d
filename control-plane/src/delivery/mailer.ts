import { newId } from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';
import type { Mailer, OutboundMail, SqlExecutor } from '../contracts.js';
import type { Sql } from '../db/sql.js';
import type { Logger } from '../log.js';
import { insertDeliveries } from './deliveries.db.js';
import type { EmailPayload } from './email-sender.js';
import type { WakeSignal } from './wake.js';

/**
 * The Mailer of contracts.ts: with `smtp_url` configured, a mail is a delivery of channel
 * `email` (destination = the lower-cased address: the per-destination cap applies per mailbox)
 * sent by the worker through SMTP; without it the mail is logged at info level, whole, so a
 * development setup can still follow a verification link, and the caller is told `logged`.
 */
export function createMailer(deps: { sql: Sql; log: Logger; config: Config; signal?: WakeSignal }): Mailer {
  const log = deps.log.child({ module: 'email' });
  const configured = Boolean(deps.config.smtp_url);
  return {
    configured,
    async send(mail: OutboundMail, tx?: SqlExecutor) {
      if (!configured) {
        log.info({ to: mail.to, kind: mail.kind, subject: mail.subject, text: mail.text }, 'e-mail not sent (no SMTP server configured: VANTAGE_SMTP_URL); logged instead');
        return 'logged';
      }
      const payload: EmailPayload = { to: mail.to, subject: mail.subject, text: mail.text, html: mail.html };
      await insertDeliveries(tx ?? deps.sql, [{
        id: newId('delivery'), message_id: newId('message'), channel: 'email', destination: mail.to.toLowerCase(),
        user_id: mail.user_id, event_type: mail.kind, payload,
      }], deps.config.delivery_notify_channel);
      if (!tx) deps.signal?.wake();
      return 'queued';
    },
  };
}
