import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/*
 * Authenticated encryption of secrets kept in the database (AES-256-GCM, node:crypto). A sealed
 * value is one string, `vsec1:<key id>:<base64url(iv | ciphertext | tag)>`: the key id names the
 * key that sealed it, so keys can be rotated (the current key seals, earlier ones still open).
 * Each value is bound to its place (`aad`, e.g. the monitor and header name) so a sealed value
 * copied elsewhere does not open.
 */

/** Prefix of every sealed value (format version 1). */
export const SEALED_PREFIX = 'vsec1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const SEALED = /^vsec1:([0-9a-f]{8}):([A-Za-z0-9_-]+)$/;

/** A sealed value could not be opened (its key is not configured, or it was altered), or nothing can be sealed (no key). */
export class SecretKeyError extends Error {
  constructor(message: string, readonly key_id: string | null) {
    super(message);
    this.name = 'SecretKeyError';
  }
}

/** Why `text` is not a usable key (32 bytes as base64 or hex), or null. */
export function secretKeyFault(text: string): string | null {
  return decodeKey(text) ? null : 'must be 32 bytes as base64 (44 characters) or hex (64 characters)';
}

function decodeKey(text: string): Buffer | null {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(t)) {
    const b = Buffer.from(t.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    return b.length === KEY_BYTES ? b : null;
  }
  return null;
}

/** The id of a key: the first 8 hex digits of a SHA-256 over it (names the key, tells nothing of it). */
export function secretKeyId(text: string): string {
  const key = decodeKey(text);
  if (!key) throw new SecretKeyError('not a secrets key', null);
  return createHash('sha256').update('vantage secrets key id\0').update(key).digest('hex').slice(0, 8);
}

/** True when `value` has the sealed format (it may still fail to open). */
export function isSealed(value: string): boolean {
  return SEALED.test(value);
}

/** The key id of a sealed value, or null when `value` is not sealed. */
export function sealedKeyId(value: string): string | null {
  return SEALED.exec(value)?.[1] ?? null;
}

/** Seals with the current key, opens with any configured key. */
export interface SecretBox {
  /** Id of the current key; null when no key is configured (nothing can be sealed or opened). */
  readonly key_id: string | null;
  /** @throws SecretKeyError when no key is configured */
  seal(plaintext: string, aad: string): string;
  /** @throws SecretKeyError when `sealed` is malformed, its key is not configured, or it does not authenticate (altered, or bound to another `aad`) */
  open(sealed: string, aad: string): string;
}

/**
 * A box over `current` (seals and opens) and `previous` keys (open only); each key is 32 bytes as
 * base64 or hex (config/secrets.ts). Without `current` every seal and open throws SecretKeyError.
 */
export function createSecretBox(keys: { current?: string; previous?: string[] }): SecretBox {
  const byId = new Map<string, Buffer>();
  for (const k of keys.previous ?? []) byId.set(secretKeyId(k), decodeKey(k)!);
  const key_id = keys.current ? secretKeyId(keys.current) : null;
  if (keys.current) byId.set(key_id!, decodeKey(keys.current)!);
  return {
    key_id,
    seal(plaintext, aad) {
      if (!key_id) throw new SecretKeyError('no secrets key is configured (VANTAGE_SECRETS_KEY)', null);
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', byId.get(key_id)!, iv);
      cipher.setAAD(Buffer.from(aad, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return `${SEALED_PREFIX}${key_id}:${Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url')}`;
    },
    open(sealed, aad) {
      const m = SEALED.exec(sealed);
      if (!m) throw new SecretKeyError('not a sealed secret', null);
      const id = m[1]!;
      const key = byId.get(id);
      if (!key) {
        throw new SecretKeyError(`secret sealed with key ${id}, which is not configured (current key: ${key_id ?? 'none'}; set VANTAGE_SECRETS_KEY, or VANTAGE_SECRETS_KEYS_PREVIOUS for a rotated-out key)`, id);
      }
      const raw = Buffer.from(m[2]!, 'base64url');
      if (raw.length < IV_BYTES + TAG_BYTES) throw new SecretKeyError(`secret sealed with key ${id} is truncated`, id);
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
        decipher.setAAD(Buffer.from(aad, 'utf8'));
        decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
        return Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8');
      } catch {
        throw new SecretKeyError(`secret sealed with key ${id} does not authenticate (altered, or not stored where it was sealed)`, id);
      }
    },
  };
}

const boxes = new Map<string, SecretBox>();

/** The box of a configuration's `secrets_key` and `secrets_keys_previous` (one per distinct key set). */
export function secretBoxOf(config: { secrets_key?: string; secrets_keys_previous?: string[] }): SecretBox {
  const id = `${config.secrets_key ?? ''}|${(config.secrets_keys_previous ?? []).join(',')}`;
  let box = boxes.get(id);
  if (!box) {
    box = createSecretBox({ current: config.secrets_key, previous: config.secrets_keys_previous });
    boxes.set(id, box);
  }
  return box;
}
