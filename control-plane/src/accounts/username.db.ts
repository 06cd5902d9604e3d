import type { Sql } from '../db/sql.js';
import type { UserRow } from './accounts.db.js';

/**
 * Set (or with null clear) the username of `user_id`; usernames are unique case-insensitively
 * (users_username_key on lower(username)).
 * @returns `taken` when another account has it in any letter case, else `ok`
 */
export async function setUsername(sql: Sql, user_id: string, username: string | null): Promise<'ok' | 'taken'> {
  try {
    await sql`UPDATE users SET username = ${username}, updated_at = now() WHERE id = ${user_id}`;
    return 'ok';
  } catch (err) {
    if ((err as { code?: string }).code === '23505' && (err as { constraint_name?: string }).constraint_name === 'users_username_key') return 'taken';
    throw err;
  }
}

/** The user whose username is `username` in any letter case, or null. */
export async function findUserByUsername(sql: Sql, username: string): Promise<UserRow | null> {
  const rows = await sql<UserRow[]>`SELECT * FROM users WHERE lower(username) = lower(${username})`;
  return rows[0] ?? null;
}
