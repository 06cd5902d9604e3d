import { z } from 'zod';
import { textString } from './parse.js';

/*
 * QR-code login (RFC 8628 device authorization grant), e-mail one-time codes, the two-factor
 * policy and TOTP recovery codes (docs/api/accounts.md "QR-code login", "E-mail codes",
 * "Two-factor policy and recovery codes"). Every request string is a {@link textString}.
 */

/**
 * QR-code login timing (RFC 8628 3.2 and 3.5): a request lives `expires_in_s` (600 s); the
 * browser polls at most once per `interval_s` (5 s), and every poll that comes sooner answers
 * `slow_down` and adds `slow_down_step_s` (5 s) to the interval for the rest of the request.
 */
export const DEVICE_LOGIN = { expires_in_s: 600, interval_s: 5, slow_down_step_s: 5 } as const;
/**
 * Letters of a user code: consonants only, no vowels (no words) and no look-alike letters
 * (RFC 8628 6.1 suggests this very alphabet); 8 of them give 20^8 ≈ 2.6·10^10 codes, shown as
 * `XXXX-XXXX`.
 */
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
/** E-mail one-time codes: 6 digits, valid `ttl_s` (600 s), at most `max_attempts` (5) wrong tries each. */
export const EMAIL_OTP = { digits: 6, ttl_s: 600, max_attempts: 5 } as const;
/** Recovery codes made at a time (each `xxxx-xxxx-xxxx-xxxx`, 80 random bits, single-use). */
export const RECOVERY_CODE_COUNT = 10;

const sixDigits = z.string().regex(/^\d{6}$/, 'must be 6 digits');
const emailSchema = textString().trim().max(254).pipe(z.email());

/**
 * `POST /v1/auth/device` answer (RFC 8628 3.2): `device_code` (`dc_…`, kept by the waiting
 * browser, polled with), `user_code` (`XXXX-XXXX`, shown to the user), `verification_uri` and
 * `verification_uri_complete` (the latter carries the user code; `qr_svg` is it as an SVG QR
 * code), `expires_in` and `interval` in seconds.
 * @example { "device_code": "dc_…", "user_code": "BDFG-HJKL", "verification_uri": "https://vantage.example/device", "verification_uri_complete": "https://vantage.example/device?user_code=BDFG-HJKL", "qr_svg": "<svg …>", "expires_in": 600, "interval": 5 }
 */
export const deviceAuthorizationSchema = z.object({
  device_code: z.string(),
  user_code: z.string(),
  verification_uri: z.string(),
  verification_uri_complete: z.string(),
  qr_svg: z.string(),
  expires_in: z.number().int(),
  interval: z.number().int(),
});

/** `POST /v1/auth/device/token` body: the device code of `POST /v1/auth/device`. @example { "device_code": "dc_…" } */
export const deviceTokenRequestSchema = z.strictObject({ device_code: textString().min(1).max(200) });

/**
 * `POST /v1/auth/device/token` answer while nobody has approved yet (202; RFC 8628 3.5
 * `authorization_pending`): poll again after `interval` seconds; `expires_in` seconds are left.
 * @example { "status": "authorization_pending", "interval": 5, "expires_in": 540 }
 */
export const devicePendingSchema = z.object({ status: z.literal('authorization_pending'), interval: z.number().int(), expires_in: z.number().int() });

/**
 * A pending QR-code login as the signed-in device sees it (`GET /v1/account/device/{user_code}`):
 * what asks to be signed in, from where, until when.
 * @example { "user_code": "BDFG-HJKL", "status": "pending", "created_at": "…", "expires_at": "…", "requester_ip": "203.0.113.7", "user_agent": "Mozilla/5.0 …" }
 */
export const deviceRequestSchema = z.object({
  user_code: z.string(),
  status: z.literal('pending'),
  created_at: z.iso.datetime(),
  expires_at: z.iso.datetime(),
  requester_ip: z.string().nullable(),
  user_agent: z.string().nullable(),
});

/** Answer of approve/deny: the request's new status. @example { "user_code": "BDFG-HJKL", "status": "approved" } */
export const deviceDecisionSchema = z.object({ user_code: z.string(), status: z.enum(['approved', 'denied']) });
/** A pending QR-code login request as returned. */
export type DeviceRequest = z.infer<typeof deviceRequestSchema>;

/** `POST /v1/auth/otp/send` body. @example { "email": "ada@example.com" } */
export const emailOtpSendRequestSchema = z.strictObject({ email: emailSchema });

/**
 * Answer of both code sends: the same whether or not an account has the address (login), with
 * the code's validity in seconds.
 * @example { "message": "if an account has this address, a code is on its way", "expires_in_s": 600 }
 */
export const emailOtpSentSchema = z.object({ message: z.string(), expires_in_s: z.number().int() });

/**
 * `POST /v1/auth/otp/login` body: the address and the 6-digit code e-mailed to it; `otp` (a
 * TOTP code or a recovery code) or `recovery_code` as well when the account has TOTP on.
 * @example { "email": "ada@example.com", "code": "123456" }
 */
export const emailOtpLoginRequestSchema = z.strictObject({
  email: textString().trim().min(1).max(254),
  code: sixDigits,
  otp: textString().max(32).optional(),
  recovery_code: textString().max(32).optional(),
});

/**
 * Proof for a sensitive two-factor action (disable TOTP, new recovery codes): exactly one of
 * `code` (the current TOTP code) or `email_code` (a code from `POST /v1/account/otp/send`).
 * @example { "email_code": "123456" }
 */
export const secondFactorProofSchema = z.strictObject({ code: sixDigits.optional(), email_code: sixDigits.optional() })
  .refine((b) => (b.code === undefined) !== (b.email_code === undefined), { message: 'give exactly one of code (TOTP) or email_code', path: ['code'] });
export type SecondFactorProof = z.infer<typeof secondFactorProofSchema>;

/** New recovery codes, shown once (`xxxx-xxxx-xxxx-xxxx`, each usable once). */
export const recoveryCodesSchema = z.object({ recovery_codes: z.array(z.string()) });
/** `POST /v1/account/2fa/enable` answer: TOTP is on, and the first recovery codes (shown once). */
export const totpEnabledSchema = z.object({ ok: z.literal(true), recovery_codes: z.array(z.string()) });

/**
 * `GET /v1/account/security`: TOTP on or off, passkeys and unused recovery codes counted, the
 * account's own `require_2fa`, the caller's teams that require 2FA, whether a policy requires it
 * (`two_factor_required`) and whether it is unmet (`setup_required`: every other request is refused
 * with AUTH_2FA_SETUP_REQUIRED until TOTP or a passkey is set up).
 * @example { "totp_enabled": true, "passkeys": 1, "recovery_codes_left": 9, "require_2fa": false, "teams_requiring_2fa": [{ "id": "team_…", "name": "Platform" }], "two_factor_required": true, "setup_required": false }
 */
export const securitySummarySchema = z.object({
  totp_enabled: z.boolean(),
  passkeys: z.number().int(),
  recovery_codes_left: z.number().int(),
  require_2fa: z.boolean(),
  teams_requiring_2fa: z.array(z.object({ id: z.string(), name: z.string() })),
  two_factor_required: z.boolean(),
  setup_required: z.boolean(),
});
export type SecuritySummary = z.infer<typeof securitySummarySchema>;

/** `PATCH /v1/account/security` body: the account's own two-factor policy. @example { "require_2fa": true } */
export const securityPatchSchema = z.strictObject({ require_2fa: z.boolean() });
