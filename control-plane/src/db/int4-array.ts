/*
 * int4[] (oid 1007) values in the text format, for the `postgres` client's `types` option
 * (db/sql.ts). Its generic array parser walks the text a character at a time, building each
 * element as a substring it then converts: about a tenth of this process's CPU in a 90-day stats
 * read, whose rollup histograms are int4[] (checks/histogram.ts packing); this one reads 270
 * histograms of 40 entries in about a quarter of the time.
 *
 * The text format (PostgreSQL docs, 8.15.6 "Array Input and Output Syntax"): `{1,-2,NULL}`, the
 * delimiter `,`, a nested `{...}` per dimension (`{{1,2},{3,4}}`), and, when a lower bound is not
 * 1, dimension decorations first (`[0:1]={1,2}`). An element is double-quoted only when it is
 * empty, holds a delimiter, brace, quote, backslash or white space, or reads NULL: an integer
 * never is, so int4[] output has no quotes nor escapes.
 */

/** An int4[] as read: numbers and nulls, nested once per dimension. */
export type Int4ArrayValue = Array<number | null | Int4ArrayValue>;

const OPEN = 0x7b; // {
const CLOSE = 0x7d; // }
const COMMA = 0x2c; // ,
const MINUS = 0x2d; // -
const ZERO = 0x30;
const NINE = 0x39;
const N = 0x4e; // N of NULL

function malformed(text: string): TypeError {
  return new TypeError(`not an int4[] in text format: ${text.length > 80 ? `${text.slice(0, 80)}...` : text}`);
}

/**
 * One `{...}` of `text` starting at `at` (its `{`): its elements, and where it ends (after its
 * `}`). Integers are accumulated digit by digit: int4's range (up to 10 digits) stays exact in a
 * double.
 * @throws TypeError for anything the int4[] output grammar does not produce
 */
function list(text: string, at: number): { items: Int4ArrayValue; end: number } {
  const items: Int4ArrayValue = [];
  let i = at + 1;
  if (text.charCodeAt(i) === CLOSE) return { items, end: i + 1 };
  for (;;) {
    let c = text.charCodeAt(i);
    if (c === OPEN) {
      const inner = list(text, i);
      items.push(inner.items);
      i = inner.end;
    } else if (c === N) {
      if (text.startsWith('NULL', i) === false) throw malformed(text);
      items.push(null);
      i += 4;
    } else {
      const negative = c === MINUS;
      if (negative) c = text.charCodeAt(++i);
      if (!(c >= ZERO && c <= NINE)) throw malformed(text);
      let n = 0;
      do {
        n = n * 10 + (c - ZERO);
        c = text.charCodeAt(++i);
      } while (c >= ZERO && c <= NINE);
      items.push(negative ? -n : n);
    }
    c = text.charCodeAt(i);
    if (c === COMMA) i++;
    else if (c === CLOSE) return { items, end: i + 1 };
    else throw malformed(text);
  }
}

/**
 * An int4[] from its text form (the whole column value): `{4194305,-1,NULL}` gives
 * `[4194305, -1, null]`, `{}` gives `[]`, a multi-dimensional array nested arrays
 * (`{{1,2},{3,4}}`: `[[1,2],[3,4]]`). Dimension decorations (`[0:1]={1,2}`) are skipped: a JS
 * array has no lower bound, its elements are `[1,2]`.
 * The `postgres` client's generic parser gives the same for a flat or nested array of integers;
 * it gave NaN for a NULL element and wrapped a decorated array in one more level.
 * @throws TypeError for text that is not int4[] output (Postgres does not send any)
 */
export function parseInt4Array(text: string): Int4ArrayValue {
  let at = 0;
  if (text.charCodeAt(0) !== OPEN) {
    // `[l:u]...=` before the braces.
    at = text.indexOf('=') + 1;
    if (at === 0 || text.charCodeAt(0) !== 0x5b || text.charCodeAt(at) !== OPEN) throw malformed(text);
  }
  const { items, end } = list(text, at);
  if (end !== text.length) throw malformed(text);
  return items;
}

const escapeBackslash = /\\/g;
const escapeQuote = /"/g;

/**
 * The text form of an int4[] parameter, exactly as the `postgres` client writes one (its
 * arraySerializer with the int4 serializer `'' + x`): `[1, null, -3]` gives `{"1",null,"-3"}`,
 * `[]` `{}`, nested arrays nested braces (`{{"1","2"},{"3","4"}}`), `undefined` elements as
 * `undefined_value` (db/sql.ts sets null), a value `{ type, value }` (a typed parameter) its
 * `value`; anything not an array is sent as it is. Every int4[] parameter goes through it
 * (checks/ingest.db.ts sends them), so it must not differ from the client's.
 * @throws Error when an element is `undefined` and so is `undefined_value` (as the client does)
 */
export function serializeInt4Array(xs: unknown, undefined_value: unknown = null): unknown {
  if (!Array.isArray(xs)) return xs;
  if (xs.length === 0) return '{}';
  const first: unknown = xs[0];
  if (Array.isArray(first) && !(first as { type?: unknown }).type) {
    return `{${xs.map((x) => serializeInt4Array(x, undefined_value)).join(',')}}`;
  }
  let out = '{';
  for (let i = 0; i < xs.length; i++) {
    let x: unknown = xs[i];
    if (x === undefined) {
      x = undefined_value;
      if (x === undefined) throw new Error('Undefined values are not allowed');
    }
    if (i > 0) out += ',';
    if (x === null) {
      out += 'null';
    } else if (typeof x === 'number') {
      // A number's text has no quote or backslash to escape.
      out += `"${x}"`;
    } else {
      const v = (x as { type?: unknown }).type ? (x as { value: unknown }).value : x;
      out += `"${('' + (v as string)).replace(escapeBackslash, '\\\\').replace(escapeQuote, '\\"')}"`;
    }
  }
  return `${out}}`;
}
