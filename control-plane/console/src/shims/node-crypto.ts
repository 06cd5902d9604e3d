/*
 * `node:crypto` for the browser build: shared-protocol's id and signing helpers import it, but the
 * console only uses its schemas (validation), never those helpers. Random bytes come from Web
 * Crypto; anything else throws if ever called. Aliased in vite.config.ts.
 */

/** `size` random bytes from the browser's CSPRNG (Node's `crypto.randomBytes`, as a Uint8Array). */
export function randomBytes(size: number): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(size));
}
/** Fill `buf` with random bytes from the browser's CSPRNG (Node's `crypto.randomFillSync`). */
export function randomFillSync<T extends ArrayBufferView>(buf: T): T {
  crypto.getRandomValues(new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength));
  return buf;
}
const unavailable = (name: string) => (): never => { throw new Error(`${name} is not available in the console`); };
export const createHmac = unavailable('createHmac');
export const createHash = unavailable('createHash');
export const timingSafeEqual = unavailable('timingSafeEqual');
