import { randomBytes, scrypt } from 'node:crypto';

/**
 * A hash as the control plane made them before argon2id, for tests of the upgrade path:
 * `scrypt$N$r$p$<salt b64url>$<hash b64url>` (RFC 7914; N=2^15, r=8, p=1, 32-byte key, NFC password).
 */
export async function legacyScryptHash(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await new Promise<Buffer>((resolve, reject) => scrypt(password.normalize('NFC'), salt, 32, { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 }, (err, k) => (err ? reject(err) : resolve(k))));
  return ['scrypt', 1 << 15, 8, 1, salt.toString('base64url'), key.toString('base64url')].join('$');
}
