import { Secret, TOTP } from 'otpauth';

/** TOTP parameters of RFC 6238 as authenticator apps expect them: SHA1, 6 digits, 30 s. */
function totp(secret: string, label = 'account'): TOTP {
  return new TOTP({ issuer: 'Vantage', label, algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) });
}

/** A new random 160-bit TOTP secret (base32) and its `otpauth://` URI for QR codes. */
export function newTotpSecret(label: string): { secret: string; otpauth_uri: string } {
  const secret = new Secret({ size: 20 }).base32;
  return { secret, otpauth_uri: totp(secret, label).toString() };
}

/** True when `code` is the current 6-digit code of `secret`, allowing one 30 s step of drift. */
export function checkTotp(secret: string, code: string): boolean {
  if (!/^\d{6}$/.test(code)) return false;
  return totp(secret).validate({ token: code, window: 1 }) !== null;
}

/** The current code of `secret` (tests and tooling). */
export function currentTotp(secret: string): string {
  return totp(secret).generate();
}
