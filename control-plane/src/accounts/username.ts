import { USERNAME_PATTERN } from '@vantage/shared-protocol';
import type { Sql } from '../db/sql.js';
import { ApiError } from '../errors.js';
import { findUserByEmail, type UserRow } from './accounts.db.js';
import { findUserByUsername, setUsername } from './username.db.js';

/**
 * Change the username of `user_id` (docs/api/accounts.md "Username"): a string matching
 * USERNAME_PATTERN (checked by the request schema) or null to clear it.
 * @throws ApiError ACCOUNT_USERNAME_TAKEN (409) when another account has it in any letter case
 */
export async function changeUsername(sql: Sql, user_id: string, username: string | null): Promise<void> {
  if ((await setUsername(sql, user_id, username)) === 'taken') {
    throw new ApiError('ACCOUNT_USERNAME_TAKEN', `the username ${username} is taken`, { username });
  }
}

/**
 * The account a login names (docs/api/accounts.md "Username"): `login` with an `@` is an e-mail
 * address, otherwise a username when it matches USERNAME_PATTERN (a username can never contain
 * `@`, so the two cannot be confused). Case-insensitive either way.
 * @returns the user, or null when none has that e-mail or username
 */
export async function findUserForLogin(sql: Sql, login: string): Promise<UserRow | null> {
  if (login.includes('@')) return findUserByEmail(sql, login);
  return USERNAME_PATTERN.test(login) ? findUserByUsername(sql, login) : null;
}
