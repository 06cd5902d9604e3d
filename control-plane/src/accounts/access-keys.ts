import { LIMITS, maskSecret, newId, newSecret, type AccountKeyScope, type ApiKey } from '@vantage/shared-protocol';
import type { Sql } from '../db/sql.js';
import type { Principal } from '../env.js';
import { ApiError } from '../errors.js';
import { grants } from '../middleware/scopes.js';
import { insertAccessKey, type AccessKeyKind, type AccessKeyRow } from './api-keys.db.js';
import { hashSecret } from './secrets.js';

/** Scopes of a new credential: as asked, de-duplicated and sorted; omitted or empty = read and write (docs/api/accounts.md). */
export function grantedScopes(scopes: AccountKeyScope[] | undefined): AccountKeyScope[] {
  return scopes && scopes.length > 0 ? [...new Set(scopes)].sort() : ['read', 'write'];
}

/**
 * Refuse a grant the creator cannot make (docs/api/accounts.md, "Who may create keys"): a
 * session may grant anything; an API key or PAT only scopes its own cover (docs/api/scopes.md:
 * `write` covers `monitor:write`, not the reverse), and a test key (`sk_test_`) only test keys,
 * so a credential can never mint a stronger one.
 * @throws ApiError 403 FORBIDDEN naming the scopes it lacks (`details.missing_scopes`,
 *   `details.allowed_scopes`), or saying a test key cannot create production credentials
 */
export function checkGrant(creator: Principal, scopes: AccountKeyScope[], wanted: { kind: AccessKeyKind; type: 'production' | 'test' }): void {
  if (creator.kind === 'session') return;
  if (creator.key_type === 'test' && (wanted.kind !== 'api_key' || wanted.type !== 'test')) {
    throw new ApiError('FORBIDDEN', 'a test API key (sk_test_) can only create test API keys (type "test")', { allowed_type: 'test' });
  }
  const missing = scopes.filter((s) => !grants(creator.scopes, s));
  if (missing.length === 0) return;
  const what = creator.kind === 'api_key' ? 'API key' : 'personal access token';
  throw new ApiError(
    'FORBIDDEN',
    `this ${what} cannot grant ${missing.map((s) => `'${s}'`).join(', ')}: a key or token may only create credentials with its own scopes (${creator.scopes.join(', ') || 'none'}); omitted scopes mean read and write`,
    { missing_scopes: missing, allowed_scopes: creator.scopes },
  );
}

/**
 * Create an account API key (`sk_live_` for type production, `sk_test_` for test) or a personal
 * access token (`svc_pat_`), docs/api/accounts.md, docs/api/conventions.md, for `creator`'s user. Scopes per
 * {@link grantedScopes}, limited by {@link checkGrant}; expiry `expires_at`, else `expires_days`
 * (default 90) from now, and a key or PAT creator also caps the new credential's expiry at its own.
 * `allowed_origins` are kept in lower case, de-duplicated. `team_id` (API keys only) makes a
 * workspace token: the route has checked the creator manages that team. Only the sha256 of the
 * secret is stored.
 * @returns the stored row and the secret, which the caller returns exactly once
 * @throws ApiError 403 FORBIDDEN when a key or PAT asks for scopes it does not hold
 */
export async function createAccessKey(
  sql: Sql,
  creator: Principal,
  input: {
    kind: AccessKeyKind; name: string; scopes?: AccountKeyScope[]; expires_days?: number; expires_at?: string | null;
    type?: 'production' | 'test'; allowed_origins?: string[]; team_id?: string | null;
  },
): Promise<{ row: AccessKeyRow; secret: string }> {
  const scopes = grantedScopes(input.scopes);
  const type = input.kind === 'pat' ? 'production' : (input.type ?? 'production');
  checkGrant(creator, scopes, { kind: input.kind, type });
  const secret = newSecret(input.kind === 'pat' ? 'pat' : type === 'test' ? 'api_key_test' : 'api_key_live');
  const row = await insertAccessKey(sql, {
    id: newId(input.kind === 'pat' ? 'pat' : 'api_key'), kind: input.kind, user_id: creator.user_id, name: input.name,
    key_hash: hashSecret(secret), key_prefix: maskSecret(secret), type, scopes,
    expires_days: input.expires_days ?? LIMITS.api_key_expires_days_default,
    expires_at: input.expires_at ? new Date(input.expires_at) : null,
    not_after: creator.kind === 'session' ? null : (creator.expires_at ?? null),
    allowed_origins: [...new Set((input.allowed_origins ?? []).map((o) => o.toLowerCase()))],
    team_id: input.kind === 'api_key' ? (input.team_id ?? null) : null,
  });
  return { row, secret };
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** API key record (docs/api/accounts.md) (no secret). */
export function toApiKey(row: AccessKeyRow): ApiKey {
  return {
    id: row.id, name: row.name, key_prefix: row.key_prefix, type: row.type, scopes: row.scopes,
    allowed_origins: row.allowed_origins, team_id: row.team_id, status: row.revoked_at ? 'revoked' : 'active', created_at: row.created_at.toISOString(),
    expires_at: iso(row.expires_at), last_used_at: iso(row.last_used_at),
  };
}

/** Personal access token record (no secret). */
export function toPat(row: AccessKeyRow) {
  const { key_prefix, type: _type, team_id: _team, ...rest } = toApiKey(row);
  return { ...rest, token_prefix: key_prefix };
}
