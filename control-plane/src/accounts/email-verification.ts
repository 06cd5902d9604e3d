import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import type { EmailDelivery } from '@vantage/shared-protocol';
import { publicBaseUrl } from '../config/public-url.js';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { claimVerificationSend } from './email-verification.db.js';
import { jwtKey } from './jwt.js';
import { verificationEmail } from './verification-email.js';

const ISSUER = 'vantage';
/** The audience that makes a verification token unusable as anything else (and session tokens unusable here). */
const AUDIENCE = 'vantage:verify-email';

/**
 * A verification token: an HS256 JWT (the deployment's session key) with audience
 * `vantage:verify-email`, `sub` = user id, `email` = the address it verifies, expiring after `ttl_s`.
 */
export async function signVerificationToken(key: Uint8Array, user_id: string, email: string, ttl_s: number): Promise<string> {
  return new SignJWT({ email })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(user_id).setIssuer(ISSUER).setAudience(AUDIENCE)
    .setIssuedAt().setExpirationTime(`${ttl_s}s`)
    .sign(key);
}

/**
 * Check a verification token's signature, audience, issuer and expiry.
 * @throws ApiError TOKEN_EXPIRED when it has expired, AUTH_INVALID_TOKEN for anything else
 */
export async function checkVerificationToken(key: Uint8Array, token: string): Promise<{ user_id: string; email: string }> {
  try {
    const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'], issuer: ISSUER, audience: AUDIENCE, requiredClaims: ['exp', 'sub', 'email'] });
    if (typeof payload.sub !== 'string' || typeof payload.email !== 'string') throw new ApiError('AUTH_INVALID_TOKEN', 'invalid verification token');
    return { user_id: payload.sub, email: payload.email };
  } catch (err) {
    if (err instanceof ApiError) throw err;
    if (err instanceof joseErrors.JWTExpired) throw new ApiError('TOKEN_EXPIRED', 'this verification link has expired: ask for a new one (POST /v1/auth/verify-email/resend)');
    throw new ApiError('AUTH_INVALID_TOKEN', 'invalid verification token');
  }
}

/** Where a verification link points: the configured base URL (config/public-url.ts). */
function verifyUrl(config: AppDeps['config'], token: string): string {
  return `${publicBaseUrl(config)}/v1/auth/verify-email?token=${encodeURIComponent(token)}`;
}

/**
 * Send `user_id` a verification e-mail through the Mailer (durable delivery, or the log without
 * SMTP), at most one per `email_verification_resend_s`.
 * @returns how it left, or `skipped` with why (already verified, sent too recently: with seconds to wait)
 */
export async function sendVerificationEmail(deps: Pick<AppDeps, 'config' | 'sql' | 'mail'>, user_id: string): Promise<
  { sent: EmailDelivery; email: string } | { skipped: 'verified' | 'missing' } | { skipped: 'too_soon'; retry_after_s: number }
> {
  const claim = await claimVerificationSend(deps.sql, user_id, deps.config.email_verification_resend_s);
  if (!claim.ok) return claim.reason === 'too_soon' ? { skipped: 'too_soon', retry_after_s: claim.retry_after_s } : { skipped: claim.reason };
  const ttl_s = deps.config.email_verification_ttl_s;
  const token = await signVerificationToken(await jwtKey(deps), user_id, claim.email, ttl_s);
  const rendered = verificationEmail({ link: verifyUrl(deps.config, token), expires_at: new Date(Date.now() + ttl_s * 1000) });
  const sent = await deps.mail.send({ ...rendered, to: claim.email, user_id, kind: 'account.verify_email' });
  return { sent, email: claim.email };
}
