// NUL, a high surrogate not followed by a low one, or a low surrogate not preceded by a high one
// (no `u` flag: the pattern works on UTF-16 code units).
const PATTERN = '\\u0000|[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]';
const UNSTORABLE = new RegExp(PATTERN);
const UNSTORABLE_ALL = new RegExp(PATTERN, 'g');

/**
 * Text measured from a target (DNS answers, HTTP headers, certificate names, error messages) can
 * hold what a JSON store cannot: Postgres text and jsonb refuse U+0000, and jsonb refuses a lone
 * UTF-16 surrogate (`\ud800`). Both are replaced with U+FFFD REPLACEMENT CHARACTER (the Unicode
 * standard's substitute for an unrepresentable character), so one odd answer never makes a result
 * unstorable.
 * @example sanitizeText('a\u0000b\ud800') // 'a\ufffdb\ufffd'
 */
export function sanitizeText(text: string): string {
  return UNSTORABLE.test(text) ? text.replace(UNSTORABLE_ALL, '\ufffd') : text;
}

/**
 * A deep copy of `value` with every string, and every object key, passed through
 * {@link sanitizeText}; numbers, booleans and null are kept. Values that need no change are
 * returned as they are (no copy), so the common case costs one walk.
 */
export function sanitizeStrings<T>(value: T): T {
  return walk(value) as T;
}

// A JSON escape of U+0000 or of a UTF-16 surrogate (D800-DFFF), hex digits in either case.
const UNSTORABLE_ESCAPE = /\\u(?:0000|[dD][89a-fA-F])/;
const BACKSLASH_U = Buffer.from('\\u');

/**
 * False when JSON text surely parses to values holding no text {@link sanitizeText} would change,
 * so a parse of it need not be walked by {@link sanitizeStrings}. JSON (RFC 8259 section 7) puts
 * U+0000 into a string only as the escape `\u0000` (control characters must be escaped), and a
 * lone surrogate only as a `\uD800`-`\uDFFF` escape: UTF-8 cannot encode surrogates (RFC 3629
 * section 3), and decoding bytes that try to (`Buffer#toString('utf8')`, WHATWG Encoding) yields
 * U+FFFD. True (walk it) when such an escape appears anywhere, even a valid surrogate pair's
 * escapes or an escaped backslash followed by `u0000`: the answer may err only towards walking.
 * `text` as received: a Buffer is searched as bytes, without decoding it (most frames hold no
 * `\u` at all); a string is also searched for lone surrogates as characters (a string made in
 * JavaScript, not decoded from UTF-8, can hold them, and JSON.parse keeps them).
 * @example jsonMayHoldUnstorable('{"a":"x\\u0000"}') // true
 */
export function jsonMayHoldUnstorable(text: string | Buffer): boolean {
  if (typeof text !== 'string') return text.indexOf(BACKSLASH_U) >= 0 && UNSTORABLE_ESCAPE.test(text.toString('latin1'));
  return UNSTORABLE_ESCAPE.test(text) || UNSTORABLE.test(text);
}

// Objects known to hold only sanitised text ({@link markSanitized}).
const SANITIZED = new WeakSet<object>();

/**
 * Remember `value` (an object) as holding only sanitised strings (every string and key went
 * through {@link sanitizeText}), so {@link sanitizedOnce} returns it without walking it again. For
 * a value built from input that was sanitised or needed no sanitising (node-protocol/messages.ts
 * parseBatchResults marks the array of results it builds); a later change to it must keep it
 * sanitised. Returns `value`.
 */
export function markSanitized<T extends object>(value: T): T {
  SANITIZED.add(value);
  return value;
}

/**
 * `value` as {@link sanitizeStrings} returns it: as it is when marked with {@link markSanitized}
 * (no walk), else walked. For a receiver that sanitises again what a schema may have sanitised
 * already (probes/sink.ts: results the hub parsed, and results given to it directly).
 */
export function sanitizedOnce<T>(value: T): T {
  return typeof value === 'object' && value !== null && SANITIZED.has(value) ? value : sanitizeStrings(value);
}

function walk(value: unknown): unknown {
  if (typeof value === 'string') return sanitizeText(value);
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const item = walk(value[i]);
      if (item !== value[i]) (copy ??= [...value])[i] = item;
    }
    return copy ?? value;
  }
  if (value !== null && typeof value === 'object') {
    // The copy is made only from the first key or value that changes (most results have none):
    // building one per object was most of what ingest allocated per result.
    const keys = Object.keys(value);
    const src = value as Record<string, unknown>;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const k = sanitizeText(key);
      const v = walk(src[key]);
      if (k === key && v === src[key]) continue;
      const out: Record<string, unknown> = {};
      for (let j = 0; j < i; j++) out[keys[j]!] = src[keys[j]!];
      out[k] = v;
      for (let j = i + 1; j < keys.length; j++) out[sanitizeText(keys[j]!)] = walk(src[keys[j]!]);
      return out;
    }
    return value;
  }
  return value;
}
