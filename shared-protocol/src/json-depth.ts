/*
 * Nesting depth of untrusted JSON text, measured before anything parses or validates it. Recursive
 * code (zod's validators, a recursive walk, JSON.stringify) uses stack in proportion to nesting:
 * a 30 KB request body of 15,000 nested arrays exhausted the stack in validation. The scan below
 * is iterative and builds nothing, so a bound checked with it holds for every later step.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
/** Longest object key shown in a path, characters; a longer one is cut and ends in `…`. */
const KEY_SHOWN_MAX_CHARS = 64;

/** One open array or object: where in it the scan is (array index, or the last key's text span). */
interface Level { array: boolean; index: number; key_from: number; key_to: number; want_key: boolean }

/** Index of the quote that closes the string opened at `from`, or text.length when unterminated. */
function stringEnd(text: string, from: number): number {
  let at = from;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at < 0) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}

/** The key whose quoted text is text[from, to), decoded (as written when it does not decode), cut to KEY_SHOWN_MAX_CHARS. */
function keyAt(text: string, from: number, to: number): string {
  let key: string;
  try {
    key = JSON.parse(text.slice(from, to)) as string;
  } catch {
    key = text.slice(from + 1, to - 1);
  }
  return key.length > KEY_SHOWN_MAX_CHARS ? `${key.slice(0, KEY_SHOWN_MAX_CHARS)}…` : key;
}

/**
 * Offset of the `[` or `{` that opens level `max_depth + 1`, or -1. The hot path: it runs on every
 * JSON request body and node message, so it keeps no state but the depth.
 */
function openerPastDepth(text: string, max_depth: number): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) i = stringEnd(text, i);
    else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > max_depth) return i;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) depth--;
  }
  return -1;
}

/** The path of the value that starts at offset `at` of `text` (valid up to there): keys and indices of its enclosing levels. */
function pathTo(text: string, at: number): Array<string | number> {
  const levels: Level[] = [];
  for (let i = 0; i < at; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      const top = levels[levels.length - 1];
      if (top !== undefined && top.want_key) {
        top.key_from = i;
        top.key_to = end + 1;
        top.want_key = false;
      }
      i = end;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      levels.push({ array: c === OPEN_ARRAY, index: 0, key_from: -1, key_to: -1, want_key: c === OPEN_OBJECT });
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      levels.pop();
    } else if (c === COMMA) {
      const top = levels[levels.length - 1];
      if (top?.array) top.index++;
      else if (top) top.want_key = true;
    }
  }
  return levels.map((l) => (l.array ? l.index : l.key_from < 0 ? '' : keyAt(text, l.key_from, l.key_to)));
}

/**
 * Where JSON text nests more than `max_depth` arrays and objects, or null when it does not. The
 * top-level value is level 1 (`[]` is depth 1, `{"a":[1]}` depth 2). One pass over the text that
 * counts `[` and `{` outside strings, without recursion and without building the value, so its
 * cost is linear in the text and independent of the nesting (a third to a half of JSON.parse's
 * on a 290 KB result batch of 500 results); a second pass names the place only when the bound is
 * passed. Malformed
 * text is not judged here: its syntax error is the parser's to report (an unterminated string
 * ends the scan).
 *
 * @returns `{ path }`: the location of the value that opens level `max_depth + 1`, as path
 *   segments (object keys, array indices) for parse.ts `issuePath` (`['config', 'payload_template', 'a', 0, 0]`
 *   reads `config.payload_template.a[0][0]`); keys longer than 64 characters are cut
 * @example jsonDepthAt('{"a":[[1]]}', 2) // { path: ['a', 0] }
 */
export function jsonDepthAt(text: string, max_depth: number): { path: Array<string | number> } | null {
  if (text.length <= max_depth) return null; // too short to open max_depth + 1 levels
  const at = openerPastDepth(text, max_depth);
  return at < 0 ? null : { path: pathTo(text, at) };
}
