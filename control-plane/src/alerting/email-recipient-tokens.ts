import { randomBytes } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import { hashSecret } from '../accounts/secrets.js';
import { ApiError } from '../errors.js';

/*
 * The two links of e-mail channel recipients (docs/api/alerting.md "E-mail recipients"):
 * - opt-in: a random token (256 bits, base64url) e-mailed once; only its sha256 is stored, with an
 *   expiry, and a new opt-in e-mail replaces it (the way heartbeat and API key secrets are kept);
 * - unsubscribe: in every alert e-mail, so it must be made again at each send: an HS256 JWT with
 *   the deployment's session key (like the e-mail verification token, accounts/email-verification.ts)
 *   under its own audience, naming the account and the address. It does not expire: an alert read
 *   months later can still stop the next ones.
 */

const ISSUER = 'vantage';
/** The audience that makes an unsubscribe token unusable as anything else (and other tokens unusable here). */
const UNSUBSCRIBE_AUDIENCE = 'vantage:alert-unsubscribe';

/** A new opt-in token and the sha256 (hex) to store. */
export function newOptInToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashSecret(token) };
}

/** The stored form of an opt-in token a link carries. */
export function optInHash(token: string): string {
  return hashSecret(token);
}

/** The unsubscribe token of `address` (lower-cased) for the account `user_id`. */
export async function signUnsubscribeToken(key: Uint8Array, user_id: string, address: string): Promise<string> {
  return new SignJWT({ email: address })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(user_id).setIssuer(ISSUER).setAudience(UNSUBSCRIBE_AUDIENCE).setIssuedAt()
    .sign(key);
}

/**
 * Check an unsubscribe token's signature, issuer and audience.
 * @returns the account and the address it unsubscribes
 * @throws ApiError AUTH_INVALID_TOKEN (401) for anything else
 */
export async function checkUnsubscribeToken(key: Uint8Array, token: string): Promise<{ user_id: string; address: string }> {
  try {
    const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'], issuer: ISSUER, audience: UNSUBSCRIBE_AUDIENCE, requiredClaims: ['sub', 'email'] });
    if (typeof payload.sub === 'string' && typeof payload.email === 'string') return { user_id: payload.sub, address: payload.email };
  } catch {
    // any failure of the token is the same answer
  }
  throw new ApiError('AUTH_INVALID_TOKEN', 'this unsubscribe link is not valid');
}
