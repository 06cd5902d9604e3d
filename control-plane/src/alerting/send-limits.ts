import type { Sql } from '../db/sql.js';
import { hitRateLimit } from '../db/rate-limit.js';
import { ApiError } from '../errors.js';
import { rateLimitHeaders } from '../middleware/rate-limit.js';

/** A per-account budget: at most `limit` per fixed window of `window_s` (db/rate-limit.ts). */
export interface AccountLimit {
  /** Bucket name prefix; the account id completes it. */
  bucket: string;
  limit: number;
  window_s: number;
  /** What is counted, for the 429 message. */
  what: string;
}

/** Test sends of alert channels (any type) per account (docs/api/alerting.md "Channels"). */
export const ALERT_TEST_SEND_LIMIT: AccountLimit = { bucket: 'alert-test', limit: 10, window_s: 600, what: 'channel test sends' };

/**
 * Opt-in e-mails to e-mail channel recipients per account (docs/api/alerting.md "E-mail
 * recipients"), whether sent for new addresses of a channel or asked for again.
 */
export const OPT_IN_MAIL_LIMIT: AccountLimit = { bucket: 'alert-opt-in', limit: 20, window_s: 3600, what: 'opt-in e-mails' };

/**
 * Count `n` sends against the account's budget `l` (shared by every instance through the
 * rate-limit counters). Call it before changing anything: a refusal leaves nothing changed.
 * @throws ApiError RATE_LIMIT_EXCEEDED (429) with Retry-After and X-RateLimit-* once over the limit
 */
export async function chargeAccount(sql: Sql, user_id: string, l: AccountLimit, n = 1): Promise<void> {
  for (let i = 0; i < n; i++) {
    const counted = await hitRateLimit(sql, `${l.bucket}:${user_id}`, l.window_s);
    if (counted.count > l.limit) {
      throw new ApiError('RATE_LIMIT_EXCEEDED', `at most ${l.limit} ${l.what} per ${l.window_s} s for one account`, { limit: l.limit, window_s: l.window_s }, rateLimitHeaders(l.limit, counted));
    }
  }
}
