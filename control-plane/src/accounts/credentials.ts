import { ACCOUNT_KEY_SCOPES, SECRET_PREFIXES } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import type { Principal } from '../env.js';
import { ApiError } from '../errors.js';
import { findAccessKeyByHash, touchAccessKey } from './api-keys.db.js';
import { accountState, sessionState } from './account-status.db.js';
import { toStanding } from './caller-standing.db.js';
import { refuseInactiveAccount } from './account-status.js';
import { jwtKey } from './jwt.js';
import { verifyAccessTokenRemembered } from './verified-tokens.js';
import { hashSecret } from './secrets.js';

/** Scopes a session carries: everything an account key can have (docs/api/scopes.md). */
export const SESSION_SCOPES: string[] = [...ACCOUNT_KEY_SCOPES];
/** last_used_at is written at most this often per key (it is a write on the hot path). */
const TOUCH_EVERY_MS = 60_000;

/**
 * Resolve an `Authorization` header value to a Principal (docs/api/conventions.md).
 * - absent → null (anonymous)
 * - `Bearer sk_live_…|sk_test_…` → API key; `Bearer svc_pat_…` → personal access token
 * - any other bearer → session JWT, whose session row must be live
 * A key or PAT with `allowed_origins` is refused when the request's `origin` (its Origin header)
 * is not one of them; a request without Origin (server to server) passes (docs/api/accounts.md
 * "Allowed origins"). A workspace token's principal carries its `team_id`.
 *
 * @throws ApiError 401: AUTH_INVALID_TOKEN (not Bearer, unknown key, bad signature, alg none,
 *   `svc_mcp_` token: docs/api/conventions.md), API_KEY_REVOKED, TOKEN_EXPIRED (key/PAT past expires_at),
 *   AUTH_EXPIRED (JWT past exp), AUTH_SESSION_INVALID (session logged out or gone);
 *   403 AUTH_ACCOUNT_DISABLED (any credential of a disabled account, checked before revocation:
 *   disabling revokes them all, docs/api/accounts.md "Account lifecycle"), 410 ACCOUNT_DELETED
 *   (any credential of an account scheduled for deletion, `details.purge_at`),
 *   403 FORBIDDEN (Origin not among the key's allowed origins: `details.origin`, `details.allowed_origins`)
 */
export async function resolveBearer(deps: Pick<AppDeps, 'config' | 'sql' | 'log'>, header: string | undefined, origin?: string): Promise<Principal | null> {
  if (header === undefined) return null;
  const m = /^Bearer +(\S{1,4096})\s*$/i.exec(header);
  if (!m) throw new ApiError('AUTH_INVALID_TOKEN', 'Authorization must be "Bearer <token>"');
  const token = m[1]!;
  if (token.startsWith(SECRET_PREFIXES.api_key_live) || token.startsWith(SECRET_PREFIXES.api_key_test)) return keyPrincipal(deps, token, 'api_key', origin);
  if (token.startsWith(SECRET_PREFIXES.pat)) return keyPrincipal(deps, token, 'pat', origin);
  if (token.startsWith('svc_mcp_')) throw new ApiError('AUTH_INVALID_TOKEN', 'MCP tokens are valid only at the MCP entry point');
  const check = await verifyAccessTokenRemembered(await jwtKey(deps), token);
  if (!check.ok) {
    throw check.reason === 'expired'
      ? new ApiError('AUTH_EXPIRED', 'access token expired; refresh it with POST /v1/auth/refresh')
      : new ApiError('AUTH_INVALID_TOKEN', 'invalid access token');
  }
  const session = await sessionState(deps.sql, check.session_id, check.user_id);
  // A disabled or deleting account's every credential is refused as such, before "session ended".
  if (session) refuseInactiveAccount(session);
  if (!session?.live) throw new ApiError('AUTH_SESSION_INVALID', 'session ended; log in again');
  return { kind: 'session', user_id: check.user_id, scopes: SESSION_SCOPES, credential_id: check.session_id, standing: toStanding(session) };
}

/** Whether `origin` (an Origin header, or undefined) may use a key limited to `allowed` ([] = any); compared as scheme://host[:port] in lower case. */
export function originAllowed(allowed: readonly string[], origin: string | undefined): boolean {
  return allowed.length === 0 || origin === undefined || allowed.includes(origin.trim().toLowerCase());
}

async function keyPrincipal(deps: Pick<AppDeps, 'sql' | 'log'>, token: string, kind: 'api_key' | 'pat', origin: string | undefined): Promise<Principal> {
  const row = await findAccessKeyByHash(deps.sql, hashSecret(token));
  const what = kind === 'api_key' ? 'API key' : 'personal access token';
  if (!row || row.kind !== kind) throw new ApiError('AUTH_INVALID_TOKEN', `invalid ${what}`);
  if (!row.owner_active) refuseInactiveAccount((await accountState(deps.sql, row.user_id)) ?? { status: 'disabled', deletion_scheduled_at: null }, `the account of this ${what}`);
  if (row.revoked_at) throw new ApiError('API_KEY_REVOKED', `${what} revoked`);
  if (row.expired) throw new ApiError('TOKEN_EXPIRED', `${what} expired`);
  if (!originAllowed(row.allowed_origins, origin)) {
    throw new ApiError('FORBIDDEN', `this ${what} is not accepted from origin ${origin}`, { origin, allowed_origins: row.allowed_origins });
  }
  if (!row.last_used_at || Date.now() - row.last_used_at.getTime() > TOUCH_EVERY_MS) {
    touchAccessKey(deps.sql, row.id).catch((err) => deps.log.warn({ err, key_id: row.id }, 'last_used_at update failed'));
  }
  return {
    kind, user_id: row.user_id, scopes: row.scopes, credential_id: row.id, expires_at: row.expires_at, standing: toStanding(row),
    ...(kind === 'api_key' ? { key_type: row.type } : {}), ...(row.team_id ? { team_id: row.team_id } : {}),
  };
}
