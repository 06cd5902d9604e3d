import type { createTransport } from 'nodemailer';
import type { Config } from '../config/index.js';

/** A message as the e-mail sender hands it to SMTP. */
export interface SmtpMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The Message-ID (RFC 5322 3.6.4) without angle brackets: the same on every retry, so mail systems can drop duplicates. */
  message_id: string;
  /** Extra header fields (List-Unsubscribe of RFC 2369, List-Unsubscribe-Post of RFC 8058); values of one line. */
  headers?: Record<string, string>;
}

/** What an SMTP server answered to an accepted message (`250 OK: queued as …`). */
export interface SmtpAccepted {
  response: string;
}

/** The mail transport: nodemailer's pooled SMTP client (the maintained one), configured by one URL. */
export interface MailTransport {
  send(message: SmtpMessage): Promise<SmtpAccepted>;
  close(): void;
}

/**
 * An SMTP transport from `config.smtp_url` (`smtp://user:pass@host:587`, STARTTLS when the server
 * offers it; `smtps://…:465` for TLS; query parameters are nodemailer's, e.g. `?ignoreTLS=true`)
 * sending as `config.smtp_from`, or null when no URL is configured. Connections are pooled and
 * every stage has a deadline of `config.delivery_timeout_ms`.
 */
export function createMailTransport(config: Pick<Config, 'smtp_url' | 'smtp_from' | 'delivery_timeout_ms'>): MailTransport | null {
  if (!config.smtp_url) return null;
  const timeout = config.delivery_timeout_ms;
  const options = {
    url: config.smtp_url, pool: true, maxConnections: 4,
    connectionTimeout: timeout, greetingTimeout: timeout, socketTimeout: timeout,
  } as Parameters<typeof createTransport>[0] & { pool: true };
  // nodemailer is loaded, and its pool made, at the first message rather than when the app starts.
  let pool: Promise<ReturnType<typeof createTransport>> | null = null;
  const transport = () => (pool ??= import('nodemailer').then((m) => m.createTransport(options)));
  const domain = /@([^>\s]+)>?\s*$/.exec(config.smtp_from)?.[1] ?? 'vantage.invalid';
  return {
    async send(m) {
      const info = await (await transport()).sendMail({
        from: config.smtp_from, to: m.to, subject: m.subject, text: m.text, html: m.html,
        messageId: `<${m.message_id}@${domain}>`,
        ...(m.headers ? { headers: Object.fromEntries(Object.entries(m.headers).map(([k, v]) => [k, v.replace(/[\r\n]+/g, ' ')])) } : {}),
      });
      return { response: String((info as { response?: unknown }).response ?? '') };
    },
    close: () => void pool?.then((t) => t.close()),
  };
}
