import type { SqlExecutor } from '../contracts.js';
import type { Sql } from '../db/sql.js';

/**
 * Store a reset token's hash for `user_id`, valid `ttl_s` seconds, unless the account got one less
 * than `min_interval_s` ago (one statement, so two concurrent requests cannot both pass). Tokens
 * of the account that ended more than a day ago are deleted on the way.
 * @returns true when stored (an e-mail is to be sent), false when throttled
 */
export async function insertResetToken(sql: Sql, t: { token_hash: string; user_id: string; ttl_s: number; min_interval_s: number }): Promise<boolean> {
  await sql`
    DELETE FROM password_reset_tokens
    WHERE user_id = ${t.user_id} AND (expires_at < now() - interval '1 day' OR used_at < now() - interval '1 day')`;
  const rows = await sql`
    INSERT INTO password_reset_tokens (token_hash, user_id, expires_at)
    SELECT ${t.token_hash}, ${t.user_id}, now() + make_interval(secs => ${t.ttl_s})
    WHERE NOT EXISTS (
      SELECT 1 FROM password_reset_tokens
      WHERE user_id = ${t.user_id} AND created_at > now() - make_interval(secs => ${t.min_interval_s}))
    RETURNING 1`;
  return rows.length > 0;
}

/** State of the reset token hashing to `token_hash`: its account, and whether it was used or has expired; null when unknown. */
export async function findResetToken(sql: Sql, token_hash: string): Promise<{ user_id: string; used: boolean; expired: boolean } | null> {
  const [row] = await sql<{ user_id: string; used: boolean; expired: boolean }[]>`
    SELECT user_id, used_at IS NOT NULL AS used, expires_at <= now() AS expired
    FROM password_reset_tokens WHERE token_hash = ${token_hash}`;
  return row ?? null;
}

/** Use up a reset token in the caller's transaction: only an unused, unexpired one. @returns its account, or null */
export async function consumeResetToken(tx: SqlExecutor, token_hash: string): Promise<string | null> {
  const [row] = await tx<{ user_id: string }[]>`
    UPDATE password_reset_tokens SET used_at = now()
    WHERE token_hash = ${token_hash} AND used_at IS NULL AND expires_at > now()
    RETURNING user_id`;
  return row?.user_id ?? null;
}
