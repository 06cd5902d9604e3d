import { ApiError } from '../errors.js';
import type { AccountState } from './account-status.db.js';

/**
 * The error every request or login of an account that is not active gets (docs/api/accounts.md
 * "Account lifecycle"), or null for an active account:
 * - `disabled` (by an administrator) → 403 AUTH_ACCOUNT_DISABLED
 * - `deleting` (deletion requested, grace period running) → 410 ACCOUNT_DELETED with
 *   `details.purge_at` (ISO 8601) and `details.restore` (how to undo it)
 * - any other state → 403 AUTH_ACCOUNT_DISABLED
 */
export function inactiveAccountError(state: AccountState, what = 'this account'): ApiError | null {
  if (state.status === 'active') return null;
  if (state.status === 'deleting') {
    return new ApiError('ACCOUNT_DELETED', `${what} is scheduled for deletion; it can be restored until the purge`, {
      purge_at: state.deletion_scheduled_at?.toISOString() ?? null,
      restore: 'POST /v1/auth/account/restore with {"token"} from the restore e-mail, or {"email", "password"}',
    });
  }
  return new ApiError('AUTH_ACCOUNT_DISABLED', `${what} is disabled`);
}

/**
 * Throw {@link inactiveAccountError} when the account is not active (login, credential checks).
 * @throws ApiError AUTH_ACCOUNT_DISABLED (403) or ACCOUNT_DELETED (410)
 */
export function refuseInactiveAccount(state: AccountState, what?: string): void {
  const err = inactiveAccountError(state, what);
  if (err) throw err;
}
