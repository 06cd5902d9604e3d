import { z } from 'zod';
import { textString } from './parse.js';

/*
 * E-mail verification (docs/api/accounts.md "E-mail verification"): registration sends a link
 * carrying a signed, expiring token; following it (GET) or posting the token sets
 * `email_verified`; a signed-in user may ask for the e-mail again.
 */

/** How the verification e-mail left: `queued` for SMTP delivery, or `logged` when no SMTP server is configured. */
export const EMAIL_DELIVERY = ['queued', 'logged'] as const;
export type EmailDelivery = (typeof EMAIL_DELIVERY)[number];

/**
 * `POST /v1/auth/verify-email` body, and the `token` query parameter of the GET the e-mail links to.
 * @example { "token": "eyJhbGciOiJIUzI1NiJ9…" }
 */
export const verifyEmailRequestSchema = z.strictObject({ token: textString().min(1).max(2048) });
export const verifyEmailQuerySchema = z.object({ token: textString().min(1).max(2048) });

/** Answer of a verification: the address now verified (already-verified addresses answer the same). */
export const emailVerifiedSchema = z.object({ message: z.string(), email: z.string(), email_verified: z.literal(true) });

/**
 * Answer of `POST /v1/auth/verify-email/resend`, and `meta.verification_email` of the register
 * response: whether the e-mail was queued for SMTP or, without SMTP configured, only logged.
 * @example { "message": "verification e-mail sent to ada@example.com", "email_delivery": "queued" }
 */
export const verificationSentSchema = z.object({ message: z.string(), email_delivery: z.enum(EMAIL_DELIVERY) });
