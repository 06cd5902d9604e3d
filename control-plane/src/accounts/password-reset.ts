import { newSecret, type PasswordResetTokenRefusal } from '@vantage/shared-protocol';
import { publicBaseUrl } from '../config/public-url.js';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { findUserByEmail } from './accounts.db.js';
import { passwordResetEmail } from './password-emails.js';
import { insertResetToken } from './password-reset.db.js';
import { hashSecret } from './secrets.js';

/** At most one reset e-mail per account per this many seconds (later requests answer the same and send nothing). */
export const RESET_EMAIL_MIN_INTERVAL_S = 60;

const REFUSALS: Record<PasswordResetTokenRefusal, string> = {
  token_unknown: 'this reset link is not valid: ask for a new one (POST /v1/auth/password/forgot)',
  token_used: 'this reset link has already been used: ask for a new one (POST /v1/auth/password/forgot)',
  token_expired: 'this reset link has expired: ask for a new one (POST /v1/auth/password/forgot)',
};

/**
 * The refusal of a reset token (docs/api/accounts.md "Passwords"): 400 VALIDATION_FAILED with
 * `details.reason` and `details.fields[{path: "token"}]`.
 */
export function refuseResetToken(reason: PasswordResetTokenRefusal): ApiError {
  return new ApiError('VALIDATION_FAILED', REFUSALS[reason], { reason, fields: [{ path: 'token', message: reason.replace('token_', '') }] });
}

/** Where a reset link points: the console's `/reset-password?token=…` under the public URL (config/public-url.ts). */
export function resetUrl(config: AppDeps['config'], token: string): string {
  return `${publicBaseUrl(config)}/reset-password?token=${encodeURIComponent(token)}`;
}

/**
 * `POST /v1/auth/password/forgot`'s work (docs/api/accounts.md "Passwords"): for an active account
 * with address `email` (any case), a new single-use `prt_` token (only its sha256 stored) valid
 * `config.password_reset_ttl_s`, e-mailed as a link ({@link resetUrl}), at most one per account per
 * {@link RESET_EMAIL_MIN_INTERVAL_S}. Nothing for an unknown address or a disabled account. Earlier
 * links stay valid until they expire or a password is set.
 * @returns what happened, for logs and tests: `sent`, `throttled` or `no_account`
 */
export async function requestPasswordReset(deps: Pick<AppDeps, 'config' | 'sql' | 'mail'>, email: string): Promise<'sent' | 'throttled' | 'no_account'> {
  const user = await findUserByEmail(deps.sql, email);
  if (!user || user.status !== 'active' || user.email === '') return 'no_account';
  const token = newSecret('password_reset_token');
  const ttl_s = deps.config.password_reset_ttl_s;
  const stored = await insertResetToken(deps.sql, { token_hash: hashSecret(token), user_id: user.id, ttl_s, min_interval_s: RESET_EMAIL_MIN_INTERVAL_S });
  if (!stored) return 'throttled';
  const mail = passwordResetEmail({ link: resetUrl(deps.config, token), expires_at: new Date(Date.now() + ttl_s * 1000) });
  await deps.mail.send({ ...mail, to: user.email, user_id: user.id, kind: 'account.password_reset' });
  return 'sent';
}
