import { isDeepStrictEqual } from 'node:util';

/*
 * The operators of an assertion (docs/api/checks.md "Operators"), on an `actual` JSON value and
 * the assertion's `expected` value. `regex` is not here: it needs the pattern sandbox.
 */

/** What was seen: a JSON value, or `absent` (no response, header or JSONPath match). */
export type Actual = { present: true; value: unknown } | { present: false };

/** A number from a JSON number or a numeric string ("200", " 1.5 "); null otherwise. */
export function toNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value.trim());
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

/**
 * Equality of a seen value and an expected one: numbers numerically (a numeric string too: a
 * header "5" equals 5, "2.10" equals 2.1), a string against a boolean by text ("true" equals
 * true), anything else structurally.
 */
export function looseEqual(actual: unknown, expected: unknown): boolean {
  if (typeof actual === 'number' || typeof expected === 'number') {
    const other = typeof actual === 'number' ? expected : actual;
    if (typeof other === 'number' || typeof other === 'string') {
      const x = toNumber(actual);
      const y = toNumber(expected);
      if (x !== null && y !== null) return x === y;
    }
  }
  const scalar = (v: unknown) => typeof v === 'number' || typeof v === 'boolean';
  if ((typeof actual === 'string' && scalar(expected)) || (scalar(actual) && typeof expected === 'string')) {
    return String(actual).trim() === String(expected).trim();
  }
  return isDeepStrictEqual(actual, expected);
}

/** The outcome of one comparison: whether it held, and when it could not be made, why. */
export interface Compared {
  ok: boolean;
  /** Set when the operator does not apply to the value (not a number, not text or a list). */
  unusable?: string;
}

/**
 * Apply `op` (every operator but `regex`) to `actual` and `expected`. An absent actual satisfies
 * only `ne` and `not_in` (nothing there is not equal to anything).
 * - eq/ne: {@link looseEqual};
 * - gt/gte/lt/lte: both sides as numbers ({@link toNumber});
 * - in/not_in: `expected` is a list; looseEqual to any element;
 * - contains: text contains the expected text, a list contains an element looseEqual to it, an
 *   object has it as a key.
 */
export function compare(op: string, actual: Actual, expected: unknown): Compared {
  if (!actual.present) return { ok: op === 'ne' || op === 'not_in' };
  const a = actual.value;
  switch (op) {
    case 'eq': return { ok: looseEqual(a, expected) };
    case 'ne': return { ok: !looseEqual(a, expected) };
    case 'gt': case 'gte': case 'lt': case 'lte': {
      const x = toNumber(a);
      const y = toNumber(expected);
      if (x === null) return { ok: false, unusable: 'is not a number' };
      if (y === null) return { ok: false, unusable: 'expected value is not a number' };
      return { ok: op === 'gt' ? x > y : op === 'gte' ? x >= y : op === 'lt' ? x < y : x <= y };
    }
    case 'in': case 'not_in': {
      if (!Array.isArray(expected)) return { ok: false, unusable: 'expected value is not a list' };
      const found = expected.some((e) => looseEqual(a, e));
      return { ok: op === 'in' ? found : !found };
    }
    case 'contains': {
      if (typeof a === 'string') return { ok: a.includes(typeof expected === 'string' ? expected : JSON.stringify(expected)) };
      if (Array.isArray(a)) return { ok: a.some((x) => looseEqual(x, expected)) };
      if (a !== null && typeof a === 'object') return { ok: typeof expected === 'string' && Object.hasOwn(a, expected) };
      if (typeof a === 'number' || typeof a === 'boolean') return { ok: String(a).includes(String(expected)) };
      return { ok: false, unusable: 'is neither text, a list nor an object' };
    }
    default:
      return { ok: false, unusable: `operator ${op} is not supported here` };
  }
}

/** Words for an operator in a detail sentence, held and not held. */
export const OP_WORDS: Record<string, [string, string]> = {
  eq: ['equals', 'does not equal'],
  ne: ['differs from', 'equals'],
  gt: ['is greater than', 'is not greater than'],
  gte: ['is at least', 'is less than'],
  lt: ['is less than', 'is not less than'],
  lte: ['is at most', 'is greater than'],
  in: ['is in', 'is not in'],
  not_in: ['is not in', 'is in'],
  contains: ['contains', 'does not contain'],
  regex: ['matches', 'does not match'],
};
