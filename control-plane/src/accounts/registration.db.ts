import type { SqlExecutor } from '../contracts.js';
import type { UserRow } from './accounts.db.js';

/** Advisory lock key every account creation holds for its transaction (migrate.ts holds 7261001). */
const ACCOUNT_CREATION_LOCK = 7261044;

/**
 * Serialise account creation for the rest of transaction `tx`, so "is this the first account?"
 * and the insert that follows are one step: two concurrent first registrations make one
 * administrator, and the second meets the registration mode.
 */
export async function lockAccountCreation(tx: SqlExecutor): Promise<void> {
  await tx`SELECT pg_advisory_xact_lock(${ACCOUNT_CREATION_LOCK})`;
}

/** True when the deployment has no account yet (disabled ones count as accounts). */
export async function noUsersYet(tx: SqlExecutor): Promise<boolean> {
  const rows = await tx<{ empty: boolean }[]>`SELECT NOT EXISTS (SELECT 1 FROM users) AS empty`;
  return rows[0]!.empty;
}

/**
 * Insert a user, administrator or not. Emails are unique case-insensitively.
 * @returns the row, or null when the email is taken
 */
export async function insertAccount(tx: SqlExecutor, u: { id: string; email: string; password_hash: string; is_admin: boolean }): Promise<(UserRow & { is_admin: boolean }) | null> {
  const rows = await tx<(UserRow & { is_admin: boolean })[]>`
    INSERT INTO users (id, email, password_hash, is_admin) VALUES (${u.id}, ${u.email}, ${u.password_hash}, ${u.is_admin})
    ON CONFLICT ((lower(email))) DO NOTHING
    RETURNING *`;
  return rows[0] ?? null;
}
