import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import { EMAIL_OTP, newId } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import type { Sql } from '../db/sql.js';
import { hitRateLimit } from '../db/rate-limit.js';
import { ApiError } from '../errors.js';
import { rateLimitHeaders } from '../middleware/rate-limit.js';
import { findUserByEmail, findUserById } from './accounts.db.js';
import { emailOtpEmail } from './email-otp-email.js';
import { consumeOtp, insertOtp, type OtpPurpose } from './email-otp.db.js';
import { jwtKey } from './jwt.js';
import { hashSecret } from './secrets.js';

/** Login codes sent to one address (whether or not an account has it) per hour. */
export const LOGIN_CODE_SENDS_PER_ADDRESS = { limit: 5, window_s: 3600 } as const;
/** Login codes asked from one source address per hour. */
export const LOGIN_CODE_SENDS_PER_IP = { limit: 20, window_s: 3600 } as const;
/** Action codes sent to one account per hour. */
export const ACTION_CODE_SENDS_PER_ACCOUNT = { limit: 5, window_s: 3600 } as const;

/**
 * HMAC-SHA256 (hex) of a short code under the deployment's key (accounts/jwt.ts jwtKey), bound
 * to `binding` (the row id): a 6-digit or 8-letter code is too short for a plain hash, which a
 * copy of the database alone would reverse in a moment.
 */
export function codeHash(key: Uint8Array, binding: string, code: string): string {
  return createHmac('sha256', key).update(`${binding}:${code}`, 'utf8').digest('hex');
}

function sameHex(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
}

/** Count one send in `bucket` (shared rate-limit counters). @throws ApiError RATE_LIMIT_EXCEEDED (429, Retry-After) over `limit` per `window_s` */
async function charge(sql: Sql, bucket: string, l: { limit: number; window_s: number }, what: string): Promise<void> {
  const counted = await hitRateLimit(sql, bucket, l.window_s);
  if (counted.count > l.limit) {
    throw new ApiError('RATE_LIMIT_EXCEEDED', `at most ${l.limit} ${what} per ${l.window_s} s`, { limit: l.limit, window_s: l.window_s }, rateLimitHeaders(l.limit, counted));
  }
}

/** A fresh uniformly random 6-digit code (leading zeros kept). */
function newCode(): string {
  return String(randomInt(0, 10 ** EMAIL_OTP.digits)).padStart(EMAIL_OTP.digits, '0');
}

async function issue(deps: Pick<AppDeps, 'config' | 'sql' | 'mail'>, user: { id: string; email: string }, purpose: OtpPurpose): Promise<void> {
  const id = newId('email_otp');
  const code = newCode();
  await insertOtp(deps.sql, { id, user_id: user.id, purpose, code_hash: codeHash(await jwtKey(deps), id, code), ttl_s: EMAIL_OTP.ttl_s });
  const rendered = emailOtpEmail({ code, purpose, expires_at: new Date(Date.now() + EMAIL_OTP.ttl_s * 1000) });
  await deps.mail.send({ ...rendered, to: user.email, user_id: user.id, kind: purpose === 'login' ? 'account.login_code' : 'account.action_code' });
}

/**
 * `POST /v1/auth/otp/send` (docs/api/accounts.md "E-mail codes"): e-mail a 6-digit login code
 * to `email` when an active account has it, and nothing otherwise: the caller learns nothing
 * either way, not even from the time taken (the code is stored and queued after the answer).
 * At most {@link LOGIN_CODE_SENDS_PER_ADDRESS} per address (counted for unknown
 * addresses too) and {@link LOGIN_CODE_SENDS_PER_IP} per source address.
 * @throws ApiError RATE_LIMIT_EXCEEDED (429) past either budget
 */
export async function sendLoginCode(deps: Pick<AppDeps, 'config' | 'sql' | 'mail' | 'log'>, email: string, ip: string): Promise<void> {
  await charge(deps.sql, `otp-send-ip:${ip}`, LOGIN_CODE_SENDS_PER_IP, 'sign-in codes from one address');
  await charge(deps.sql, `otp-send:${hashSecret(email.trim().toLowerCase())}`, LOGIN_CODE_SENDS_PER_ADDRESS, 'sign-in codes to one e-mail address');
  const user = await findUserByEmail(deps.sql, email);
  if (!user || user.status !== 'active' || user.email === '') return;
  // Stored and queued after the answer: a known address must not answer slower than an unknown one.
  issue(deps, user, 'login').catch((err: unknown) => deps.log.error({ err, user_id: user.id }, 'sign-in code could not be stored or queued'));
}

/**
 * `POST /v1/account/otp/send`: e-mail a 6-digit code to the account's own address, to confirm a
 * sensitive action with (docs/api/accounts.md "E-mail codes"); at most
 * {@link ACTION_CODE_SENDS_PER_ACCOUNT}.
 * @throws ApiError RATE_LIMIT_EXCEEDED (429); CONFLICT (409) when the account has no e-mail address
 */
export async function sendActionCode(deps: Pick<AppDeps, 'config' | 'sql' | 'mail'>, user_id: string): Promise<{ email: string }> {
  const user = await findUserById(deps.sql, user_id);
  if (!user) throw new ApiError('ACCOUNT_NOT_FOUND');
  if (user.email === '') throw new ApiError('CONFLICT', 'this account has no e-mail address to send a code to');
  await charge(deps.sql, `otp-action:${user_id}`, ACTION_CODE_SENDS_PER_ACCOUNT, 'confirmation codes to one account');
  await issue(deps, user, 'action');
  return { email: user.email };
}

/**
 * Check and use up `code` against the newest e-mail code of `purpose` sent to `user_id` (null:
 * an unknown address, answered as a wrong code). Single use; a new code supersedes older ones.
 * @throws ApiError AUTH_OTP_INVALID (401: wrong, used, superseded, or none sent), AUTH_OTP_EXPIRED
 *   (401: past its 600 s), AUTH_OTP_ATTEMPTS_EXCEEDED (429: 5 wrong codes were tried against it;
 *   ask for a new one)
 */
export async function useEmailCode(deps: Pick<AppDeps, 'config' | 'sql'>, user_id: string | null, purpose: OtpPurpose, code: string): Promise<void> {
  const key = await jwtKey(deps);
  const result = user_id === null
    ? (codeHash(key, 'none', code), 'none' as const)
    : await consumeOtp(deps.sql, user_id, purpose, EMAIL_OTP.max_attempts, (row) => sameHex(row.code_hash, codeHash(key, row.id, code)));
  if (result === 'ok') return;
  if (result === 'expired') throw new ApiError('AUTH_OTP_EXPIRED', 'this code has expired: ask for a new one');
  if (result === 'exceeded') throw new ApiError('AUTH_OTP_ATTEMPTS_EXCEEDED', `${EMAIL_OTP.max_attempts} wrong codes were tried: ask for a new one`, { max_attempts: EMAIL_OTP.max_attempts });
  throw new ApiError('AUTH_OTP_INVALID', 'wrong or already used code');
}
