import { createHash } from 'node:crypto';

/**
 * sha256 hex of a bearer secret (API key, PAT, refresh token). Enough for 160-bit random
 * secrets: nothing to brute-force, and a lookup by hash needs a deterministic function.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}
