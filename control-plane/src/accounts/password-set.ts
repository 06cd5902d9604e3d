import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import type { UserRow } from './accounts.db.js';
import { passwordChangedEmail } from './password-emails.js';
import { consumeResetToken } from './password-reset.db.js';
import { recentPasswordHashes, replacePassword, revokeSessionsExcept } from './password-store.db.js';
import { assertStrongPassword } from './password-strength.js';
import { hashPassword, verifyPassword } from './passwords.js';

type Deps = Pick<AppDeps, 'config' | 'sql' | 'mail' | 'log'>;

/**
 * Refuse a password equal to one of the account's last `config.password_history_count` (the
 * current one included; docs/api/accounts.md "Passwords"). Costs one hash verification per
 * remembered password, run side by side on the thread pool.
 * @throws ApiError 400 AUTH_PASSWORD_REUSED (`details.fields` names `field`)
 */
export async function assertNotReused(deps: Pick<AppDeps, 'config' | 'sql'>, user_id: string, password: string, field = 'new_password'): Promise<void> {
  const count = deps.config.password_history_count;
  const hashes = await recentPasswordHashes(deps.sql, user_id, count);
  const matches = await Promise.all(hashes.map((h) => verifyPassword(password, h)));
  if (matches.some(Boolean)) {
    throw new ApiError('AUTH_PASSWORD_REUSED', `choose a password you have not used for this account recently (the last ${count} are refused)`, {
      history_count: count, fields: [{ path: field, message: 'used recently' }],
    });
  }
}

/**
 * Give `user` the new password `password` (docs/api/accounts.md "Passwords"): checks strength
 * (password-strength.ts) and reuse ({@link assertNotReused}) first, then in one transaction uses up
 * `reset_token_hash` when given (a reset), stores the argon2id hash (the old one joins the
 * history), marks the address verified for a reset, ends every session but `keep_session_id`
 * (null: all) and voids the account's unused reset links. Then the notice e-mail goes out (best
 * effort: a failure is logged, the change stands).
 * @returns how many sessions were ended
 * @throws ApiError 400 AUTH_PASSWORD_WEAK, AUTH_PASSWORD_REUSED; 400 VALIDATION_FAILED
 *   `details.reason: token_used` when the reset token was used meanwhile; 404 ACCOUNT_NOT_FOUND
 */
export async function setNewPassword(deps: Deps, user: UserRow, password: string, opts: { keep_session_id: string | null; reset_token_hash?: string }): Promise<{ sessions_ended: number }> {
  await assertStrongPassword(deps.config, password, { email: user.email, name: user.display_name }, 'new_password');
  await assertNotReused(deps, user.id, password);
  const password_hash = await hashPassword(password);
  const reset = opts.reset_token_hash !== undefined;
  const sessions_ended = await deps.sql.begin(async (tx) => {
    if (reset && (await consumeResetToken(tx, opts.reset_token_hash!)) !== user.id) {
      throw new ApiError('VALIDATION_FAILED', 'this reset link has already been used: ask for a new one (POST /v1/auth/password/forgot)', {
        reason: 'token_used', fields: [{ path: 'token', message: 'already used' }],
      });
    }
    const keep_history = Math.max(0, deps.config.password_history_count - 1);
    if (!(await replacePassword(tx, user.id, password_hash, { keep_history, verify_email: reset }))) throw new ApiError('ACCOUNT_NOT_FOUND', 'account not found');
    return revokeSessionsExcept(tx, user.id, opts.keep_session_id);
  });
  if (user.email !== '') {
    const mail = passwordChangedEmail({ at: new Date(), how: reset ? 'reset' : 'changed' });
    await deps.mail.send({ ...mail, to: user.email, user_id: user.id, kind: 'account.password_changed' })
      .catch((err: unknown) => deps.log.error({ err, user_id: user.id }, 'password-changed notice could not be queued'));
  }
  return { sessions_ended };
}
