/*
 * What the array types given to the `postgres` client's `types` option (db/sql.ts: int4[] in
 * int4-array.ts, text[] in text-array.ts) share of the text format (PostgreSQL docs, 8.15.6 "Array
 * Input and Output Syntax"): the frame around a value read (dimension decorations, the outer
 * braces, nothing after them), and the serializer of parameters, which the client needs beside a
 * parser and which is its own, written once for both.
 */

const OPEN = 0x7b; // {
const CLOSE = 0x7d; // }
const COMMA = 0x2c; // ,

/** An array value as read: elements of one type, nested once per dimension. */
export type ArrayValue<T> = Array<T | ArrayValue<T>>;

/**
 * Reads the element of one type that starts at `at` in `text` (neither `{` nor the end), pushes it
 * onto `items` and returns the index just after it.
 * @throws TypeError ({@link malformedArray}) for anything that type's output does not produce
 */
export type ElementReader<T> = (text: string, at: number, items: ArrayValue<T>) => number;

/** The error for text that is not array output of type `type_name` (such as `int4[]`). */
export function malformedArray(type_name: string, text: string): TypeError {
  return new TypeError(`not ${/^[aeiou]/.test(type_name) ? 'an' : 'a'} ${type_name} in text format: ${text.length > 80 ? `${text.slice(0, 80)}...` : text}`);
}

/** One `{...}` of `text` from its `{` at `at`: its elements, and where it ends (after its `}`). */
function list<T>(text: string, at: number, element: ElementReader<T>, type_name: string): { items: ArrayValue<T>; end: number } {
  const items: ArrayValue<T> = [];
  let i = at + 1;
  if (text.charCodeAt(i) === CLOSE) return { items, end: i + 1 };
  for (;;) {
    if (text.charCodeAt(i) === OPEN) {
      const inner = list(text, i, element, type_name);
      items.push(inner.items);
      i = inner.end;
    } else {
      i = element(text, i, items);
    }
    const c = text.charCodeAt(i);
    if (c === COMMA) i++;
    else if (c === CLOSE) return { items, end: i + 1 };
    else throw malformedArray(type_name, text);
  }
}

/**
 * A whole array value whose elements `element` reads: the delimiter `,`, a nested `{...}` per
 * dimension; dimension decorations (`[0:1]={...}`, `[0:1][5:6]={{...}}`; bounds are digits, so the
 * first `=` ends them) are skipped, a JS array having no lower bound; nothing may follow the
 * outer `}`. `{}` is `[]`.
 * @throws TypeError ({@link malformedArray}) for text no array output of `type_name` looks like
 */
export function readArrayText<T>(text: string, element: ElementReader<T>, type_name: string): ArrayValue<T> {
  let at = 0;
  if (text.charCodeAt(0) !== OPEN) {
    at = text.indexOf('=') + 1;
    if (at === 0 || text.charCodeAt(0) !== 0x5b || text.charCodeAt(at) !== OPEN) throw malformedArray(type_name, text);
  }
  const { items, end } = list(text, at, element, type_name);
  if (end !== text.length) throw malformedArray(type_name, text);
  return items;
}

const escapeBackslash = /\\/g;
const escapeQuote = /"/g;

/**
 * The text form of an int4[] or text[] parameter, exactly as the `postgres` client writes one (its
 * arraySerializer with the int4 and text serializers, both `'' + x`): `[1, null, -3]` gives
 * `{"1",null,"-3"}`, `['a"b']` `{"a\\"b"}`, `[]` `{}`, nested arrays nested braces
 * (`{{"1","2"},{"3","4"}}`), `undefined` elements as `undefined_value` (db/sql.ts sets null), a
 * value `{ type, value }` (a typed parameter) its `value`; anything not an array is sent as it is.
 * Every int4[] and text[] parameter goes through it (checks/ingest.db.ts, monitor tags and ids),
 * so it must not differ from the client's.
 * @throws Error when an element is `undefined` and so is `undefined_value` (as the client does)
 */
export function serializeArray(xs: unknown, undefined_value: unknown = null): unknown {
  if (!Array.isArray(xs)) return xs;
  if (xs.length === 0) return '{}';
  const first: unknown = xs[0];
  if (Array.isArray(first) && !(first as { type?: unknown }).type) {
    return `{${xs.map((x) => serializeArray(x, undefined_value)).join(',')}}`;
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

/**
 * A boolean array as a parameter: its elements as text ('true'/'false'), for SQL to cast with
 * `::text[]::boolean[]`: the client does not serialise JS boolean arrays.
 */
export function boolTexts(xs: boolean[]): string[] {
  return xs.map(String);
}
