import type { Sql } from '../db/sql.js';
import { standingColumns, type StandingFields } from './caller-standing.db.js';

/** An account's state as the credential checks need it (docs/api/accounts.md "Account lifecycle"). */
export interface AccountState {
  /** `active`, `disabled` (by an administrator) or `deleting` (grace period before the purge). */
  status: string;
  /** When a deleting account will be purged; null otherwise. */
  deletion_scheduled_at: Date | null;
}

/**
 * Session `id` of `user_id`, its account's state and the caller's standing (caller-standing.db.ts)
 * in one read (checked on every request with a session JWT): `live` is false when the session was
 * revoked or has expired.
 * @returns null when there is no such session
 */
export async function sessionState(sql: Sql, id: string, user_id: string): Promise<(AccountState & StandingFields & { live: boolean; created_at: Date }) | null> {
  const rows = await sql<(AccountState & StandingFields & { live: boolean; created_at: Date })[]>`
    SELECT (s.revoked_at IS NULL AND s.expires_at > now()) AS live, s.created_at, u.status, u.deletion_scheduled_at, ${standingColumns(sql)}
    FROM sessions s JOIN users u ON u.id = s.user_id
    WHERE s.id = ${id} AND s.user_id = ${user_id}`;
  return rows[0] ?? null;
}

/** The state of account `user_id`, or null when it does not exist. */
export async function accountState(sql: Sql, user_id: string): Promise<AccountState | null> {
  const rows = await sql<AccountState[]>`SELECT status, deletion_scheduled_at FROM users WHERE id = ${user_id}`;
  return rows[0] ?? null;
}

/**
 * End every credential of `user_id` at once: its live sessions and its API keys, personal access
 * tokens and workspace tokens (revoked_at = now). Nothing brings them back.
 * @returns how many sessions and keys were revoked
 */
export async function revokeAllCredentials(sql: Sql, user_id: string): Promise<{ sessions: number; keys: number }> {
  const [row] = await sql<{ sessions: number; keys: number }[]>`
    WITH s AS (UPDATE sessions SET revoked_at = now() WHERE user_id = ${user_id} AND revoked_at IS NULL RETURNING 1),
         k AS (UPDATE access_keys SET revoked_at = now() WHERE user_id = ${user_id} AND revoked_at IS NULL RETURNING 1)
    SELECT (SELECT count(*) FROM s)::int AS sessions, (SELECT count(*) FROM k)::int AS keys`;
  return row!;
}
