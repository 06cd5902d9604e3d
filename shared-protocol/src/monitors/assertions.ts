import { z } from 'zod';
import { jsonPathFault, regexFault } from '../checks/patterns.js';
import { textString } from '../parse.js';
import { MONITOR_LIMITS } from './types.js';

/*
 * Response assertions of HTTP-like monitors ( "Assertion") and the expected-status rule.
 * The schemas check shape and consistency only; the checks evaluate them.
 */

/** What an assertion looks at. */
export const ASSERTION_TYPES = ['status_code', 'response_time', 'body_contains', 'body_regex', 'json_path', 'header_value', 'ssl_days_remaining'] as const;
/** How it compares. */
export const ASSERTION_OPS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'not_in', 'contains', 'regex'] as const;

const NUMERIC_OPS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'not_in'] as const;
const TEXT_OPS = ['eq', 'ne', 'contains', 'regex', 'in', 'not_in'] as const;

/**
 * Operators each assertion type accepts (ours:  lists types and operators, not which go
 * together). body_contains: `contains` = the body contains `value`, `ne` = it does not.
 */
export const ASSERTION_OPS_BY_TYPE: Record<(typeof ASSERTION_TYPES)[number], readonly (typeof ASSERTION_OPS)[number][]> = {
  status_code: NUMERIC_OPS,
  response_time: ['gt', 'gte', 'lt', 'lte'],
  ssl_days_remaining: ['gt', 'gte', 'lt', 'lte'],
  body_contains: ['contains', 'ne'],
  body_regex: ['regex'],
  header_value: TEXT_OPS,
  json_path: ASSERTION_OPS,
};

/** Longest regular expression or text an assertion may carry, characters (ours). */
export const ASSERTION_TEXT_MAX_CHARS = 1024;

/**
 * One assertion: `type`, `op`, `value` (any JSON), plus `path` (a JSONPath starting
 * with `$`, required for json_path) and `header` (the header name, required for header_value).
 * `value` must fit the operator: a number for gt/gte/lt/lte and the numeric types, an array for
 * in/not_in, a regular expression in RE2 syntax for regex (checks/patterns.ts: no look-around or
 * back-references), a non-empty string for body_contains. `path` is an RFC 9535 JSONPath without
 * match()/search().
 * @example { "type": "status_code", "op": "in", "value": [200, 204] }
 * @example { "type": "json_path", "path": "$.status", "op": "eq", "value": "ok" }
 */
export const assertionSchema = z.strictObject({
  type: z.enum(ASSERTION_TYPES),
  op: z.enum(ASSERTION_OPS),
  // Any JSON (the body was parsed from JSON); z.unknown() rather than the recursive z.json() keeps
  // the OpenAPI generator finite.
  value: z.unknown(),
  path: textString().min(1).max(ASSERTION_TEXT_MAX_CHARS).regex(/^\$/, 'must be a JSONPath starting with $').optional(),
  header: textString().min(1).max(256).regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be an HTTP header name').optional(),
}).superRefine((a, ctx) => {
  const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  if (a.value === undefined) {
    issue('value', 'a value is required');
    return;
  }
  if (!ASSERTION_OPS_BY_TYPE[a.type].includes(a.op)) {
    issue('op', `${a.type} takes ${ASSERTION_OPS_BY_TYPE[a.type].join(', ')}`);
    return;
  }
  if (a.type === 'json_path' && a.path === undefined) issue('path', 'json_path needs a path ($.field)');
  const pathFault = a.path === undefined ? null : jsonPathFault(a.path);
  if (pathFault) issue('path', pathFault);
  if (a.type !== 'json_path' && a.path !== undefined) issue('path', 'only json_path takes a path');
  if (a.type === 'header_value' && a.header === undefined) issue('header', 'header_value needs a header name');
  if (a.type !== 'header_value' && a.header !== undefined) issue('header', 'only header_value takes a header');
  const numeric = a.type === 'status_code' || a.type === 'response_time' || a.type === 'ssl_days_remaining';
  const isText = (v: unknown) => typeof v === 'string' && v.length > 0 && v.length <= ASSERTION_TEXT_MAX_CHARS;
  if (a.op === 'in' || a.op === 'not_in') {
    const ok = Array.isArray(a.value) && a.value.length >= 1 && a.value.length <= 100
      && a.value.every((v) => (numeric ? typeof v === 'number' : v !== null && typeof v !== 'object'));
    if (!ok) issue('value', `${a.op} needs an array of 1-100 ${numeric ? 'numbers' : 'strings, numbers or booleans'}`);
  } else if (a.op === 'regex') {
    if (!isText(a.value)) issue('value', `regex needs a pattern of 1-${ASSERTION_TEXT_MAX_CHARS} characters`);
    else {
      const fault = regexFault(a.value as string);
      if (fault) issue('value', fault);
    }
  } else if (numeric || ['gt', 'gte', 'lt', 'lte'].includes(a.op)) {
    if (typeof a.value !== 'number' || !Number.isFinite(a.value) || (a.type !== 'json_path' && a.value < 0)) issue('value', `${a.type} ${a.op} needs a number${a.type !== 'json_path' ? ' >= 0' : ''}`);
  } else if (a.type === 'body_contains' || a.op === 'contains') {
    if (!isText(a.value)) issue('value', `${a.op} needs text of 1-${ASSERTION_TEXT_MAX_CHARS} characters`);
  } else if (typeof a.value === 'string' && a.value.length > ASSERTION_TEXT_MAX_CHARS) {
    issue('value', `at most ${ASSERTION_TEXT_MAX_CHARS} characters`);
  }
});
export type Assertion = z.infer<typeof assertionSchema>;

/** A monitor's assertion list: at most MONITOR_LIMITS.assertions_max, default none. */
export const assertionsSchema = z.array(assertionSchema).max(MONITOR_LIMITS.assertions_max).default([]);

/**
 * Parse an expected-status rule: comma-separated codes and inclusive ranges of 100-599, e.g.
 * `200-399` or `200,204,301-308`.
 * @returns the ranges as `[low, high]` pairs, or null when malformed
 */
export function parseExpectedStatus(rule: string): Array<[number, number]> | null {
  const ranges: Array<[number, number]> = [];
  for (const part of rule.split(',')) {
    const m = /^\s*(\d{3})(?:\s*-\s*(\d{3}))?\s*$/.exec(part);
    if (!m) return null;
    const low = Number(m[1]);
    const high = m[2] === undefined ? low : Number(m[2]);
    if (low < 100 || high > 599 || low > high) return null;
    ranges.push([low, high]);
  }
  return ranges;
}

/** True when HTTP status `code` satisfies the expected-status `rule` (see {@link parseExpectedStatus}). */
export function statusMatches(rule: string, code: number): boolean {
  return (parseExpectedStatus(rule) ?? []).some(([low, high]) => code >= low && code <= high);
}

/**
 * `expected_status`: the statuses that count as up, as a rule string (`200-399`, `200,204`) or a
 * single code (stored as its string). Normalised without spaces.
 */
export function expectedStatusSchema(fallback: string) {
  return z.union([z.number().int().min(100).max(599).transform(String), textString().max(200)])
    .refine((rule) => parseExpectedStatus(rule) !== null, { message: 'must be status codes or ranges of 100-599, e.g. "200-399" or "200,204,301-308"' })
    .transform((rule) => rule.replace(/\s+/g, ''))
    .default(fallback);
}
