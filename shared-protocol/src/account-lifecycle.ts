import { z } from 'zod';
import { textString } from './parse.js';

/**
 * Account lifecycle wire shapes (docs/api/accounts.md "Account lifecycle"): username, phone
 * binding by SMS code, deletion with a grace period and restore, and the data export.
 */

/**
 * A username (docs/api/accounts.md "Username"): 3-32 characters of letters, digits, `_` and `-`,
 * starting with a letter or digit, so it can never be an e-mail address; unique case-insensitively.
 */
export const USERNAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{2,31}$/;
/** A username in a request (see {@link USERNAME_PATTERN}). */
export const usernameSchema = textString().trim().regex(USERNAME_PATTERN, 'must be 3-32 letters, digits, "_" or "-", starting with a letter or digit');

/** A phone number in E.164 form (ITU-T E.164): `+`, a country code not starting with 0, at most 15 digits in all. */
export const E164_PATTERN = /^\+[1-9]\d{6,14}$/;

/**
 * A phone number as the profile shows it (docs/api/accounts.md "Phone"): the leading `+` and the
 * first two digits, then `*` for all but the last three digits. Empty stays empty.
 * @example maskPhone('+447700900789') // '+44*******789'
 */
export function maskPhone(phone: string | null): string {
  if (!phone) return '';
  const digits = phone.slice(1);
  return `+${digits.slice(0, 2)}${'*'.repeat(Math.max(0, digits.length - 5))}${digits.slice(-3)}`;
}

/**
 * `POST /v1/account/phone` body: the number to bind, E.164 (spaces, dashes and parentheses are
 * removed first).
 * @example { "phone": "+447700900789" }
 */
export const phoneBindRequestSchema = z.strictObject({
  phone: textString().max(32).transform((s) => s.replace(/[\s().-]/g, '')).pipe(z.string().regex(E164_PATTERN, 'must be an E.164 number: + and 7-15 digits')),
});

/**
 * `POST /v1/account/phone` answer: the code was sent to `phone` (masked); it works until `expires_at`.
 * @example { "phone": "+44*******789", "expires_at": "2026-11-28T09:10:00.000Z", "resend_after_s": 60 }
 */
export const phoneBindStartedSchema = z.object({
  phone: z.string(),
  expires_at: z.iso.datetime(),
  resend_after_s: z.number().int(),
});

/**
 * `POST /v1/account/phone/verify` body: the 6-digit code of the SMS.
 * @example { "code": "123456" }
 */
export const phoneVerifyRequestSchema = z.strictObject({ code: z.string().regex(/^\d{6}$/, 'must be 6 digits') });

/**
 * `DELETE /v1/account` body (docs/api/accounts.md "Account lifecycle"): `password` when the
 * account has one; otherwise `email_code`, a code from `POST /v1/account/otp/send` when the
 * account has an e-mail address; otherwise neither (the session must be a recent login).
 * @example { "password": "correct horse battery staple" }
 */
export const accountDeleteRequestSchema = z.strictObject({
  password: textString().min(1).max(1024).optional(),
  email_code: textString().trim().min(1).max(16).optional(),
});

/**
 * `DELETE /v1/account` answer: the account is `deleting` and will be purged at
 * `deletion_scheduled_at` unless restored; `restore_email` says how the restore link left
 * (`queued` by SMTP, `logged` without SMTP, `failed`).
 * @example { "status": "deleting", "deletion_scheduled_at": "2026-12-28T09:00:00.000Z", "restore_email": "queued" }
 */
export const accountDeletionSchema = z.object({
  status: z.literal('deleting'),
  deletion_scheduled_at: z.iso.datetime(),
  restore_email: z.enum(['queued', 'logged', 'failed']),
});

/**
 * `POST /v1/auth/account/restore` body: either the `art_` token of the restore e-mail, or the
 * account's e-mail (or username) and password (with `otp` when 2FA is on).
 * @example { "token": "art_…" }
 */
export const accountRestoreRequestSchema = z.strictObject({
  token: textString().min(1).max(200).optional(),
  email: textString().trim().min(1).max(254).optional(),
  password: textString().min(1).max(1024).optional(),
  otp: textString().max(16).optional(),
}).refine((b) => (b.token !== undefined) !== (b.email !== undefined && b.password !== undefined), {
  message: 'send either token, or email and password',
});

/**
 * `POST /v1/auth/account/restore` answer: the account is active again. Its earlier sessions and
 * keys stay revoked: log in again.
 * @example { "user_id": "u_…", "status": "active" }
 */
export const accountRestoredSchema = z.object({ user_id: z.string(), status: z.literal('active') });

/**
 * `GET /v1/account/export` document (docs/api/accounts.md "Data export"): everything the account
 * owns, one array per resource kind; secrets are never included (channel and webhook secrets,
 * key hashes, header secrets are masked or left out).
 */
export const accountExportSchema = z.object({
  version: z.literal(1),
  exported_at: z.iso.datetime(),
  profile: z.record(z.string(), z.unknown()),
  monitors: z.array(z.record(z.string(), z.unknown())),
  monitor_groups: z.array(z.record(z.string(), z.unknown())),
  alert_policies: z.array(z.record(z.string(), z.unknown())),
  alert_channels: z.array(z.record(z.string(), z.unknown())),
  alert_silences: z.array(z.record(z.string(), z.unknown())),
  maintenance_windows: z.array(z.record(z.string(), z.unknown())),
  webhook_endpoints: z.array(z.record(z.string(), z.unknown())),
  api_keys: z.array(z.record(z.string(), z.unknown())),
  personal_access_tokens: z.array(z.record(z.string(), z.unknown())),
  team_memberships: z.array(z.record(z.string(), z.unknown())),
  passkeys: z.array(z.record(z.string(), z.unknown())),
  oauth_identities: z.array(z.record(z.string(), z.unknown())),
});
export type AccountExport = z.infer<typeof accountExportSchema>;
