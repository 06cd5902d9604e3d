import { randomBytes } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { isId, LIMITS } from '@vantage/shared-protocol';
import type { AppDeps } from '../deps.js';
import { getOrCreateSetting } from '../db/settings.js';

const ISSUER = 'vantage';
/** Clock difference between instances tolerated on `iat` and `exp`, seconds. */
export const CLOCK_TOLERANCE_S = 5;
const keys = new WeakMap<object, Promise<Uint8Array>>();

/**
 * The HS256 key for session JWTs: `config.jwt_secret`, or a 256-bit key generated on first start
 * and stored in `platform_settings` so every instance on the database signs with the same key.
 * Loaded once per `sql` client.
 */
export function jwtKey(deps: Pick<AppDeps, 'config' | 'sql'>): Promise<Uint8Array> {
  if (deps.config.jwt_secret) {
    // One key object per configuration: verified tokens are remembered per key (verified-tokens.ts).
    let configured = keys.get(deps.config);
    if (!configured) keys.set(deps.config, configured = Promise.resolve(new TextEncoder().encode(deps.config.jwt_secret)));
    return configured;
  }
  let key = keys.get(deps.sql);
  if (!key) {
    key = getOrCreateSetting(deps.sql, 'jwt_hs256_key', randomBytes(32).toString('base64url')).then((v) => Buffer.from(v, 'base64url'));
    key.catch(() => keys.delete(deps.sql));
    keys.set(deps.sql, key);
  }
  return key;
}

/**
 * Sign a session access token (docs/api/accounts.md, docs/api/conventions.md): HS256, `sub` = user id, `sid` = session id,
 * valid `LIMITS.access_token_ttl_s` (900 s).
 */
export async function signAccessToken(key: Uint8Array, user_id: string, session_id: string): Promise<string> {
  return new SignJWT({ sid: session_id })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(user_id)
    .setIssuer(ISSUER)
    .setIssuedAt()
    .setExpirationTime(`${LIMITS.access_token_ttl_s}s`)
    .sign(key);
}

/** Outcome of checking an access token's signature and claims (not the session row). */
export type AccessTokenCheck = {
  ok: true; user_id: string; session_id: string;
  /** Until when (epoch ms) the token passes this check: its `exp`, or `iat` plus the access token TTL if earlier, plus the clock tolerance. */
  until_ms: number;
} | { ok: false; reason: 'expired' | 'invalid' };

/**
 * Verify a session JWT: only HS256 (so `alg: none` and keys for other algorithms fail), our
 * issuer, `sub` a user id and `sid` a session id, and `exp` and `iat` both present (a token
 * without `exp` would never expire): unexpired, issued in the past and at most
 * `LIMITS.access_token_ttl_s` ago, so even a token signed with a far `exp` lives no longer than
 * the ones we issue. Instances' clocks may differ by up to {@link CLOCK_TOLERANCE_S}.
 */
export async function verifyAccessToken(key: Uint8Array, token: string): Promise<AccessTokenCheck> {
  try {
    const { payload } = await jwtVerify(token, key, {
      algorithms: ['HS256'], issuer: ISSUER, requiredClaims: ['exp', 'iat', 'sub', 'sid'], maxTokenAge: LIMITS.access_token_ttl_s,
      clockTolerance: CLOCK_TOLERANCE_S,
    });
    // Well-formed ids only: a claim is never handed to a query unless it could be one of ours.
    if (!isId('user', payload.sub) || !isId('session', payload.sid)) return { ok: false, reason: 'invalid' };
    const until_s = Math.min(payload.exp!, payload.iat! + LIMITS.access_token_ttl_s) + CLOCK_TOLERANCE_S;
    return { ok: true, user_id: payload.sub, session_id: payload.sid, until_ms: until_s * 1000 };
  } catch (err) {
    return { ok: false, reason: err instanceof joseErrors.JWTExpired ? 'expired' : 'invalid' };
  }
}
