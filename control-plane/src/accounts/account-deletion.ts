import { newSecret } from '@vantage/shared-protocol';
import { publicBaseUrl } from '../config/public-url.js';
import type { NodeDisconnector } from '../contracts.js';
import type { AppDeps } from '../deps.js';
import type { Principal } from '../env.js';
import { ApiError } from '../errors.js';
import type { Logger } from '../log.js';
import { findUserById, type UserRow } from './accounts.db.js';
import { accountDeletionEmail } from './account-deletion-email.js';
import { dueDeletions, purgeAccount, restoreAccount, scheduleDeletion, teamsSolelyOwned } from './account-deletion.db.js';
import { sessionState } from './account-status.db.js';
import { useEmailCode } from './email-otp.js';
import { verifyPassword } from './passwords.js';
import { hashSecret } from './secrets.js';

/**
 * Check that the caller may delete its account (docs/api/accounts.md "Account lifecycle"):
 * only a session (never a key or token) may; an account with a password confirms with it; one
 * without a password but with an e-mail address confirms with an e-mail code
 * (POST /v1/account/otp/send); one with neither must be on a session opened at most
 * `account_deletion_recent_login_s` ago.
 * @throws ApiError FORBIDDEN (403: not a session; `details.reason` `login_too_old` with
 *   `details.max_age_s`), VALIDATION_FAILED (400: the password or e-mail code missing),
 *   AUTH_CREDENTIALS_INVALID (401: wrong password), AUTH_OTP_* (wrong, expired or exhausted code)
 */
export async function confirmDeletion(deps: Pick<AppDeps, 'config' | 'sql'>, principal: Principal, user: UserRow, body: { password?: string; email_code?: string }): Promise<void> {
  if (principal.kind !== 'session') throw new ApiError('FORBIDDEN', 'an account is deleted from a signed-in session, not with an API key or token');
  if (user.password_hash !== '') {
    if (body.password === undefined) throw new ApiError('VALIDATION_FAILED', 'confirm with your password in "password"', { fields: [{ path: 'password', message: 'required' }] });
    if (!(await verifyPassword(body.password, user.password_hash))) throw new ApiError('AUTH_CREDENTIALS_INVALID', 'wrong password');
    return;
  }
  if (user.email !== '') {
    if (body.email_code === undefined) throw new ApiError('VALIDATION_FAILED', 'confirm with a code sent by POST /v1/account/otp/send in "email_code"', { fields: [{ path: 'email_code', message: 'required' }] });
    await useEmailCode(deps, user.id, 'action', body.email_code);
    return;
  }
  const max_age_s = deps.config.account_deletion_recent_login_s;
  const session = await sessionState(deps.sql, principal.credential_id, user.id);
  if (!session || Date.now() - session.created_at.getTime() > max_age_s * 1000) {
    throw new ApiError('FORBIDDEN', `sign in again: an account without password or e-mail is deleted within ${max_age_s} s of a login`, { reason: 'login_too_old', max_age_s });
  }
}

/**
 * Schedule the deletion of `user_id` (docs/api/accounts.md "Account lifecycle"): refused while it
 * is a team's only owner; otherwise it becomes `deleting` until now + `account_deletion_grace_s`,
 * every session and key ends at once, and a restore token (`art_…`) is e-mailed to its address
 * (logged without SMTP; `failed` when there is no address).
 * @throws ApiError CONFLICT (409) naming the teams it solely owns (`details.teams[{id, name,
 *   other_members}]`), or when the account is no longer active
 */
export async function requestDeletion(deps: Pick<AppDeps, 'config' | 'sql' | 'mail'>, user: UserRow): Promise<{ purge_at: Date; restore_email: 'queued' | 'logged' | 'failed' }> {
  const owned = await teamsSolelyOwned(deps.sql, user.id);
  if (owned.length > 0) {
    throw new ApiError('CONFLICT', `you are the only owner of ${owned.map((t) => `"${t.name}"`).join(', ')}: make another member owner or delete the team first`, { teams: owned });
  }
  const token = newSecret('account_restore_token');
  const scheduled = await scheduleDeletion(deps.sql, { user_id: user.id, grace_s: deps.config.account_deletion_grace_s, token_hash: hashSecret(token) }, async (tx, purge_at) => {
    if (user.email === '') return 'failed' as const;
    const mail = accountDeletionEmail({ token, purge_at, base_url: publicBaseUrl(deps.config) });
    return deps.mail.send({ ...mail, to: user.email, user_id: user.id, kind: 'account.deletion' }, tx);
  });
  if (!scheduled) throw new ApiError('CONFLICT', 'this account is not active');
  return { purge_at: scheduled.purge_at, restore_email: scheduled.result };
}

/**
 * Restore a deleting account by its e-mailed token, or (`user`) one whose password was checked.
 * @returns the account id
 * @throws ApiError AUTH_INVALID_TOKEN (401) for an unknown, used or expired token; CONFLICT (409)
 *   when the account is not scheduled for deletion
 */
export async function restore(deps: Pick<AppDeps, 'sql'>, by: { token: string } | { user_id: string }): Promise<string> {
  const id = await restoreAccount(deps.sql, 'token' in by ? { token_hash: hashSecret(by.token) } : by);
  if (id) return id;
  if ('token' in by) throw new ApiError('AUTH_INVALID_TOKEN', 'this restore token is unknown, used or expired');
  throw new ApiError('CONFLICT', 'this account is not scheduled for deletion');
}

/**
 * Purge every account whose grace period has passed (at most `batch` per call). One failing
 * account is logged and left for the next run; one still solely owning a team (it became so
 * after the request) is skipped with a warning naming the teams.
 * @returns how many accounts were purged
 */
export async function purgeDueAccounts(deps: { sql: AppDeps['sql']; log: Logger; hub?: NodeDisconnector }, batch = 100): Promise<number> {
  let purged = 0;
  for (const id of await dueDeletions(deps.sql, batch)) {
    try {
      const r = await purgeAccount(deps.sql, id);
      if (r.outcome === 'purged') {
        purged++;
        deps.log.info({ user_id: id, removed_nodes: r.removed_nodes.length }, 'account purged after its deletion grace period');
        // Removed nodes lost their credential; a connected one is closed now rather than at its next reconnect.
        for (const node_id of r.removed_nodes) {
          await deps.hub?.disconnect(node_id, 'node_removed').catch((err: unknown) => deps.log.warn({ err, node_id }, 'node disconnect notify failed'));
        }
      } else if (r.outcome === 'sole_owner') {
        deps.log.warn({ user_id: id, teams: r.teams }, 'account not purged: it is the only owner of teams');
      }
    } catch (err) {
      deps.log.error({ err, user_id: id }, 'account purge failed; retried at the next run');
    }
  }
  return purged;
}

/** The account, or ACCOUNT_NOT_FOUND (404). */
export async function accountOf(deps: Pick<AppDeps, 'sql'>, user_id: string): Promise<UserRow> {
  const user = await findUserById(deps.sql, user_id);
  if (!user) throw new ApiError('ACCOUNT_NOT_FOUND');
  return user;
}
