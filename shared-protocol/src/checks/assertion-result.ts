import { z } from 'zod';
import { ASSERTION_OPS, ASSERTION_TYPES } from '../monitors/assertions.js';

/** Longest `detail` of an assertion result, characters. */
export const ASSERTION_DETAIL_MAX_CHARS = 1000;
/**
 * Longest JSON text of an `actual` value, characters: a larger value (a big JSON object, a long
 * header) is reported as the first ASSERTION_ACTUAL_MAX_CHARS characters of its JSON text, as a
 * string ending in `…`.
 */
export const ASSERTION_ACTUAL_MAX_CHARS = 500;

/**
 * What one assertion found (docs/api/checks.md "Assertions"): the assertion as configured (`type`,
 * `op`, `expected` = its `value`, `path` for json_path, `header` for header_value), the `actual`
 * value seen (null when there was nothing to see: no response, no such header, no JSONPath
 * match), whether it held, and a sentence saying why.
 * @example { "type": "status_code", "op": "in", "expected": [200, 204], "actual": 503, "ok": false, "detail": "status_code 503 is not in [200,204]" }
 * @example { "type": "json_path", "path": "$.status", "op": "eq", "expected": "ok", "actual": "ok", "ok": true, "detail": "$.status \"ok\" eq \"ok\"" }
 */
export const assertionResultSchema = z.object({
  type: z.enum(ASSERTION_TYPES),
  op: z.enum(ASSERTION_OPS),
  // Any JSON; z.unknown() rather than the recursive z.json() keeps an OpenAPI document finite.
  expected: z.unknown(),
  actual: z.unknown(),
  ok: z.boolean(),
  detail: z.string().max(ASSERTION_DETAIL_MAX_CHARS),
  path: z.string().optional(),
  header: z.string().optional(),
});
export type AssertionResult = z.infer<typeof assertionResultSchema>;
