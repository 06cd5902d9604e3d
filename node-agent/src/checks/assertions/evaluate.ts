import {
  ASSERTION_ACTUAL_MAX_CHARS, ASSERTION_DETAIL_MAX_CHARS, type Assertion, type AssertionResult,
} from '@vantage/shared-protocol';
import { compare, OP_WORDS, type Actual } from './compare.js';
import type { JsonPathsOutcome, PatternSandbox } from './sandbox.js';

/**
 * What a response offered to its assertions. `headers` null means no response arrived; `body`
 * null means no body was read; `body_truncated` says the body was cut at the node's read cap
 * (docs/api/checks.md "Body cap").
 */
export interface ResponseSubject {
  status_code: number | null;
  response_time_ms: number | null;
  headers: Record<string, string> | null;
  body: string | null;
  body_truncated: boolean;
  /** Whole days until the certificate's not_after; null without TLS. */
  ssl_days_remaining: number | null;
}

const absent: Actual = { present: false };
const seen = (value: unknown): Actual => ({ present: true, value });

/** A JSON value as short text for a detail sentence. */
function show(value: unknown, max = 120): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value) ?? String(value);
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** `actual` as reported: the value, or its JSON text cut to ASSERTION_ACTUAL_MAX_CHARS. */
function reportable(actual: Actual): unknown {
  if (!actual.present) return null;
  const text = JSON.stringify(actual.value);
  if (text === undefined) return null;
  return text.length > ASSERTION_ACTUAL_MAX_CHARS ? `${text.slice(0, ASSERTION_ACTUAL_MAX_CHARS)}…` : actual.value;
}

function result(a: Assertion, actual: Actual, ok: boolean, detail: string): AssertionResult {
  return {
    type: a.type, op: a.op, expected: a.value as AssertionResult['expected'], actual: reportable(actual) as AssertionResult['actual'],
    ok, detail: detail.slice(0, ASSERTION_DETAIL_MAX_CHARS),
    ...(a.path !== undefined ? { path: a.path } : {}), ...(a.header !== undefined ? { header: a.header } : {}),
  };
}

const truncNote = (s: ResponseSubject) => (s.body_truncated ? ` (only the first ${s.body!.length} characters were read)` : '');

/** Compare a seen value with the assertion's operator and phrase the outcome. */
async function judge(a: Assertion, label: string, actual: Actual, sandbox: PatternSandbox, unit = ''): Promise<AssertionResult> {
  const [yes, no] = OP_WORDS[a.op] ?? [a.op, `not ${a.op}`];
  const expected = `${show(a.value)}${unit}`;
  if (!actual.present) {
    const ok = a.op === 'ne' || a.op === 'not_in';
    return result(a, actual, ok, `${label} is absent${ok ? `, so it ${yes} ${expected}` : ''}`);
  }
  const shown = `${label} ${show(actual.value)}${unit}`;
  if (a.op === 'regex') {
    const v = actual.value;
    if (v !== null && typeof v === 'object') return result(a, actual, false, `${shown} is not text: regex needs text`);
    const got = await sandbox.regex(String(a.value), String(v));
    if (!got.ok) return result(a, actual, false, `regex ${show(a.value)} could not run: ${got.error}`);
    return result(a, actual, got.matched, `${shown} ${got.matched ? yes : no} ${show(a.value)}`);
  }
  const c = compare(a.op, actual, a.value);
  if (c.unusable) return result(a, actual, false, `${shown} ${c.unusable}: cannot apply ${a.op} ${expected}`);
  return result(a, actual, c.ok, `${shown} ${c.ok ? yes : no} ${expected}`);
}

async function bodyContains(a: Assertion, s: ResponseSubject): Promise<AssertionResult> {
  const needle = String(a.value);
  const at = s.body!.indexOf(needle);
  const found = at >= 0;
  const ok = a.op === 'ne' ? !found : found;
  const actual = found ? seen(s.body!.slice(Math.max(0, at - 40), at + needle.length + 40)) : absent;
  const where = found ? `contains ${show(needle)} at character ${at}` : `does not contain ${show(needle)}${truncNote(s)}`;
  return result(a, actual, ok, `body ${where}`);
}

async function bodyRegex(a: Assertion, s: ResponseSubject, sandbox: PatternSandbox): Promise<AssertionResult> {
  const got = await sandbox.regex(String(a.value), s.body!);
  if (!got.ok) return result(a, absent, false, `body_regex ${show(a.value)} could not run: ${got.error}`);
  const actual = got.matched ? seen(got.match ?? true) : absent;
  return result(a, actual, got.matched, got.matched ? `body matches ${show(a.value)}` : `body does not match ${show(a.value)}${truncNote(s)}`);
}

/** One assertion against a subject that has a response (and a body when it needs one). */
async function evaluateOne(a: Assertion, subject: ResponseSubject, json: JsonPathsOutcome | null, jsonIndex: number, sandbox: PatternSandbox): Promise<AssertionResult> {
  switch (a.type) {
    case 'status_code':
      return judge(a, 'status_code', subject.status_code === null ? absent : seen(subject.status_code), sandbox);
    case 'response_time':
      return judge(a, 'response_time', subject.response_time_ms === null ? absent : seen(subject.response_time_ms), sandbox, ' ms');
    case 'ssl_days_remaining':
      return subject.ssl_days_remaining === null
        ? result(a, absent, false, 'ssl_days_remaining: no certificate (not a TLS response)')
        : judge(a, 'ssl_days_remaining', seen(subject.ssl_days_remaining), sandbox, ' days');
    case 'header_value': {
      const value = subject.headers![a.header!.toLowerCase()];
      return judge(a, `header ${a.header!.toLowerCase()}`, value === undefined ? absent : seen(value), sandbox);
    }
    case 'body_contains':
      return bodyContains(a, subject);
    case 'body_regex':
      return bodyRegex(a, subject, sandbox);
    case 'json_path': {
      if (!json || !json.ok) return result(a, absent, false, `${a.path}: ${json?.error ?? 'no body'}${truncNote(subject)}`);
      const r = json.results[jsonIndex]!;
      if (!r.ok) return result(a, absent, false, `${a.path}: ${r.error}`);
      return judge(a, a.path!, r.values.length === 0 ? absent : seen(r.values.length === 1 ? r.values[0] : r.values), sandbox);
    }
  }
}

/**
 * Evaluate every assertion against `subject`, in order (docs/api/checks.md "Assertions"). Each
 * gets a result with its actual value, ok and detail; none is skipped. Without a response every
 * assertion fails ("no response"); a body assertion without a body fails likewise. JSONPath
 * queries share one parse of the body; regular expressions and costly JSONPath queries run in the
 * `sandbox` under its bounds (docs/api/checks.md "Patterns"). What stays on the main thread is
 * linear in bounded values (the body cap, the sandbox's selection cap), and the event loop gets a
 * turn between assertions. An assertion whose evaluation throws (a value nested too deeply to
 * compare) fails alone, saying why. Never rejects.
 */
export async function evaluateAssertions(assertions: readonly Assertion[], subject: ResponseSubject, sandbox: PatternSandbox): Promise<AssertionResult[]> {
  const jsonPaths = assertions.filter((a) => a.type === 'json_path').map((a) => a.path!);
  const json = jsonPaths.length > 0 && subject.body !== null ? await sandbox.jsonPaths(subject.body, jsonPaths) : null;
  let pathIndex = 0;
  const out: AssertionResult[] = [];
  for (const a of assertions) {
    const jsonIndex = a.type === 'json_path' ? pathIndex++ : -1;
    if (subject.headers === null) {
      out.push(result(a, absent, false, `not evaluated: no response`));
      continue;
    }
    const needsBody = a.type === 'body_contains' || a.type === 'body_regex' || a.type === 'json_path';
    if (needsBody && subject.body === null) {
      out.push(result(a, absent, false, 'not evaluated: no response body was read'));
      continue;
    }
    await new Promise(setImmediate);
    try {
      out.push(await evaluateOne(a, subject, json, jsonIndex, sandbox));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const why = err instanceof RangeError && /call stack/.test(message) ? 'the value is nested too deeply to compare' : message;
      out.push(result(a, absent, false, `could not be evaluated: ${why}`));
    }
  }
  return out;
}

/** The first failing assertion result, whose detail becomes the check's error; null when all held. */
export function firstFailure(results: readonly AssertionResult[]): AssertionResult | null {
  return results.find((r) => !r.ok) ?? null;
}
