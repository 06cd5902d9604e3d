import type { SqlExecutor } from '../contracts.js';
import type { Sql } from '../db/sql.js';

/** An account_invites row (migration 0044); only the token's sha256 is stored. */
export interface InviteRow {
  id: string;
  email: string | null;
  created_by: string;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
  used_by: string | null;
}

/** Store an invite valid for `expires_in_s` seconds from now. */
export async function insertInvite(sql: Sql, i: { id: string; token_hash: string; email: string | null; created_by: string; expires_in_s: number }): Promise<InviteRow> {
  const rows = await sql<InviteRow[]>`
    INSERT INTO account_invites (id, token_hash, email, created_by, expires_at)
    VALUES (${i.id}, ${i.token_hash}, ${i.email}, ${i.created_by}, now() + make_interval(secs => ${i.expires_in_s}))
    RETURNING id, email, created_by, created_at, expires_at, used_at, used_by`;
  return rows[0]!;
}

/**
 * Use the invite whose token hashes to `token_hash` for account `user_id` with address `email`:
 * only an unused, unexpired invite, bound to no address or to this one (any case). Run it in the
 * registering transaction, so a refused registration leaves the invite usable.
 * @returns the invite's id, or null when there is no such usable invite
 */
export async function consumeInvite(tx: SqlExecutor, token_hash: string, email: string, user_id: string): Promise<string | null> {
  const rows = await tx<{ id: string }[]>`
    UPDATE account_invites SET used_at = now(), used_by = ${user_id}
    WHERE token_hash = ${token_hash} AND used_at IS NULL AND expires_at > now()
      AND (email IS NULL OR lower(email) = lower(${email}))
    RETURNING id`;
  return rows[0]?.id ?? null;
}

/** Invites, newest first, a page of `limit` from `offset`, with the total. */
export async function listInvites(sql: Sql, limit: number, offset: number): Promise<{ rows: InviteRow[]; total: number }> {
  const [rows, count] = await Promise.all([
    sql<InviteRow[]>`SELECT id, email, created_by, created_at, expires_at, used_at, used_by FROM account_invites ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}`,
    sql<{ total: number }[]>`SELECT count(*)::int AS total FROM account_invites`,
  ]);
  return { rows, total: count[0]!.total };
}

/** Delete an unused invite. @returns false when there is no unused invite with this id */
export async function deleteUnusedInvite(sql: Sql, id: string): Promise<boolean> {
  const rows = await sql`DELETE FROM account_invites WHERE id = ${id} AND used_at IS NULL RETURNING id`;
  return rows.length > 0;
}
