import { verifyAccessToken, type AccessTokenCheck } from './jwt.js';

/** Access tokens remembered as verified at most, per key (a few hundred bytes each). */
export const VERIFIED_TOKENS_MAX = 10_000;

type Verified = Extract<AccessTokenCheck, { ok: true }>;
const remembered = new WeakMap<Uint8Array, Map<string, Verified>>();

/**
 * {@link verifyAccessToken}, remembering each token that passed (per `key`, at most
 * {@link VERIFIED_TOKENS_MAX}, the oldest forgotten first) until it would no longer pass
 * (`until_ms`): a request with a token seen before costs no HMAC and no claim checks. Only the
 * token's signature and claims are remembered: the session it names is read on every request
 * (credentials.ts resolveBearer), so a logout, a revoked session or a disabled account still
 * refuses it at once (docs/api/accounts.md "Sessions", "Account lifecycle"). A token past
 * `until_ms` is checked again, and answers `expired` as before.
 * @param now_ms the current time, epoch ms (tests)
 */
export async function verifyAccessTokenRemembered(key: Uint8Array, token: string, now_ms: number = Date.now()): Promise<AccessTokenCheck> {
  let seen = remembered.get(key);
  if (!seen) remembered.set(key, seen = new Map());
  const hit = seen.get(token);
  if (hit && now_ms < hit.until_ms) return hit;
  if (hit) seen.delete(token);
  const check = await verifyAccessToken(key, token);
  if (check.ok && now_ms < check.until_ms) {
    if (seen.size >= VERIFIED_TOKENS_MAX) seen.delete(seen.keys().next().value!);
    seen.set(token, check);
  }
  return check;
}
