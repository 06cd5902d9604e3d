import parseJsonPath from 'jsonpath-rfc9535/parser';
import { RE2JS } from 're2js';
import { textString } from '../parse.js';
import { regexExpandedSize } from './regex-size.js';

/*
 * What a user-supplied pattern may be. Regular expressions use RE2 syntax (github.com/google/re2/wiki/Syntax)
 * and run on a linear-time engine (re2js), so no pattern can backtrack for ever on a large body;
 * JSONPath follows RFC 9535. The API refuses what the node could not run, with these same rules.
 */

/**
 * Largest compiled RE2 program a pattern may have, instructions (ours). Matching costs at most
 * about program size × input length steps; `a{1000}` is ~1000 instructions, a 1024-character
 * pattern of nested counted repeats can reach tens of thousands.
 */
export const REGEX_PROGRAM_MAX = 5000;

/**
 * Compile `pattern` with RE2 semantics (flags inline: `(?i)` case-insensitive, `(?s)` dot matches
 * newline, `(?m)` multi-line). Throws a RangeError without compiling when the pattern's text
 * expands past {@link REGEX_PROGRAM_MAX} instructions (regex-size.ts regexExpandedSize, linear in
 * its length: compiling costs time in proportion to the expansion, about 1 s for 140 `x{1000}`,
 * so no refused pattern costs more than the largest accepted one), the engine's syntax error, or a
 * RangeError when the compiled program is larger than {@link REGEX_PROGRAM_MAX}. The expansion
 * counts alternations before RE2 factors out their common prefixes (`abc1|abc2` counts 9, `abc[12]` 4).
 */
export function compileRegex(pattern: string): RE2JS {
  const expanded = regexExpandedSize(pattern);
  if (expanded > REGEX_PROGRAM_MAX) {
    throw new RangeError(`pattern too complex (its repetitions expand to about ${expanded} instructions, at most ${REGEX_PROGRAM_MAX})`);
  }
  const re = RE2JS.compile(pattern);
  if (re.programSize() > REGEX_PROGRAM_MAX) {
    throw new RangeError(`pattern too complex (${re.programSize()} instructions, at most ${REGEX_PROGRAM_MAX})`);
  }
  return re;
}

/**
 * Why `pattern` cannot be used as an assertion's regular expression, or null when it can. RE2
 * has no look-around and no back-references (they need backtracking).
 * @example regexFault('(?=x)') // 'not an RE2 regular expression: … `(?=`'
 */
export function regexFault(pattern: string): string | null {
  try {
    compileRegex(pattern);
    return null;
  } catch (err) {
    const message = (err as Error).message;
    return err instanceof RangeError ? message : `not an RE2 regular expression: ${message}`;
  }
}

/**
 * JSONPath function extensions (RFC 9535 2.4) that are refused: `match()` and `search()` run an
 * I-Regexp through the JavaScript engine inside the JSONPath library, which backtracks. Use a
 * `regex` operator on the selected value instead.
 */
export const JSON_PATH_REFUSED_FUNCTIONS = ['match', 'search'] as const;

function refusedFunction(node: unknown): string | null {
  if (Array.isArray(node)) {
    for (const item of node) {
      const found = refusedFunction(item);
      if (found) return found;
    }
    return null;
  }
  if (node === null || typeof node !== 'object') return null;
  const record = node as Record<string, unknown>;
  if (record.type === 'FunctionExpr' && (JSON_PATH_REFUSED_FUNCTIONS as readonly unknown[]).includes(record.name)) return String(record.name);
  for (const value of Object.values(record)) {
    const found = refusedFunction(value);
    if (found) return found;
  }
  return null;
}

/**
 * Why `path` cannot be used as an assertion's JSONPath (RFC 9535), or null when it can: a syntax
 * error, or a refused function ({@link JSON_PATH_REFUSED_FUNCTIONS}).
 * @example jsonPathFault('$.items[?search(@.name, "a+")]') // 'search() is not supported …'
 */
export function jsonPathFault(path: string): string | null {
  let ast: unknown;
  try {
    ast = parseJsonPath(path);
  } catch (err) {
    return `not an RFC 9535 JSONPath: ${(err as Error).message.slice(0, 300)}`;
  }
  const fn = refusedFunction(ast);
  return fn ? `${fn}() is not supported in a JSONPath (it would run a backtracking regular expression); select the value and use op regex` : null;
}

/**
 * A user-supplied JSONPath field: 1-`max_chars` characters starting with `$`, refused when
 * {@link jsonPathFault} finds a fault (RFC 9535 syntax, no match()/search()): the rule nodes
 * apply before they evaluate a path, so what the API accepts the node runs.
 * @example jsonPathSchema(1024).parse('$.choices[0].message') // ok; '$[?match(@.a, "x")]' is refused
 */
export function jsonPathSchema(max_chars: number) {
  return textString().min(1).max(max_chars).regex(/^\$/, 'must be a JSONPath starting with $').superRefine((path, ctx) => {
    const fault = jsonPathFault(path);
    if (fault) ctx.addIssue({ code: 'custom', message: fault });
  });
}
