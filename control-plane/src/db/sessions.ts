import type { Sql } from './sql.js';

/** A sessions row: the JWT `sid` points at it; the refresh token's hash rotates on each use. */
export interface SessionRow {
  id: string;
  user_id: string;
  refresh_hash: string;
  previous_refresh_hash: string | null;
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

/**
 * Rotate a refresh token: the session whose current hash is `old_hash` gets `new_hash`.
 * A token that was already rotated out (reuse, a sign of theft) revokes its session.
 * @returns the session's user and id, `'reused'` or `'invalid'` (unknown, revoked or expired)
 */
export async function rotateRefresh(sql: Sql, old_hash: string, new_hash: string): Promise<{ id: string; user_id: string } | 'reused' | 'invalid'> {
  const rows = await sql<{ id: string; user_id: string }[]>`
    UPDATE sessions SET refresh_hash = ${new_hash}, previous_refresh_hash = refresh_hash
    WHERE refresh_hash = ${old_hash} AND revoked_at IS NULL AND expires_at > now()
    RETURNING id, user_id`;
  if (rows[0]) return rows[0];
  const reused = await sql`
    UPDATE sessions SET revoked_at = now() WHERE previous_refresh_hash = ${old_hash} AND revoked_at IS NULL RETURNING id`;
  return reused.length > 0 ? 'reused' : 'invalid';
}
