import { LIMITS, newId, newSecret, type TokenResponse } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { insertSession, rotateRefresh } from './sessions.db.js';
import { jwtKey, signAccessToken } from './jwt.js';
import { hashSecret } from './secrets.js';

/**
 * Open a session for `user_id` (login, register) and answer with the token response (docs/api/accounts.md):
 * a 900 s access JWT carrying the session id and a `rt_` refresh token (only its hash stored),
 * valid `config.session_ttl_s`.
 */
export async function openSession(deps: Pick<AppDeps, 'config' | 'sql'>, user_id: string): Promise<TokenResponse> {
  const session_id = newId('session');
  const refresh_token = newSecret('refresh_token');
  await insertSession(deps.sql, { id: session_id, user_id, refresh_hash: hashSecret(refresh_token), ttl_s: deps.config.session_ttl_s });
  return tokenResponse(await jwtKey(deps), user_id, session_id, refresh_token);
}

/**
 * Exchange a refresh token for a new access token and a new refresh token (rotation: the old one
 * stops working; presenting it again revokes the whole session).
 * @throws ApiError AUTH_SESSION_INVALID for an unknown, rotated-out, revoked or expired token
 */
export async function refreshSession(deps: Pick<AppDeps, 'config' | 'sql'>, refresh_token: string): Promise<TokenResponse> {
  const next = newSecret('refresh_token');
  const r = await rotateRefresh(deps.sql, hashSecret(refresh_token), hashSecret(next));
  if (r === 'reused') throw new ApiError('AUTH_SESSION_INVALID', 'refresh token already used; session revoked');
  if (r === 'invalid') throw new ApiError('AUTH_SESSION_INVALID', 'invalid or expired refresh token');
  return tokenResponse(await jwtKey(deps), r.user_id, r.id, next);
}

async function tokenResponse(key: Uint8Array, user_id: string, session_id: string, refresh_token: string): Promise<TokenResponse> {
  return {
    access_token: await signAccessToken(key, user_id, session_id),
    token_type: 'Bearer',
    expires_in: LIMITS.access_token_ttl_s,
    refresh_token,
    user_id,
  };
}
