import { createHash } from 'node:crypto';

/**
 * Hash of a high-entropy secret (`ent_` token, `nk_` node credential: 160 random bits each, see
 * shared-protocol ids.ts), stored instead of the secret (docs/architecture/node-agent.md, identity). A plain SHA-256
 * suffices: the input is random, so there is nothing to brute-force. Hex, 64 characters.
 */
export function secretHash(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
