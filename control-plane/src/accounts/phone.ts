import { randomInt, timingSafeEqual } from 'node:crypto';
import { maskPhone } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { hitRateLimit } from '../db/rate-limit.js';
import { rateLimitHeaders } from '../middleware/rate-limit.js';
import { ApiError } from '../errors.js';
import { bindPhone, countPhoneAttempt, deletePhoneVerification, findPhoneVerification, phoneBoundElsewhere, startPhoneVerification } from './phone.db.js';
import { requireSmsGateway, sendSms } from './phone-sms.js';
import { hashSecret } from './secrets.js';

/**
 * Send a 6-digit code to `phone` (E.164) by SMS to bind it to `user_id` (docs/api/accounts.md
 * "Phone"): the code is valid `phone_code_ttl_s`, at most one SMS per `phone_code_resend_s`; a new
 * request replaces an earlier code, at most `phone_code_sends_per_hour` per account and hour
 * (whatever the numbers: SMS cost money). Only the code's sha256 is stored. When the gateway fails the
 * pending binding is dropped, so the user may ask again at once.
 * @returns the masked number, when the code expires and seconds before another may be sent
 * @throws ApiError CONFLICT (409, `details.field` phone) when another account has bound the number;
 *   RATE_LIMIT_EXCEEDED (429, `Retry-After`) when asked again too soon or too often;
 *   UNAVAILABLE (503) without a gateway or when it fails (phone-sms.ts)
 */
export async function startPhoneBinding(deps: Pick<AppDeps, 'config' | 'sql' | 'log'>, user_id: string, phone: string): Promise<{ phone: string; expires_at: string; resend_after_s: number }> {
  const { config } = deps;
  requireSmsGateway(config); // before anything is stored
  if (await phoneBoundElsewhere(deps.sql, phone, user_id)) throw phoneTaken();
  const counted = await hitRateLimit(deps.sql, `phone-code:${user_id}`, 3600);
  if (counted.count > config.phone_code_sends_per_hour) {
    const limit = config.phone_code_sends_per_hour;
    throw new ApiError('RATE_LIMIT_EXCEEDED', `at most ${limit} verification SMS per hour`, { limit, window_s: 3600 }, rateLimitHeaders(limit, counted));
  }
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  const row = await startPhoneVerification(deps.sql, { user_id, phone, code_hash: hashSecret(code), ttl_s: config.phone_code_ttl_s, resend_s: config.phone_code_resend_s });
  if ('too_soon' in row) {
    throw new ApiError('RATE_LIMIT_EXCEEDED', `a code was sent recently; ask again in ${row.too_soon} s`, { retry_after_s: row.too_soon }, { 'retry-after': String(row.too_soon) });
  }
  const minutes = Math.round(config.phone_code_ttl_s / 60);
  try {
    await sendSms(deps, phone, `Your Vantage verification code is ${code}. It expires in ${minutes} minutes. If you did not ask for it, ignore this message.`);
  } catch (err) {
    await deletePhoneVerification(deps.sql, user_id);
    throw err;
  }
  return { phone: maskPhone(phone), expires_at: row.expires_at.toISOString(), resend_after_s: config.phone_code_resend_s };
}

/**
 * Check `code` against the pending binding of `user_id` and bind its number on a match
 * (docs/api/accounts.md "Phone"). Every wrong code counts; after `phone_code_max_attempts` the
 * binding is dropped and a new code must be asked for.
 * @returns the bound number (E.164)
 * @throws ApiError AUTH_OTP_INVALID (401: wrong code, `details.attempts_left`; or no binding
 *   under way), AUTH_OTP_EXPIRED (401), AUTH_OTP_ATTEMPTS_EXCEEDED (429), CONFLICT (409: another
 *   account bound the number since the code was sent)
 */
export async function verifyPhoneBinding(deps: Pick<AppDeps, 'config' | 'sql'>, user_id: string, code: string): Promise<string> {
  const max = deps.config.phone_code_max_attempts;
  const pending = await findPhoneVerification(deps.sql, user_id);
  if (!pending) throw new ApiError('AUTH_OTP_INVALID', 'no phone verification is under way: ask for a code with POST /v1/account/phone');
  if (pending.expired) {
    await deletePhoneVerification(deps.sql, user_id);
    throw new ApiError('AUTH_OTP_EXPIRED', 'this code has expired: ask for a new one with POST /v1/account/phone');
  }
  const used = await countPhoneAttempt(deps.sql, user_id, max);
  if (used === null) {
    await deletePhoneVerification(deps.sql, user_id);
    throw new ApiError('AUTH_OTP_ATTEMPTS_EXCEEDED', 'too many wrong codes: ask for a new one with POST /v1/account/phone');
  }
  const hash = hashSecret(code);
  if (!timingSafeEqual(Buffer.from(hash), Buffer.from(pending.code_hash))) {
    if (used >= max) {
      await deletePhoneVerification(deps.sql, user_id);
      throw new ApiError('AUTH_OTP_ATTEMPTS_EXCEEDED', 'too many wrong codes: ask for a new one with POST /v1/account/phone');
    }
    throw new ApiError('AUTH_OTP_INVALID', 'wrong code', { attempts_left: max - used });
  }
  const bound = await bindPhone(deps.sql, user_id, hash);
  if (!bound) throw new ApiError('AUTH_OTP_EXPIRED', 'this code is no longer valid: ask for a new one with POST /v1/account/phone');
  if (typeof bound !== 'string') throw phoneTaken();
  return bound;
}

/** A number binds to one account only (docs/api/accounts.md "Phone"). */
function phoneTaken(): ApiError {
  return new ApiError('CONFLICT', 'this phone number is bound to another account', { field: 'phone' });
}
