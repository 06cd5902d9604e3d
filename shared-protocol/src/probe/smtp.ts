import { z } from 'zod';
import { ms, certificateSchema } from './measures.js';

/** An envelope address for MAIL FROM / RCPT TO (RFC 5321 4.1.2 Mailbox, kept simple): local@domain, no spaces or brackets. */
const mailbox = z.string().max(254).regex(/^[^\s<>@]{1,64}@[A-Za-z0-9.-]{1,253}$/, 'must be local@domain');

/**
 * SMTP params (docs/api/probes.md "smtp"): timeout_ms for the whole session (1000-30000, default
 * 10000); starttls: upgrade when the server offers STARTTLS (default true); implicit_tls: TLS from
 * the first byte (default: on port 465 only); helo_name the EHLO argument (default the node's host name); mail_from and rcpt_to
 * together or neither: with them the session goes on to MAIL FROM and RCPT TO, then QUIT (never
 * DATA); ip_version.
 */
export const smtpParamsSchema = z.strictObject({
  timeout_ms: z.number().int().min(1000).max(30000).default(10000),
  starttls: z.boolean().default(true),
  /** TLS from the first byte (RFC 8314); unset = true on port 465 only. */
  implicit_tls: z.boolean().optional(),
  helo_name: z.string().max(253).regex(/^[A-Za-z0-9.-]+$|^\[[0-9A-Fa-f:.]+\]$/, 'must be a domain or an address literal').optional(),
  mail_from: mailbox.optional(),
  rcpt_to: mailbox.optional(),
  ip_version: z.enum(['v4', 'v6', 'auto']).default('auto'),
}).superRefine((p, ctx) => {
  if ((p.mail_from === undefined) !== (p.rcpt_to === undefined)) {
    ctx.addIssue({ code: 'custom', path: [p.mail_from === undefined ? 'mail_from' : 'rcpt_to'], message: 'mail_from and rcpt_to go together' });
  }
});

/** One SMTP reply (RFC 5321 4.2): the three-digit code and its text (lines joined by a newline). */
export const smtpReplySchema = z.object({ code: z.number().int().min(200).max(599), text: z.string().max(2000) });

/** Negotiated TLS of an SMTP session; `authorized` false with the reason when the chain or name does not verify. */
export const smtpTlsSchema = z.object({
  version: z.string(),
  cipher: z.string(),
  authorized: z.boolean(),
  authorization_error: z.string().nullable(),
});

/**
 * SMTP session phases in ms, each from the end of the previous one: connect_ms (TCP connect),
 * banner_ms (connected → 220 greeting), ehlo_ms (EHLO → reply; the last EHLO after STARTTLS),
 * tls_ms (STARTTLS command or, implicit TLS, connect → handshake done), mail_ms (MAIL FROM →
 * RCPT TO reply); total_ms from the start to QUIT sent. Null when the phase was not reached.
 */
export const smtpTimingSchema = z.object({
  connect_ms: ms().nullable(),
  banner_ms: ms().nullable(),
  tls_ms: ms().nullable(),
  ehlo_ms: ms().nullable(),
  mail_ms: ms().nullable(),
  total_ms: ms().nullable(),
});

/**
 * SMTP output: tls_mode (implicit on port 465, starttls once upgraded, else none), the greeting,
 * the EHLO keywords with their parameters (`SIZE 10240000`, `STARTTLS`; after STARTTLS the second
 * EHLO's list), whether STARTTLS was offered and negotiated, the TLS facts and leaf certificate,
 * and the MAIL FROM / RCPT TO replies when asked.
 */
export const smtpOutputSchema = z.object({
  resolved_address: z.string().nullable(),
  port: z.number().int().min(1).max(65535),
  tls_mode: z.enum(['none', 'starttls', 'implicit']),
  banner: smtpReplySchema.nullable(),
  ehlo_extensions: z.array(z.string().max(512)).max(64),
  starttls_offered: z.boolean(),
  starttls_negotiated: z.boolean(),
  tls: smtpTlsSchema.nullable(),
  certificate: certificateSchema.nullable(),
  mail_from: smtpReplySchema.nullable(),
  rcpt_to: smtpReplySchema.nullable(),
  timing: smtpTimingSchema,
});

export type SmtpParams = z.infer<typeof smtpParamsSchema>;
export type SmtpReply = z.infer<typeof smtpReplySchema>;
export type SmtpOutput = z.infer<typeof smtpOutputSchema>;
