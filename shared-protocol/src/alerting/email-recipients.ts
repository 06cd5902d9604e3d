import { z } from 'zod';
import { EMAIL_DELIVERY } from '../email-verification.js';
import { textString } from '../parse.js';

/*
 * Recipients of `email` alert channels (docs/api/alerting.md "E-mail recipients"). An address
 * other than the account's own verified one is `pending` until its recipient follows the one-click
 * link of the opt-in e-mail (`confirmed`); the unsubscribe link of every alert e-mail makes it
 * `unsubscribed`. Only confirmed addresses receive anything besides the one opt-in e-mail.
 */

/** A recipient's state: pending (opt-in e-mail sent, not confirmed), confirmed, unsubscribed. */
export const alertEmailRecipientStateSchema = z.enum(['pending', 'confirmed', 'unsubscribed']);
export type AlertEmailRecipientState = z.infer<typeof alertEmailRecipientStateSchema>;

/**
 * One address of an `email` channel as the API shows it (`recipients[]` of the channel): the
 * address lower-cased, its state for this account, when the last opt-in e-mail was queued
 * (null: none yet, e.g. the account's own verified address) and when it was confirmed or
 * unsubscribed.
 * @example { "address": "oncall@example.com", "state": "pending", "opt_in_sent_at": "2026-11-28T10:00:00.000Z", "confirmed_at": null, "unsubscribed_at": null }
 */
export const alertEmailRecipientSchema = z.object({
  address: z.string(),
  state: alertEmailRecipientStateSchema,
  opt_in_sent_at: z.iso.datetime().nullable(),
  confirmed_at: z.iso.datetime().nullable(),
  unsubscribed_at: z.iso.datetime().nullable(),
});
export type AlertEmailRecipient = z.infer<typeof alertEmailRecipientSchema>;

/**
 * The token of a recipient link (`?token=` of the confirm and unsubscribe links in the e-mails).
 * The link itself is the credential: no bearer is needed.
 * @example { "token": "Jw3yq1bXoZ9m0Vf2pQk8sR4tLc6hN5aE7uD1gY3iO0w" }
 */
export const alertRecipientTokenQuerySchema = z.object({
  token: textString().min(1).max(2048),
});

/**
 * What a recipient link answers as JSON: the address and its state (after the POST that
 * confirms or unsubscribes; as it is for a GET, which changes nothing), which `action` a POST
 * of the same URL takes, and a sentence for people.
 * @example { "address": "oncall@example.com", "state": "confirmed", "action": "confirm", "message": "oncall@example.com will receive alert e-mails of this account" }
 */
export const alertRecipientLinkSchema = z.object({
  address: z.string(),
  state: alertEmailRecipientStateSchema,
  action: z.enum(['confirm', 'unsubscribe']),
  message: z.string(),
});
export type AlertRecipientLink = z.infer<typeof alertRecipientLinkSchema>;

/**
 * `POST /v1/alert-channels/{id}/recipients/opt-in`: send a pending address of the channel a new
 * opt-in e-mail (its earlier link stops working).
 * @example { "address": "oncall@example.com" }
 */
export const alertEmailOptInRequestSchema = z.strictObject({
  address: z.email().max(320),
});

/**
 * The answer of an opt-in resend: the address, its state (pending) and how the e-mail left
 * (`queued` for SMTP, or `logged` when no SMTP server is configured).
 */
export const alertEmailOptInResultSchema = z.object({
  address: z.string(),
  state: alertEmailRecipientStateSchema,
  email_delivery: z.enum(EMAIL_DELIVERY),
});
export type AlertEmailOptInResult = z.infer<typeof alertEmailOptInResultSchema>;
