import type { Context } from 'hono';
import type { SecuritySummary } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import type { AppEnv } from '../env.js';
import { ApiError } from '../errors.js';
import { operationOf, scopeOf } from '../middleware/scopes.js';
import { twoFactorSetupOwed, type TwoFactorStanding } from './two-factor-policy.db.js';

/**
 * What a user owing 2FA may still do (docs/api/accounts.md "Two-factor policy and recovery
 * codes"): set TOTP up, read the profile and the security summary, log out; passkey routes
 * (everything under /v1/account/passkeys) and public operations are open as well.
 */
export const SETUP_OPERATIONS: ReadonlySet<string> = new Set([
  'POST /v1/account/2fa/setup',
  'POST /v1/account/2fa/enable',
  'GET /v1/account/profile',
  'GET /v1/account/security',
  'POST /v1/auth/logout',
]);

/** Whether the operation `METHOD /path` (OpenAPI form) stays open to a user owing 2FA. */
export function openWhileSetupOwed(operation: string): boolean {
  if (SETUP_OPERATIONS.has(operation)) return true;
  const path = operation.slice(operation.indexOf(' ') + 1);
  return path === '/v1/account/passkeys' || path.startsWith('/v1/account/passkeys/') || scopeOf(operation) === 'none';
}

/**
 * The two-factor policy on one request (called by the app's identify middleware, after the
 * credential is resolved): when the caller's own account or any of its teams sets
 * `require_2fa` and it has neither TOTP nor a passkey, every authenticated operation but
 * {@link openWhileSetupOwed} ones is refused. Anonymous requests and unknown routes pass (404
 * follows). The credential's statement read the standing (no query of its own) where it could; otherwise
 * one query per authenticated request outside the open list.
 * @throws ApiError AUTH_2FA_SETUP_REQUIRED (409) with `details.reason` `policy` and `details.setup` (where to go)
 */
export async function enforceTwoFactorPolicy(deps: Pick<AppDeps, 'sql'>, c: Context<AppEnv>): Promise<void> {
  const principal = c.get('principal');
  if (!principal) return;
  const operation = operationOf(c);
  if (operation === null || openWhileSetupOwed(operation)) return;
  if (!(principal.standing?.two_factor_owed ?? await twoFactorSetupOwed(deps.sql, principal.user_id))) return;
  throw new ApiError('AUTH_2FA_SETUP_REQUIRED', 'two-factor authentication is required for this account: set up TOTP (POST /v1/account/2fa/setup) or a passkey first; GET /v1/account/security says which policy requires it', {
    reason: 'policy', setup: ['POST /v1/account/2fa/setup', '/v1/account/passkeys'],
  });
}

/** The security summary (`GET /v1/account/security`) from a user's standing. */
export function toSecuritySummary(s: TwoFactorStanding): SecuritySummary {
  const required = s.account || s.teams.length > 0;
  return {
    totp_enabled: s.totp, passkeys: s.passkeys, recovery_codes_left: s.recovery_codes_left, require_2fa: s.account,
    teams_requiring_2fa: s.teams, two_factor_required: required, setup_required: required && !s.totp && s.passkeys === 0,
  };
}
