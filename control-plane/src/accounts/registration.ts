import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import type { UserRow } from './accounts.db.js';
import { consumeInvite } from './invites.db.js';
import { insertAccount, lockAccountCreation, noUsersYet } from './registration.db.js';
import { hashSecret } from './secrets.js';

type Deps = Pick<AppDeps, 'sql' | 'config'>;

/** Why a registration is refused, as `details.reason` of the 403 (docs/api/accounts.md "Auth"). */
export type RegistrationRefusal = 'registration_closed' | 'invite_token_required' | 'invite_token_invalid';

const REFUSALS: Record<RegistrationRefusal, string> = {
  registration_closed: 'registration is closed on this deployment (VANTAGE_REGISTRATION=closed): an administrator creates accounts (POST /v1/admin/accounts)',
  invite_token_required: 'registration needs an invite on this deployment (VANTAGE_REGISTRATION=invite): send the invite_token an administrator gave you',
  invite_token_invalid: 'this invite token is unknown, used, expired or for another address (VANTAGE_REGISTRATION=invite): ask an administrator for a new one',
};

function refused(deps: Deps, reason: RegistrationRefusal): ApiError {
  return new ApiError('FORBIDDEN', REFUSALS[reason], {
    setting: 'VANTAGE_REGISTRATION', registration: deps.config.registration, reason,
    ...(reason === 'registration_closed' ? {} : { fields: [{ path: 'invite_token', message: reason === 'invite_token_required' ? 'required' : 'unknown, used, expired or for another address' }] }),
  });
}

/**
 * Refuse early, before the password is hashed, a registration the mode will refuse anyway:
 * `closed` once the deployment has an account, `invite` without a token. Cheap; the decision
 * that counts is {@link registerAccount}'s, under the lock.
 * @throws ApiError 403 FORBIDDEN as registerAccount
 */
export async function precheckRegistration(deps: Deps, invite_token: string | undefined): Promise<void> {
  const mode = deps.config.registration;
  if (mode === 'open' || (mode === 'invite' && invite_token)) return;
  if (await noUsersYet(deps.sql)) return;
  throw refused(deps, mode === 'closed' ? 'registration_closed' : 'invite_token_required');
}

/**
 * Create an account for `POST /v1/auth/register` under the deployment's registration mode
 * (VANTAGE_REGISTRATION; docs/operators/self-hosting.md "Registration"):
 * - the first account of an empty deployment is always created, in every mode, and is its
 *   administrator (`is_admin`);
 * - `open`: any other; `invite`: one with an unused, unexpired invite token bound to no address
 *   or to this one (any case), which this registration uses up; `closed`: none.
 * One transaction under the account-creation lock, so two concurrent first registrations make
 * one administrator (the second meets the mode), and a refused or failed registration leaves its
 * invite usable.
 * @param u.id the new `u_` id; `password_hash` from passwords.ts
 * @throws ApiError 403 FORBIDDEN (`details {setting: "VANTAGE_REGISTRATION", registration, reason}`),
 *   409 ACCOUNT_EMAIL_TAKEN
 */
export async function registerAccount(deps: Deps, u: { id: string; email: string; password_hash: string; invite_token?: string }): Promise<UserRow & { is_admin: boolean }> {
  const mode = deps.config.registration;
  return deps.sql.begin(async (tx) => {
    await lockAccountCreation(tx);
    const first = await noUsersYet(tx);
    if (!first && mode === 'closed') throw refused(deps, 'registration_closed');
    if (!first && mode === 'invite') {
      if (!u.invite_token) throw refused(deps, 'invite_token_required');
      if (!(await consumeInvite(tx, hashSecret(u.invite_token), u.email, u.id))) throw refused(deps, 'invite_token_invalid');
    }
    const user = await insertAccount(tx, { id: u.id, email: u.email, password_hash: u.password_hash, is_admin: first });
    // Thrown inside the transaction: the invite it used is given back.
    if (!user) throw new ApiError('ACCOUNT_EMAIL_TAKEN', 'email already registered');
    return user;
  });
}

/**
 * Create an account as an administrator does (`POST /v1/admin/accounts`), whatever the
 * registration mode, under the same lock as registrations.
 * @returns the row, or null when the email is taken
 */
export async function createAccount(deps: Pick<AppDeps, 'sql'>, u: { id: string; email: string; password_hash: string; is_admin: boolean }): Promise<(UserRow & { is_admin: boolean }) | null> {
  return deps.sql.begin(async (tx) => {
    await lockAccountCreation(tx);
    return insertAccount(tx, u);
  });
}
