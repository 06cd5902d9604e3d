import { z } from 'zod';
import { LIMITS } from './limits.js';

/*
 * Request headers a user gives Vantage to send: HTTP probe params, the config of HTTP-like
 * monitors, SMS alert channels (docs/api/conventions.md "Request headers"). One rule for all, so
 * what the API accepts is what the sender (the node's undici client, the control plane's
 * delivery) can put on the wire: a header it would refuse, or a value that could inject another
 * header, never gets stored.
 */

/** RFC 9110 section 5.6.2 `token`: the characters of a field name. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Anything a field value may not hold: outside HTAB, SP, VCHAR and obs-text (RFC 9110 section 5.5). */
const NOT_FIELD_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

/**
 * Request header names (lower case) the sender sets itself and a user cannot give: the message
 * framing (Content-Length, Transfer-Encoding: RFC 9112 section 6), the connection-specific fields
 * (Connection, Keep-Alive, Proxy-Connection, TE, Trailer, Upgrade: RFC 9110 section 7.6.1), Host,
 * which comes from the target URL (RFC 9110 section 7.2), and Expect (100-continue is not supported).
 */
export const HTTP_HEADERS_SET_BY_SENDER: ReadonlySet<string> = new Set([
  'host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'upgrade', 'expect',
]);

/**
 * Request headers whose values never carry a credential, stored and shown as sent (lower case).
 * Every other header value is a secret (docs/api/monitors.md "Secrets in headers"): credentials
 * hide under many names (Authorization, Cookie, X-Api-Key, Private-Token, vendor names), so the
 * rule lists what is safe rather than guessing what is not.
 */
export const PUBLIC_HEADERS: ReadonlySet<string> = new Set([
  'accept', 'accept-charset', 'accept-encoding', 'accept-language', 'cache-control', 'content-language',
  'content-type', 'pragma', 'user-agent',
]);

/** True when the value of header `name` is a secret (any name not in PUBLIC_HEADERS, case-insensitive). */
export function isSecretHeader(name: string): boolean {
  return !PUBLIC_HEADERS.has(name.toLowerCase());
}

/**
 * The start of a masked secret as the API shows it (docs/api/monitors.md "Secrets in headers"):
 * `••••` and the secret's last 4 characters, or `••••••••` for a short one.
 */
export const SECRET_MASK_MARK = '••••';

/** Why `name` cannot be a request header name, or null. */
export function httpHeaderNameFault(name: string): string | null {
  if (name.length === 0) return 'header name must not be empty';
  if (name.length > LIMITS.http_header_name_max_chars) return `header name longer than ${LIMITS.http_header_name_max_chars} characters`;
  if (!TOKEN.test(name)) return 'not an HTTP header name: letters, digits and !#$%&\'*+.^_`|~- only (RFC 9110 section 5.6.2), no spaces or colons';
  if (HTTP_HEADERS_SET_BY_SENDER.has(name.toLowerCase())) return `${name} is set by the sender and cannot be given (docs/api/conventions.md "Request headers")`;
  return null;
}

/** Why `value` cannot be a request header value, or null (RFC 9110 section 5.5 field-value). */
export function httpHeaderValueFault(value: string): string | null {
  if (value.length > LIMITS.http_header_value_max_chars) return `longer than ${LIMITS.http_header_value_max_chars} characters`;
  const bad = NOT_FIELD_VALUE.exec(value);
  if (!bad) return null;
  const c = bad[0].charCodeAt(0);
  if (c === 0x0d || c === 0x0a) return 'must not contain CR or LF (a header value is one line, RFC 9110 section 5.5)';
  if (c === 0x00) return 'must not contain NUL (U+0000)';
  if (c < 0x20 || c === 0x7f) return `must not contain control character U+${c.toString(16).padStart(4, '0').toUpperCase()} (tab is the only one allowed)`;
  return 'must be ASCII or Latin-1 text (RFC 9110 section 5.5): percent-encode or base64 other characters';
}

/** `value` without a leading mask (`••••` + the last 4 characters, or `••••••••`), or null when it is no mask. */
function unmasked(value: string): string | null {
  if (!value.startsWith(SECRET_MASK_MARK)) return null;
  const rest = value.slice(SECRET_MASK_MARK.length);
  return rest === SECRET_MASK_MARK ? '' : rest;
}

/**
 * The first problem of a request header map, or null: more than LIMITS.http_headers_max headers
 * (`name` null), a bad name ({@link httpHeaderNameFault}), a name given twice in different case
 * (names are case-insensitive, RFC 9110 section 5.1), or a bad value ({@link httpHeaderValueFault}).
 * With `masks`, a secret header's value may be a mask as the API shows it (the stored secret is
 * kept, docs/api/monitors.md "Secrets in headers").
 * @returns `{ name, message }`: the header's name as given, and why
 */
export function httpHeadersFault(headers: Record<string, string>, opts: { masks?: boolean } = {}): { name: string | null; message: string } | null {
  const names = Object.keys(headers);
  if (names.length > LIMITS.http_headers_max) return { name: null, message: `at most ${LIMITS.http_headers_max} headers` };
  const seen = new Map<string, string>();
  for (const name of names) {
    const name_fault = httpHeaderNameFault(name);
    if (name_fault) return { name, message: name_fault };
    const first = seen.get(name.toLowerCase());
    if (first !== undefined) return { name, message: `the same header as ${first} (names are case-insensitive): give it once` };
    seen.set(name.toLowerCase(), name);
    const value = headers[name]!;
    const masked = opts.masks && isSecretHeader(name) ? unmasked(value) : null;
    const value_fault = httpHeaderValueFault(masked ?? value);
    if (value_fault) return { name, message: value_fault };
  }
  return null;
}

/**
 * A request `headers` map `{ name: value }` checked by {@link httpHeadersFault}: at most
 * LIMITS.http_headers_max (32) headers; names RFC 9110 tokens of 1-256 characters, not one of
 * HTTP_HEADERS_SET_BY_SENDER, each once (case-insensitive); values at most 8192 characters of
 * tab, space, visible ASCII or Latin-1, no CR, LF, NUL or other control character. An issue's
 * path is the header's name (`headers.X-Foo`), or the map itself for the count.
 * @param opts.masks accept a secret header's mask in place of its value (monitor configs: a PATCH
 *   sends back what it read; docs/api/monitors.md "Secrets in headers")
 * @example httpHeadersSchema().parse({ Authorization: 'Bearer abc' })
 */
export function httpHeadersSchema(opts: { masks?: boolean } = {}) {
  return z.record(z.string(), z.string()).superRefine((headers, ctx) => {
    const fault = httpHeadersFault(headers, opts);
    if (fault) ctx.addIssue({ code: 'custom', path: fault.name === null ? [] : [fault.name], message: fault.message });
  }).describe(
    `Request headers { name: value }: at most ${LIMITS.http_headers_max}; names are RFC 9110 tokens (no spaces or colons), given once; `
    + `values one line of ASCII or Latin-1 (no CR, LF or NUL), at most ${LIMITS.http_header_value_max_chars} characters; `
    + `${[...HTTP_HEADERS_SET_BY_SENDER].join(', ')} are set by the sender (docs/api/conventions.md "Request headers")`,
  );
}
