import { SECRET_MASK_MARK, type MonitorType } from '@vantage/shared-protocol';
import { ApiError } from '../errors.js';
import { isSecretHeader } from '../secrets/header-rule.js';
import { isSealed, sealedKeyId, SecretKeyError, type SecretBox } from '../secrets/secret-box.js';

export { isSecretHeader, PUBLIC_HEADERS } from '../secrets/header-rule.js';

/*
 * Secrets in the request headers of HTTP-like monitors (docs/api/monitors.md "Secrets in
 * headers"): sealed in the stored config (secrets/secret-box.ts), masked in every API read,
 * opened only where a node's assignment (or a Run now probe) is built.
 */

/** The monitor types whose config has request `headers`. */
export const HEADER_TYPES: ReadonlySet<MonitorType> = new Set(['http', 'https', 'keyword', 'llm_endpoint', 'tool_api', 'rag']);

/** The mask shown for a secret of fewer than MASK_HINT_MIN_CHARS characters (and for one that cannot be opened). */
export const MASK = '••••••••';
/** A secret this long or longer is shown as `••••` and its last 4 characters (at most a quarter of it). */
export const MASK_HINT_MIN_CHARS = 16;

/** The masked form of a secret: `••••` + its last 4 characters when long enough, else MASK. */
export function maskSecret(plaintext: string): string {
  return plaintext.length >= MASK_HINT_MIN_CHARS ? `${SECRET_MASK_MARK}${plaintext.slice(-4)}` : MASK;
}

/** What a sealed header value is bound to: its monitor and the header's name (lower case). */
function aadOf(monitor_id: string, header: string): string {
  return `monitor:${monitor_id}:header:${header.toLowerCase()}`;
}

type Headers = Record<string, string>;

function headersOf(type: MonitorType, config: Record<string, unknown>): Headers | null {
  if (!HEADER_TYPES.has(type)) return null;
  const h = config.headers;
  return h && typeof h === 'object' && !Array.isArray(h) && Object.keys(h).length > 0 ? h as Headers : null;
}

function withHeaders(config: Record<string, unknown>, headers: Headers): Record<string, unknown> {
  return { ...config, headers };
}

/** A stored value in plain text: opened when sealed, as stored otherwise (a row from before sealing). */
function plainOf(box: SecretBox, monitor_id: string, name: string, stored: string): string {
  return isSealed(stored) ? box.open(stored, aadOf(monitor_id, name)) : stored;
}

/**
 * The config as the API shows it: every secret header value masked ({@link maskSecret}); a value
 * that cannot be opened (its key is not configured) shows as MASK. Other types' configs unchanged.
 */
export function maskedConfig(box: SecretBox, monitor_id: string, type: MonitorType, config: Record<string, unknown>): Record<string, unknown> {
  const headers = headersOf(type, config);
  if (!headers) return config;
  const out: Headers = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!isSecretHeader(name)) out[name] = value;
    else {
      try {
        out[name] = maskSecret(plainOf(box, monitor_id, name, value));
      } catch (err) {
        if (!(err instanceof SecretKeyError)) throw err;
        out[name] = MASK;
      }
    }
  }
  return withHeaders(config, out);
}

/**
 * The config as a node needs it: every sealed header value opened.
 * @throws SecretKeyError when one cannot be opened (its key is not configured, or it was altered)
 */
export function openedConfig(box: SecretBox, monitor_id: string, type: MonitorType, config: Record<string, unknown>): Record<string, unknown> {
  const headers = headersOf(type, config);
  if (!headers) return config;
  const out: Headers = {};
  for (const [name, value] of Object.entries(headers)) out[name] = isSecretHeader(name) ? plainOf(box, monitor_id, name, value) : value;
  return withHeaders(config, out);
}

/**
 * The config to store for monitor `monitor_id` from what a client sent (`config`, validated):
 * every secret header value sealed with the current key. A value that is a mask (starts with
 * `••••`) keeps the secret stored under the same header name (case-insensitive) in `previous`
 * when it is that secret's mask; a stored value that cannot be opened is kept as it is when the
 * mask sent is MASK.
 * @throws ApiError VALIDATION_FAILED (`config.headers.<name>`) for a mask with no such stored secret
 * @throws SecretKeyError when no key is configured
 */
export function sealedConfig(
  box: SecretBox, monitor_id: string, type: MonitorType, config: Record<string, unknown>, previous: Record<string, unknown> | null,
): Record<string, unknown> {
  const headers = headersOf(type, config);
  if (!headers) return config;
  const before = new Map(Object.entries(headersOf(type, previous ?? {}) ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  const out: Headers = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!isSecretHeader(name)) out[name] = value;
    else if (value.startsWith(SECRET_MASK_MARK)) out[name] = keptSecret(box, monitor_id, name, value, before.get(name.toLowerCase()));
    else out[name] = box.seal(value, aadOf(monitor_id, name));
  }
  return withHeaders(config, out);
}

function keptSecret(box: SecretBox, monitor_id: string, name: string, mask: string, stored: string | undefined): string {
  if (stored !== undefined) {
    try {
      const plain = plainOf(box, monitor_id, name, stored);
      if (maskSecret(plain) === mask) return isSealed(stored) && sealedKeyId(stored) === box.key_id ? stored : box.seal(plain, aadOf(monitor_id, name));
    } catch (err) {
      if (!(err instanceof SecretKeyError)) throw err;
      if (mask === MASK) return stored;
    }
  }
  const path = `config.headers.${name}`;
  const message = stored === undefined
    ? 'a masked value, and no secret is stored for this header: send the real value'
    : 'a masked value that is not the mask of the stored secret: send the mask you read, or the real value';
  throw new ApiError('VALIDATION_FAILED', `${path}: ${message}`, { fields: [{ path, message }], in: 'body' });
}

/**
 * The stored config re-sealed with the current key (rows from before sealing, or sealed with a
 * rotated-out key), or null when nothing needs to change.
 * @throws SecretKeyError when a sealed value cannot be opened
 */
export function resealedConfig(box: SecretBox, monitor_id: string, type: MonitorType, config: Record<string, unknown>): Record<string, unknown> | null {
  const headers = headersOf(type, config);
  if (!headers) return null;
  let changed = false;
  const out: Headers = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!isSecretHeader(name) || (isSealed(value) && sealedKeyId(value) === box.key_id)) out[name] = value;
    else {
      out[name] = box.seal(plainOf(box, monitor_id, name, value), aadOf(monitor_id, name));
      changed = true;
    }
  }
  return changed ? withHeaders(config, out) : null;
}

/**
 * `fn()`, with a SecretKeyError turned into the API's 500 INTERNAL_ERROR naming the key problem
 * (never a secret): the instance lacks the key the secret was sealed with, or has no key at all.
 */
export function secretsFailure<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (!(err instanceof SecretKeyError)) throw err;
    throw new ApiError('INTERNAL_ERROR', `the monitor's header secrets cannot be used on this instance: ${err.message}`, { key_id: err.key_id });
  }
}
