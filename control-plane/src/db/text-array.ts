/*
 * text[] (oid 1009) values in the text format, for the `postgres` client's `types` option
 * (db/sql.ts). Its generic array parser builds every element a character at a time by string
 * concatenation: 90-140 µs for a monitor list page of 100 rows (their `tags` and `node_ids`, three
 * each); this one finds each element's end and takes it as one slice, in about 32 µs
 * (docs/benchmarks.md "Monitor list, uptime and stats latency").
 *
 * The text format (PostgreSQL docs, 8.15.6 "Array Input and Output Syntax"): `{a,"b c",NULL}`, the
 * delimiter `,`, a nested `{...}` per dimension, and, when a lower bound is not 1, dimension
 * decorations first (`[0:1]={a,b}`). array_out double-quotes an element when it is empty, holds a
 * delimiter, brace, quote, backslash or white space, or reads NULL in any case; inside quotes a
 * backslash escapes the next character. An unquoted NULL is a null element.
 */

import { type ArrayValue, malformedArray, readArrayText } from './array-text.js';

/** A text[] as read: strings and nulls, nested once per dimension. */
export type TextArrayValue = ArrayValue<string | null>;

const OPEN = 0x7b; // {
const CLOSE = 0x7d; // }
const COMMA = 0x2c; // ,
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \

/**
 * The text element (or NULL) at `at`, pushed onto `items`; returns the index after it. A quoted
 * one is taken in slices between its escapes, each escape keeping the character after it; a bare
 * one runs to the next `,` or `}`.
 * @throws TypeError for anything array_out does not produce
 */
function element(text: string, at: number, items: TextArrayValue): number {
  let i = at;
  let c = text.charCodeAt(i);
  if (c === QUOTE) {
    let value = '';
    let from = ++i;
    for (;;) {
      c = text.charCodeAt(i);
      if (c === QUOTE) break;
      if (c === BACKSLASH) {
        value += text.slice(from, i);
        from = i + 1;
        i += 2;
      } else if (Number.isNaN(c)) {
        throw malformedArray('text[]', text);
      } else {
        i++;
      }
    }
    items.push(value + text.slice(from, i));
    return i + 1;
  }
  while (c !== COMMA && c !== CLOSE && c === c) c = text.charCodeAt(++i); // c === c: not NaN (the end)
  if (i === at || c !== c) throw malformedArray('text[]', text);
  const value = text.slice(at, i);
  items.push(value === 'NULL' ? null : value);
  return i;
}

/**
 * A text[] from its text form (the whole column value): `{a,"b,c",NULL}` gives `['a', 'b,c', null]`,
 * `{}` gives `[]`, `{"a\"b"}` `['a"b']`, a multi-dimensional array nested arrays (`{{a,b},{c,d}}`:
 * `[['a','b'],['c','d']]`). Dimension decorations (`[0:1]={a,b}`) are skipped: a JS array has no
 * lower bound, its elements are `['a','b']`.
 * The `postgres` client's generic parser gives the same for elements other than NULL; it gave the
 * string `'NULL'` for a null element and wrapped a decorated array in one more level.
 * @throws TypeError for text that is not text[] output (Postgres does not send any)
 */
export function parseTextArray(text: string): TextArrayValue {
  const last = text.length - 1;
  // One dimension and no element quoted (no quote or backslash, braces only around it; nothing
  // unquoted is empty): array_out's usual output, split at its commas. String.prototype.split
  // makes its array in the runtime, without the allocation site an array literal here has. V8
  // pretenures the arrays of a site whose arrays often outlive a scavenge (one long result read
  // and held is enough), and an array made in the old generation keeps its young strings, and the
  // column text they are slices of, alive until the next full collection: the list's tags and
  // node_ids were most of what each list request promoted (docs/benchmarks.md "Monitor list,
  // uptime and stats latency", sixteenth round).
  if (text.charCodeAt(0) === OPEN && text.charCodeAt(last) === CLOSE && text.indexOf('"') === -1 && text.indexOf('\\') === -1
    && text.indexOf('{', 1) === -1 && text.indexOf('}') === last) {
    if (last === 1) return [];
    const items: TextArrayValue = text.slice(1, last).split(',');
    for (let k = 0; k < items.length; k++) {
      if (items[k] === 'NULL') items[k] = null;
      else if (items[k] === '') throw malformedArray('text[]', text);
    }
    return items;
  }
  return readArrayText(text, element, 'text[]');
}
