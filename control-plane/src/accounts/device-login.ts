import { randomInt } from 'node:crypto';
import { DEVICE_LOGIN, newId, newSecret, USER_CODE_ALPHABET } from '@vantage/shared-protocol';
import type { z } from 'zod';
import type { deviceAuthorizationSchema } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { hitRateLimit } from '../db/rate-limit.js';
import { publicLink } from '../email/links.js';
import { ApiError } from '../errors.js';
import { rateLimitHeaders } from '../middleware/rate-limit.js';
import { codeHash } from './email-otp.js';
import { insertDeviceAuthorization } from './device-login.db.js';
import { jwtKey } from './jwt.js';
import { hashSecret } from './secrets.js';

/** Where the console lets a signed-in user confirm a QR-code login: `<public URL>/device`. */
export const DEVICE_VERIFICATION_PATH = '/device';
/** User-code look-ups one account may make per 10 minutes before 429 (RFC 8628 5.1: user codes are short enough to guess). */
export const USER_CODE_LOOKUPS = { limit: 30, window_s: 600 } as const;
const USER_CODE_CHARS = 8;

/** 8 random letters of {@link USER_CODE_ALPHABET}, shown as `XXXX-XXXX` (RFC 8628 6.1). */
function newUserCode(): string {
  let s = '';
  for (let i = 0; i < USER_CODE_CHARS; i++) s += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return `${s.slice(0, 4)}-${s.slice(4)}`;
}

/**
 * A typed user code in its stored form: upper case, dashes and spaces dropped (RFC 8628 6.1:
 * be lenient in what is typed). @returns null when it cannot be a user code
 */
export function normaliseUserCode(typed: string): string | null {
  const s = typed.toUpperCase().replace(/[\s-]/g, '');
  return s.length === USER_CODE_CHARS && [...s].every((ch) => USER_CODE_ALPHABET.includes(ch)) ? s : null;
}

/** The stored form of a user code: HMAC-SHA256 under the deployment key (a short code needs a keyed hash). */
export async function userCodeHash(deps: Pick<AppDeps, 'config' | 'sql'>, normalised: string): Promise<string> {
  return codeHash(await jwtKey(deps), 'user_code', normalised);
}

/**
 * Start a QR-code login (RFC 8628 3.1-3.2): a `dc_` device code (only its sha256 stored), a
 * user code, the verification URIs (`<public URL>/device`, and with `?user_code=`), the latter
 * as an SVG QR code, valid {@link DEVICE_LOGIN}.expires_in_s, polled every interval_s.
 * @param from the requesting browser's address and User-Agent, shown to the approving device
 */
export async function startDeviceLogin(deps: Pick<AppDeps, 'config' | 'sql'>, from: { ip: string | null; user_agent: string | null }): Promise<z.infer<typeof deviceAuthorizationSchema>> {
  const device_code = newSecret('device_code');
  for (;;) {
    const user_code = newUserCode();
    const stored = await insertDeviceAuthorization(deps.sql, {
      id: newId('device_authorization'), device_code_hash: hashSecret(device_code), user_code_hash: await userCodeHash(deps, normaliseUserCode(user_code)!),
      requester_ip: from.ip, user_agent: from.user_agent, ttl_s: DEVICE_LOGIN.expires_in_s, interval_s: DEVICE_LOGIN.interval_s,
    });
    if (!stored) continue;
    const verification_uri = publicLink(deps.config, DEVICE_VERIFICATION_PATH);
    const verification_uri_complete = publicLink(deps.config, DEVICE_VERIFICATION_PATH, { user_code });
    // qrcode (and its PNG encoder) is loaded at the first device login rather than when the app starts.
    const { default: QRCode } = await import('qrcode');
    const qr_svg = await QRCode.toString(verification_uri_complete, { type: 'svg', errorCorrectionLevel: 'M', margin: 1 });
    return { device_code, user_code, verification_uri, verification_uri_complete, qr_svg, expires_in: DEVICE_LOGIN.expires_in_s, interval: DEVICE_LOGIN.interval_s };
  }
}

/**
 * Count one user-code look-up (GET, approve, deny) against the account's budget
 * ({@link USER_CODE_LOOKUPS}) before it is made, hit or miss, so guessing codes stops there too.
 * @throws ApiError RATE_LIMIT_EXCEEDED (429, Retry-After) past the budget
 */
export async function chargeUserCodeLookup(deps: Pick<AppDeps, 'sql'>, user_id: string): Promise<void> {
  const counted = await hitRateLimit(deps.sql, `user-code:${user_id}`, USER_CODE_LOOKUPS.window_s);
  if (counted.count > USER_CODE_LOOKUPS.limit) {
    throw new ApiError('RATE_LIMIT_EXCEEDED', `at most ${USER_CODE_LOOKUPS.limit} sign-in code look-ups per ${USER_CODE_LOOKUPS.window_s} s`, { ...USER_CODE_LOOKUPS }, rateLimitHeaders(USER_CODE_LOOKUPS.limit, counted));
  }
}

/** The answer to a user code that names no pending login (wrong, expired, approved, denied). */
export function unknownUserCode(): ApiError {
  return new ApiError('NOT_FOUND', 'no pending sign-in request has this code: it is wrong, expired, or already approved or denied');
}
