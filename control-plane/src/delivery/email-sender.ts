import { z } from 'zod';
import type { MailTransport } from '../email/transport.js';
import { failure, type Sender, type SendOutcome } from './sender.js';

/** The payload of an `email` delivery: a rendered message (email/layout.ts). */
export const emailPayloadSchema = z.object({
  to: z.string().min(3).max(320),
  subject: z.string(),
  text: z.string(),
  html: z.string(),
});
export type EmailPayload = z.infer<typeof emailPayloadSchema>;

const LOG_MAX_CHARS = 1024;

/**
 * The `email` channel: sends the delivery's rendered message through SMTP with the delivery's
 * message id as Message-ID (the same on every retry). Classified by the SMTP reply code
 * (RFC 5321 4.2.1): 5xx is a permanent refusal (not retried), 4xx and connection or timeout
 * errors are transient (retried).
 */
export function createEmailSender(transport: MailTransport): Sender {
  return {
    channel: 'email',
    async send(delivery): Promise<SendOutcome> {
      const parsed = emailPayloadSchema.safeParse(delivery.payload);
      if (!parsed.success) return failure(`invalid e-mail payload: ${parsed.error.issues[0]?.message ?? 'unknown'}`, false);
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      try {
        const accepted = await transport.send({ ...parsed.data, message_id: delivery.message_id });
        const code = Number(/^(\d{3})/.exec(accepted.response)?.[1] ?? NaN);
        return { ok: true, status_code: Number.isFinite(code) ? code : null, response_body: accepted.response.slice(0, LOG_MAX_CHARS), latency_ms: elapsed() };
      } catch (err) {
        const e = err as Error & { responseCode?: number; response?: string; code?: string };
        const code = typeof e.responseCode === 'number' ? e.responseCode : null;
        const message = `${e.code ? `${e.code}: ` : ''}${e.message ?? String(err)}`.replace(/\u0000/g, '');
        return {
          ok: false, retriable: code === null || code < 500, error: message.slice(0, LOG_MAX_CHARS),
          status_code: code, response_body: e.response ? e.response.slice(0, LOG_MAX_CHARS) : null, latency_ms: elapsed(),
        };
      }
    },
  };
}
