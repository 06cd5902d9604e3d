import { createHmac, timingSafeEqual } from 'node:crypto';

/** Length of an {@link enrollProof}: base64url of an HMAC-SHA256 (32 bytes), no padding. */
export const ENROLL_PROOF_LENGTH = 43;

/**
 * Proof that a node holds the `nk_` credential an enrollment `welcome` carried, sent back in
 * `enroll.confirm` on the same connection without sending the credential itself:
 * base64url(HMAC-SHA256(key = credential, message = "vantage enroll.confirm " + node_id)).
 * @example enrollProof('nk_…', 'n_…') // → 43 characters of base64url
 */
export function enrollProof(credential: string, node_id: string): string {
  return createHmac('sha256', credential).update(`vantage enroll.confirm ${node_id}`).digest('base64url');
}

/** True when `proof` is {@link enrollProof} of `credential` for `node_id` (compared in constant time). */
export function isEnrollProof(proof: string, credential: string, node_id: string): boolean {
  const want = Buffer.from(enrollProof(credential, node_id));
  const got = Buffer.from(proof);
  return got.length === want.length && timingSafeEqual(got, want);
}
