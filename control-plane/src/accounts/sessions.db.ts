import type { Sql } from '../db/sql.js';

/**
 * A sessions row: the JWT `sid` points at it; the refresh token's hash rotates on each use and
 * every rotated-out hash is kept in session_refresh_history (reuse detection).
 */
export interface SessionRow {
  id: string;
  user_id: string;
  refresh_hash: string;
  created_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
}

/** Open a session lasting `ttl_s` seconds with the hash of its first refresh token. */
export async function insertSession(sql: Sql, s: { id: string; user_id: string; refresh_hash: string; ttl_s: number }): Promise<void> {
  await sql`
    INSERT INTO sessions (id, user_id, refresh_hash, expires_at)
    VALUES (${s.id}, ${s.user_id}, ${s.refresh_hash}, now() + make_interval(secs => ${s.ttl_s}))`;
}

/**
 * True when session `id` of `user_id` is live (not revoked, not past expires_at). Checked on every
 * request carrying a session JWT, so logout takes effect at once.
 */
export async function sessionIsLive(sql: Sql, id: string, user_id: string): Promise<boolean> {
  const rows = await sql`
    SELECT 1 FROM sessions WHERE id = ${id} AND user_id = ${user_id} AND revoked_at IS NULL AND expires_at > now()`;
  return rows.length > 0;
}

/** Revoke one session (logout). @returns true when a live session was revoked */
export async function revokeSession(sql: Sql, id: string): Promise<boolean> {
  const rows = await sql`UPDATE sessions SET revoked_at = now() WHERE id = ${id} AND revoked_at IS NULL RETURNING id`;
  return rows.length > 0;
}

/** Revoke every live session of `user_id` (its account was disabled). @returns how many */
export async function revokeUserSessions(sql: Sql, user_id: string): Promise<number> {
  const rows = await sql`UPDATE sessions SET revoked_at = now() WHERE user_id = ${user_id} AND revoked_at IS NULL RETURNING id`;
  return rows.length;
}

/**
 * Rotate a refresh token: the live session whose current hash is `old_hash` gets `new_hash`, and
 * `old_hash` joins the session's history in the same statement. A token found in the history of
 * a session (any earlier token of it, not only the last: reuse is a sign of theft) revokes that
 * session. Two concurrent refreshes with the same token: one rotates, the other is reuse.
 * @returns the session's user and id, `'reused'` or `'invalid'` (unknown, revoked or expired)
 */
export async function rotateRefresh(sql: Sql, old_hash: string, new_hash: string): Promise<{ id: string; user_id: string } | 'reused' | 'invalid'> {
  const rows = await sql<{ id: string; user_id: string }[]>`
    WITH rotated AS (
      UPDATE sessions SET refresh_hash = ${new_hash}
      WHERE refresh_hash = ${old_hash} AND revoked_at IS NULL AND expires_at > now()
      RETURNING id, user_id
    ), kept AS (
      INSERT INTO session_refresh_history (token_hash, session_id) SELECT ${old_hash}, id FROM rotated
    )
    SELECT id, user_id FROM rotated`;
  if (rows[0]) return rows[0];
  const reused = await sql`
    UPDATE sessions SET revoked_at = coalesce(revoked_at, now())
    WHERE id = (SELECT session_id FROM session_refresh_history WHERE token_hash = ${old_hash})
    RETURNING id`;
  return reused.length > 0 ? 'reused' : 'invalid';
}

/**
 * Delete sessions that ended (expired or revoked) before `before`, with their refresh-token
 * history (ON DELETE CASCADE). An ended session's tokens are refused whether its row exists or not
 * (unknown token: 401), so nothing is lost but rows. @returns how many sessions were deleted
 */
export async function pruneEndedSessions(sql: Sql, before: Date): Promise<number> {
  const rows = await sql`DELETE FROM sessions WHERE expires_at < ${before} OR revoked_at < ${before} RETURNING 1`;
  return rows.length;
}
