import { z } from 'zod';
import { LIMITS } from './limits.js';
import { textString } from './parse.js';

/*
 * Passwords (docs/api/accounts.md "Passwords"): change with the current password, reset through
 * a single-use link sent by e-mail, and the strength and reuse rules every new password meets.
 */

/** A new password: 8-1024 characters (strength and reuse are checked by the server). */
const newPasswordSchema = textString().min(LIMITS.password_min_chars).max(1024);

/**
 * `POST /v1/account/password` body. `current_password` is required when the account has a
 * password; an account without one (single sign-on) omits it.
 * @example { "current_password": "old-horse-battery-7", "new_password": "staple-orbit-lantern-42" }
 */
export const changePasswordRequestSchema = z.strictObject({
  current_password: textString().min(1).max(1024).optional(),
  new_password: newPasswordSchema,
});
export type ChangePasswordRequest = z.infer<typeof changePasswordRequestSchema>;

/**
 * Answer of a password change: how many of the account's other sessions were ended (the
 * calling session stays).
 * @example { "message": "password changed", "sessions_ended": 2 }
 */
export const passwordChangedSchema = z.object({ message: z.string(), sessions_ended: z.number().int().min(0) });

/**
 * `POST /v1/auth/password/forgot` body.
 * @example { "email": "ada@example.com" }
 */
export const forgotPasswordRequestSchema = z.strictObject({ email: textString().trim().min(1).max(254) });

/**
 * Answer of `POST /v1/auth/password/forgot`: the same whether or not an account has the address.
 * @example { "message": "if an account has this address, a reset link is on its way" }
 */
export const passwordResetRequestedSchema = z.object({ message: z.string() });

/**
 * `POST /v1/auth/password/reset` body: the `prt_` token of the reset link and the new password;
 * `otp`, the 6-digit TOTP code, when the account has two-factor authentication on (a reset link
 * alone does not get past the second factor).
 * @example { "token": "prt_5x1y3b6c0a9z4q8r2t7v5x1y3b6c0a9z", "new_password": "staple-orbit-lantern-42" }
 */
export const resetPasswordRequestSchema = z.strictObject({
  token: textString().min(1).max(256),
  new_password: newPasswordSchema,
  otp: textString().max(16).optional(),
});
export type ResetPasswordRequest = z.infer<typeof resetPasswordRequestSchema>;

/**
 * `details` of 400 AUTH_PASSWORD_WEAK: the estimator's score (0-4), the deployment's minimum, and
 * its feedback (an English warning, possibly empty, and suggestions).
 * @example { "score": 1, "min_score": 3, "warning": "This is a commonly used password.", "suggestions": ["Add more words that are less common."] }
 */
export const passwordWeakDetailsSchema = z.object({
  score: z.number().int().min(0).max(4),
  min_score: z.number().int().min(0).max(4),
  warning: z.string(),
  suggestions: z.array(z.string()),
});
export type PasswordWeakDetails = z.infer<typeof passwordWeakDetailsSchema>;

/** Why a reset token is refused, as `details.reason` of the 400 VALIDATION_FAILED. */
export const PASSWORD_RESET_TOKEN_REFUSALS = ['token_unknown', 'token_used', 'token_expired'] as const;
export type PasswordResetTokenRefusal = (typeof PASSWORD_RESET_TOKEN_REFUSALS)[number];
