import type { SqlExecutor } from '../contracts.js';
import type { Sql } from '../db/sql.js';

/**
 * The hashes of an account's last `count` passwords, newest first: the current one (unless the
 * account has none) and those it replaced (password_history, migration 0057).
 */
export async function recentPasswordHashes(sql: SqlExecutor, user_id: string, count: number): Promise<string[]> {
  if (count <= 0) return [];
  const rows = await sql<{ password_hash: string }[]>`
    (SELECT password_hash, 1 AS o, now() AS at FROM users WHERE id = ${user_id} AND password_hash <> '')
    UNION ALL
    (SELECT password_hash, 2 AS o, replaced_at AS at FROM password_history WHERE user_id = ${user_id} ORDER BY replaced_at DESC LIMIT ${count})
    ORDER BY o, at DESC
    LIMIT ${count}`;
  return rows.map((r) => r.password_hash);
}

/**
 * Give `user_id` the password hash `password_hash`, in the caller's transaction: the hash it
 * replaces joins password_history (unless the account had none), of which only the newest
 * `keep_history` stay; `verify_email` also marks the address verified (a reset link proved the
 * mailbox); every unused reset token of the account stops working.
 * @returns false when the account does not exist
 */
export async function replacePassword(tx: SqlExecutor, user_id: string, password_hash: string, opts: { keep_history: number; verify_email: boolean }): Promise<boolean> {
  const [old] = await tx<{ password_hash: string }[]>`SELECT password_hash FROM users WHERE id = ${user_id} FOR UPDATE`;
  if (!old) return false;
  if (old.password_hash !== '') await tx`INSERT INTO password_history (user_id, password_hash) VALUES (${user_id}, ${old.password_hash})`;
  await tx`
    DELETE FROM password_history WHERE user_id = ${user_id} AND ctid NOT IN (
      SELECT ctid FROM password_history WHERE user_id = ${user_id} ORDER BY replaced_at DESC LIMIT ${Math.max(0, opts.keep_history)})`;
  await tx`
    UPDATE users SET password_hash = ${password_hash}, updated_at = now(),
      email_verified = email_verified OR ${opts.verify_email}
    WHERE id = ${user_id}`;
  await tx`UPDATE password_reset_tokens SET used_at = now() WHERE user_id = ${user_id} AND used_at IS NULL`;
  return true;
}

/**
 * Swap a stored hash for a stronger hash of the same password (login rehash), only if it is still
 * `old_hash`: a password changed meanwhile is left alone. @returns whether it was swapped
 */
export async function upgradePasswordHash(sql: Sql, user_id: string, old_hash: string, new_hash: string): Promise<boolean> {
  const rows = await sql`UPDATE users SET password_hash = ${new_hash} WHERE id = ${user_id} AND password_hash = ${old_hash} RETURNING id`;
  return rows.length > 0;
}

/** Seconds since session `session_id` of `user_id` was opened (log-in time; refreshes do not renew it), or null when there is no such session. */
export async function sessionAgeS(sql: Sql, session_id: string, user_id: string): Promise<number | null> {
  const [row] = await sql<{ age_s: number }[]>`
    SELECT extract(epoch FROM now() - created_at)::float8 AS age_s FROM sessions WHERE id = ${session_id} AND user_id = ${user_id}`;
  return row ? row.age_s : null;
}

/** Revoke every live session of `user_id` but `keep_session_id` (null: all of them). @returns how many */
export async function revokeSessionsExcept(tx: SqlExecutor, user_id: string, keep_session_id: string | null): Promise<number> {
  const rows = await tx`
    UPDATE sessions SET revoked_at = now()
    WHERE user_id = ${user_id} AND revoked_at IS NULL AND id IS DISTINCT FROM ${keep_session_id}
    RETURNING id`;
  return rows.length;
}
