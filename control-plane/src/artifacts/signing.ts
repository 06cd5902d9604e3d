import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AppDeps } from '../deps.js';
import { getOrCreateSetting } from '../db/settings.js';

/** Signs and checks artifact URLs with the deployment's key (docs/api/artifacts.md "Signed URLs"). */
export interface ArtifactSigner {
  /** `path?expires=…&signature=…`: valid until `expires_s` (Unix seconds). */
  sign(path: string, expires_s: number): string;
  /** Check a path's `expires` and `signature` at `now_ms`. */
  verify(path: string, expires: string, signature: string, now_ms?: number): 'ok' | 'expired' | 'bad_signature';
}

const keys = new WeakMap<object, Promise<Buffer>>();

/**
 * The HMAC key of signed artifact URLs: `artifact_url_secret` when configured, else a 256-bit key
 * generated once and kept in `platform_settings` (every instance shares it; cached per client).
 */
export function artifactKey(deps: Pick<AppDeps, 'config' | 'sql'>): Promise<Buffer> {
  if (deps.config.artifact_url_secret) return Promise.resolve(Buffer.from(deps.config.artifact_url_secret));
  let key = keys.get(deps.sql);
  if (!key) {
    key = getOrCreateSetting(deps.sql, 'artifact_url_hmac_key', randomBytes(32).toString('base64url')).then((v) => Buffer.from(v, 'base64url'));
    key.catch(() => keys.delete(deps.sql));
    keys.set(deps.sql, key);
  }
  return key;
}

/** The signed message: method, path and expiry on their own lines, so no field can run into another. */
const message = (path: string, expires: string) => `GET\n${path}\n${expires}`;

/**
 * A signer over `key`: HMAC-SHA256 of `GET\n<path>\n<expires>`, base64url (43 characters),
 * compared in constant time as its canonical text. An expired URL is refused even when its
 * signature is right.
 */
export function artifactSigner(key: Buffer): ArtifactSigner {
  const mac = (path: string, expires: string) => createHmac('sha256', key).update(message(path, expires)).digest();
  return {
    sign(path, expires_s) {
      const expires = String(Math.floor(expires_s));
      return `${path}?expires=${expires}&signature=${mac(path, expires).toString('base64url')}`;
    },
    verify(path, expires, signature, now_ms = Date.now()) {
      if (!/^\d{1,12}$/.test(expires) || !/^[A-Za-z0-9_-]{43}$/.test(signature)) return 'bad_signature';
      // Compared as text, not decoded: the 43rd character carries 2 unused bits, so four spellings
      // decode to the same bytes; only the canonical one (what sign() wrote) is accepted.
      const given = Buffer.from(signature, 'ascii');
      const want = Buffer.from(mac(path, expires).toString('base64url'), 'ascii');
      if (given.length !== want.length || !timingSafeEqual(given, want)) return 'bad_signature';
      return Number(expires) * 1000 <= now_ms ? 'expired' : 'ok';
    },
  };
}
