import type { AppDeps } from '../deps.js';
import { upgradePasswordHash } from './password-store.db.js';
import { dummyHash, hashKind, hashPassword, needsRehash, verifyPassword } from './passwords.js';

/**
 * The password check of `POST /v1/auth/login` (docs/api/accounts.md "Passwords"). An unknown
 * e-mail, and an account without a password (single sign-on), are checked against the argon2id
 * dummy hash: the same work as a wrong password, and false. A right password held in a weaker
 * hash (scrypt, or argon2id below today's parameters: passwords.ts needsRehash) is rehashed to
 * argon2id and stored, only if the stored hash did not change meanwhile; a failure to store it is
 * logged and the login goes on.
 * @returns whether `password` is the account's password
 */
export async function verifyLoginPassword(deps: Pick<AppDeps, 'sql' | 'log'>, user: { id: string; password_hash: string } | null, password: string): Promise<boolean> {
  if (!user || hashKind(user.password_hash) === 'none') {
    await verifyPassword(password, await dummyHash());
    return false;
  }
  if (!(await verifyPassword(password, user.password_hash))) return false;
  if (needsRehash(user.password_hash)) {
    try {
      await upgradePasswordHash(deps.sql, user.id, user.password_hash, await hashPassword(password));
    } catch (err) {
      deps.log.warn({ err, user_id: user.id }, 'password rehash to argon2id failed; the old hash stays');
    }
  }
  return true;
}
