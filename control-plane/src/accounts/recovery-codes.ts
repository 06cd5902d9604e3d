import { randomBytes } from 'node:crypto';
import { RECOVERY_CODE_COUNT, type SecondFactorProof } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import type { UserRow } from './accounts.db.js';
import { useEmailCode } from './email-otp.js';
import { markRecoveryCodeUsed, replaceRecoveryCodes } from './recovery-codes.db.js';
import { hashSecret } from './secrets.js';
import { checkTotp } from './totp.js';

// Crockford base32 in lower case: no i, l, o, u to misread; 5 bits a character.
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const CODE_CHARS = 16;

/** One recovery code: 16 characters (80 random bits) shown as `xxxx-xxxx-xxxx-xxxx`. */
function newRecoveryCode(): string {
  const bytes = randomBytes(CODE_CHARS);
  let s = '';
  for (const b of bytes) s += ALPHABET[b & 31];
  return s.match(/.{4}/g)!.join('-');
}

/**
 * A typed recovery code in its stored form: lower case, dashes and spaces dropped, Crockford's
 * look-alikes read as digits (i, l → 1; o → 0). @returns null when it cannot be one
 */
export function normaliseRecoveryCode(typed: string): string | null {
  const s = typed.toLowerCase().replace(/[\s-]/g, '').replace(/[il]/g, '1').replace(/o/g, '0');
  return s.length === CODE_CHARS && [...s].every((ch) => ALPHABET.includes(ch)) ? s : null;
}

/**
 * Make {@link RECOVERY_CODE_COUNT} new recovery codes for `user_id`, replacing any earlier ones;
 * only their sha256 is stored (80 random bits leave nothing to brute-force).
 * @returns the codes, to show once
 */
export async function issueRecoveryCodes(deps: Pick<AppDeps, 'sql'>, user_id: string): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await replaceRecoveryCodes(deps.sql, user_id, codes.map((c) => hashSecret(normaliseRecoveryCode(c)!)));
  return codes;
}

/** Use up one of `user_id`'s recovery codes. @returns false when `typed` is none of its unused codes */
export async function useRecoveryCode(deps: Pick<AppDeps, 'sql'>, user_id: string, typed: string): Promise<boolean> {
  const code = normaliseRecoveryCode(typed);
  return code !== null && markRecoveryCodeUsed(deps.sql, user_id, hashSecret(code));
}

/**
 * The second factor of a password or e-mail-code login (docs/api/accounts.md "Auth", "Two-factor
 * policy and recovery codes"), for an account with TOTP on (nothing to check otherwise):
 * `recovery_code`, or `otp` holding the current TOTP code or a recovery code. A recovery code
 * works once.
 * @throws ApiError AUTH_2FA_REQUIRED (401) when neither is given, AUTH_2FA_INVALID (401) when it is wrong
 */
export async function checkLoginSecondFactor(deps: Pick<AppDeps, 'sql'>, user: Pick<UserRow, 'id' | 'totp_secret'>, body: { otp?: string | undefined; recovery_code?: string | undefined }): Promise<void> {
  if (!user.totp_secret) return;
  const otp = body.otp ?? '';
  const recovery = body.recovery_code ?? '';
  if (otp === '' && recovery === '') throw new ApiError('AUTH_2FA_REQUIRED', 'two-factor code required in "otp" (or a recovery code in "recovery_code")');
  if (recovery !== '') {
    if (await useRecoveryCode(deps, user.id, recovery)) return;
  } else if (/^\d{6}$/.test(otp)) {
    if (checkTotp(user.totp_secret, otp)) return;
  } else if (await useRecoveryCode(deps, user.id, otp)) {
    return;
  }
  throw new ApiError('AUTH_2FA_INVALID', 'wrong two-factor code');
}

/**
 * Proof for a sensitive two-factor action (turn TOTP off, new recovery codes): the current TOTP
 * `code`, or an `email_code` from POST /v1/account/otp/send (docs/api/accounts.md "E-mail codes").
 * @throws ApiError AUTH_2FA_INVALID (401: wrong TOTP code); AUTH_OTP_INVALID, AUTH_OTP_EXPIRED,
 *   AUTH_OTP_ATTEMPTS_EXCEEDED (e-mail code, see useEmailCode)
 */
export async function proveSecondFactor(deps: Pick<AppDeps, 'config' | 'sql'>, user: Pick<UserRow, 'id' | 'totp_secret'>, proof: SecondFactorProof): Promise<void> {
  if (proof.email_code !== undefined) return useEmailCode(deps, user.id, 'action', proof.email_code);
  if (!user.totp_secret || !checkTotp(user.totp_secret, proof.code ?? '')) throw new ApiError('AUTH_2FA_INVALID', 'wrong two-factor code');
}
