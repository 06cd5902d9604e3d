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

import { type ArrayValue, malformedArray, readArrayText } from './array-text.js';

/** An int4[] as read: numbers and nulls, nested once per dimension. */
export type Int4ArrayValue = ArrayValue<number | null>;

const MINUS = 0x2d; // -
const ZERO = 0x30;
const NINE = 0x39;
const N = 0x4e; // N of NULL

/**
 * The int4 element (or NULL) at `at`, pushed onto `items`; returns the index after it. Integers are
 * accumulated digit by digit: int4's range (up to 10 digits) stays exact in a double.
 * @throws TypeError for anything the int4[] output grammar does not produce
 */
function element(text: string, at: number, items: Int4ArrayValue): number {
  let i = at;
  let c = text.charCodeAt(i);
  if (c === N) {
    if (text.startsWith('NULL', i) === false) throw malformedArray('int4[]', text);
    items.push(null);
    return i + 4;
  }
  const negative = c === MINUS;
  if (negative) c = text.charCodeAt(++i);
  if (!(c >= ZERO && c <= NINE)) throw malformedArray('int4[]', text);
  let n = 0;
  do {
    n = n * 10 + (c - ZERO);
    c = text.charCodeAt(++i);
  } while (c >= ZERO && c <= NINE);
  items.push(negative ? -n : n);
  return i;
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
  return readArrayText(text, element, 'int4[]');
}
