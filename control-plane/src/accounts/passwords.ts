import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { hash as argon2Hash, parseOptions as argon2Options, verify as argon2Verify, type Options as Argon2Options } from '@node-rs/argon2';

/**
 * argon2id cost (RFC 9106 section 4, second recommended option's memory and passes, one lane):
 * 64 MiB, 3 passes, parallelism 1. Above the OWASP Password Storage Cheat Sheet minimum (19 MiB,
 * 2 passes); measured 57-80 ms per hash or verify on a 2-vCPU host, the cost of the scrypt it
 * replaces. The hash runs on the libuv thread pool (4 threads unless UV_THREADPOOL_SIZE), so at most
 * 4 × 64 MiB at once. `algorithm: 2` is Argon2id (the package's const enum, unusable under
 * isolatedModules).
 */
export const ARGON2ID = { algorithm: 2, memoryCost: 65_536, timeCost: 3, parallelism: 1, outputLen: 32 } as const satisfies Argon2Options;

const SCRYPT_KEY_BYTES = 32;

function scrypt(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  const opts: ScryptOptions = { N: n, r, p, maxmem: 256 * n * r + 1024 * 1024 };
  return new Promise((resolve, reject) => scryptCb(password, salt, SCRYPT_KEY_BYTES, opts, (err, key) => (err ? reject(err) : resolve(key))));
}

/**
 * Hash a password with argon2id ({@link ARGON2ID}) and a fresh 16-byte salt, as a PHC string
 * `$argon2id$v=19$m=65536,t=3,p=1$<salt>$<hash>` that carries its parameters, so they can be
 * raised later without invalidating stored hashes. Passwords are NFC-normalised first.
 */
export async function hashPassword(password: string): Promise<string> {
  return argon2Hash(password.normalize('NFC'), ARGON2ID);
}

/** The kind of a stored hash: `argon2id`, the older `scrypt$N$r$p$salt$hash`, or none ('' = no password, or malformed). */
export function hashKind(stored: string): 'argon2id' | 'scrypt' | 'none' {
  if (stored.startsWith('$argon2id$')) return 'argon2id';
  if (stored.startsWith('scrypt$') && stored.split('$').length === 6) return 'scrypt';
  return 'none';
}

/**
 * Check `password` against a stored hash: argon2id (PHC string), or scrypt
 * (`scrypt$N$r$p$<salt b64url>$<hash b64url>`, RFC 7914; hashes made before argon2id) compared in
 * constant time. '' (an account without a password) and a malformed hash are a mismatch.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const normalized = password.normalize('NFC');
  const kind = hashKind(stored);
  if (kind === 'argon2id') return argon2Verify(stored, normalized).catch(() => false);
  if (kind === 'none') return false;
  const parts = stored.split('$');
  const [n, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![n, r, p].every((v) => Number.isInteger(v) && v > 0) || n > 1 << 20 || r > 64 || p > 16) return false;
  const expected = Buffer.from(parts[5]!, 'base64url');
  const key = await scrypt(normalized, Buffer.from(parts[4]!, 'base64url'), n, r, p).catch(() => null);
  return key !== null && key.length === expected.length && timingSafeEqual(key, expected);
}

/**
 * True when a stored hash is weaker than what {@link hashPassword} makes now: any scrypt hash, or
 * an argon2id hash with less memory, fewer passes or a shorter output. Login rehashes such a
 * hash once the password is proven (password-login.ts).
 */
export function needsRehash(stored: string): boolean {
  const kind = hashKind(stored);
  if (kind === 'scrypt') return true;
  if (kind === 'none') return false;
  try {
    const o = argon2Options(stored);
    return o.memoryCost < ARGON2ID.memoryCost || o.timeCost < ARGON2ID.timeCost || o.outputLen < ARGON2ID.outputLen;
  } catch {
    return false;
  }
}

let dummy: Promise<string> | undefined;
/**
 * An argon2id hash ({@link ARGON2ID}) of a random password, made once: login verifies against it
 * for unknown e-mails and for accounts without a password, so they cost the same argon2id verify
 * as a wrong password (no timing difference tells which addresses have accounts).
 */
export function dummyHash(): Promise<string> {
  dummy ??= hashPassword(randomBytes(16).toString('hex'));
  return dummy;
}
