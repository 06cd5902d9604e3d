import type { Sql } from '../db/sql.js';

/**
 * Take the right to send a verification e-mail to `user_id` now: stamps
 * `email_verification_sent_at` unless the address is verified or the last e-mail went out less
 * than `min_interval_s` ago (one statement, so two concurrent resends cannot both pass).
 * @returns `{ email }` to send to, or why not: `verified`, `too_soon` (with seconds to wait), `missing`
 */
export async function claimVerificationSend(sql: Sql, user_id: string, min_interval_s: number): Promise<
  { ok: true; email: string } | { ok: false; reason: 'verified' | 'missing' } | { ok: false; reason: 'too_soon'; retry_after_s: number }
> {
  const [row] = await sql<{ email: string }[]>`
    UPDATE users SET email_verification_sent_at = now()
    WHERE id = ${user_id} AND NOT email_verified AND email <> ''
      AND (email_verification_sent_at IS NULL OR email_verification_sent_at <= now() - make_interval(secs => ${min_interval_s}))
    RETURNING email`;
  if (row) return { ok: true, email: row.email };
  const [user] = await sql<{ email_verified: boolean; wait_s: number | null }[]>`
    SELECT email_verified,
      ceil(extract(epoch FROM email_verification_sent_at + make_interval(secs => ${min_interval_s}) - now()))::int AS wait_s
    FROM users WHERE id = ${user_id}`;
  if (!user) return { ok: false, reason: 'missing' };
  if (user.email_verified) return { ok: false, reason: 'verified' };
  return { ok: false, reason: 'too_soon', retry_after_s: Math.max(1, user.wait_s ?? 1) };
}

/**
 * Mark `user_id`'s address verified if it is still `email` (case-insensitive): a link sent to an
 * address the account no longer has verifies nothing.
 * @returns the address when it is (now or already) verified, else null
 */
export async function markEmailVerified(sql: Sql, user_id: string, email: string): Promise<string | null> {
  const [row] = await sql<{ email: string }[]>`
    UPDATE users SET email_verified = true, updated_at = CASE WHEN email_verified THEN updated_at ELSE now() END
    WHERE id = ${user_id} AND lower(email) = lower(${email})
    RETURNING email`;
  return row?.email ?? null;
}
