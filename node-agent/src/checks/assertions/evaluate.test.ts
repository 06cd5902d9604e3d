/**
 * The assertion evaluator as a table: every assertion type and operator against one response,
 * with the verdict and the actual value each must report.
 */
import t from 'tap';
import { assertionResultSchema, assertionSchema, type Assertion } from '@vantage/shared-protocol';
import { evaluateAssertions, firstFailure, type ResponseSubject } from './evaluate.js';
import { createPatternSandbox } from './sandbox.js';

const body = JSON.stringify({ status: 'ok', count: 3, version: '2.10', items: [{ name: 'a', price: 5 }, { name: 'b', price: 12 }], nested: { deep: { flag: true } }, nothing: null });
const subject: ResponseSubject = {
  status_code: 200, response_time_ms: 120, body, body_truncated: false, ssl_days_remaining: 30,
  headers: { 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.length), 'x-count': '7' },
};

type Row = [string, Record<string, unknown>, boolean, unknown?];
// [what, assertion, ok, actual (when given)]
const table: Row[] = [
  ['status eq', { type: 'status_code', op: 'eq', value: 200 }, true, 200],
  ['status ne', { type: 'status_code', op: 'ne', value: 200 }, false, 200],
  ['status in', { type: 'status_code', op: 'in', value: [200, 204] }, true],
  ['status not_in', { type: 'status_code', op: 'not_in', value: [500, 503] }, true],
  ['status lt', { type: 'status_code', op: 'lt', value: 300 }, true],
  ['status gte fails', { type: 'status_code', op: 'gte', value: 400 }, false],
  ['response_time lt', { type: 'response_time', op: 'lt', value: 500 }, true, 120],
  ['response_time lte fails', { type: 'response_time', op: 'lte', value: 100 }, false, 120],
  ['response_time gt', { type: 'response_time', op: 'gt', value: 100 }, true],
  ['ssl days gt', { type: 'ssl_days_remaining', op: 'gt', value: 14 }, true, 30],
  ['ssl days lt fails', { type: 'ssl_days_remaining', op: 'lt', value: 14 }, false, 30],
  ['body contains', { type: 'body_contains', op: 'contains', value: '"status":"ok"' }, true],
  ['body contains fails', { type: 'body_contains', op: 'contains', value: 'maintenance' }, false, null],
  ['body ne (must not contain)', { type: 'body_contains', op: 'ne', value: 'maintenance' }, true],
  ['body ne fails', { type: 'body_contains', op: 'ne', value: 'status' }, false],
  ['body regex', { type: 'body_regex', op: 'regex', value: '"count":\\s*\\d+' }, true, '"count":3'],
  ['body regex inline flag', { type: 'body_regex', op: 'regex', value: '(?i)"STATUS"' }, true],
  ['body regex fails', { type: 'body_regex', op: 'regex', value: '^\\[' }, false, null],
  ['json eq text', { type: 'json_path', path: '$.status', op: 'eq', value: 'ok' }, true, 'ok'],
  ['json eq number', { type: 'json_path', path: '$.count', op: 'eq', value: 3 }, true, 3],
  ['json numeric string eq number', { type: 'json_path', path: '$.version', op: 'eq', value: 2.1 }, true],
  ['json ne', { type: 'json_path', path: '$.status', op: 'ne', value: 'down' }, true],
  ['json gt', { type: 'json_path', path: '$.count', op: 'gt', value: 2 }, true],
  ['json lt fails', { type: 'json_path', path: '$.count', op: 'lt', value: 3 }, false],
  ['json gt on text', { type: 'json_path', path: '$.status', op: 'gt', value: 1 }, false],
  ['json in', { type: 'json_path', path: '$.status', op: 'in', value: ['ok', 'degraded'] }, true],
  ['json not_in', { type: 'json_path', path: '$.status', op: 'not_in', value: ['down'] }, true],
  ['json contains (text)', { type: 'json_path', path: '$.status', op: 'contains', value: 'o' }, true],
  ['json contains (list of matches)', { type: 'json_path', path: '$.items[*].name', op: 'contains', value: 'b' }, true, ['a', 'b']],
  ['json contains (object key)', { type: 'json_path', path: '$.nested', op: 'contains', value: 'deep' }, true],
  ['json regex', { type: 'json_path', path: '$.version', op: 'regex', value: '^2\\.\\d+$' }, true],
  ['json filter', { type: 'json_path', path: '$.items[?@.price > 10].name', op: 'eq', value: 'b' }, true, 'b'],
  ['json descendant', { type: 'json_path', path: '$..flag', op: 'eq', value: true }, true, true],
  ['json null value', { type: 'json_path', path: '$.nothing', op: 'eq', value: null }, true, null],
  ['json no match fails', { type: 'json_path', path: '$.missing', op: 'eq', value: 1 }, false, null],
  ['json no match satisfies ne', { type: 'json_path', path: '$.missing', op: 'ne', value: 1 }, true, null],
  ['header eq', { type: 'header_value', header: 'X-Count', op: 'eq', value: 7 }, true, '7'],
  ['header contains', { type: 'header_value', header: 'content-type', op: 'contains', value: 'json' }, true],
  ['header regex', { type: 'header_value', header: 'content-type', op: 'regex', value: '^application/json' }, true],
  ['header in', { type: 'header_value', header: 'x-count', op: 'in', value: ['6', '7'] }, true],
  ['header absent fails eq', { type: 'header_value', header: 'x-missing', op: 'eq', value: 'a' }, false, null],
  ['header absent satisfies not_in', { type: 'header_value', header: 'x-missing', op: 'not_in', value: ['a'] }, true],
];

t.test('each assertion type and operator', async (t) => {
  const sandbox = createPatternSandbox();
  t.teardown(() => sandbox.close());
  for (const [what, raw, ok, actual] of table) {
    const a = assertionSchema.parse(raw); // every row is an assertion the API accepts
    const [r] = await evaluateAssertions([a], subject, sandbox);
    assertionResultSchema.parse(r);
    t.equal(r!.ok, ok, `${what}: ${r!.detail}`);
    if (actual !== undefined) t.same(r!.actual, actual, `${what}: actual`);
    t.equal(r!.type, a.type);
    t.same(r!.expected, a.value);
  }
});

t.test('every assertion is listed; the first failing one is the error', async (t) => {
  const sandbox = createPatternSandbox();
  t.teardown(() => sandbox.close());
  const list = [
    { type: 'status_code', op: 'eq', value: 200 },
    { type: 'json_path', path: '$.status', op: 'eq', value: 'down' },
    { type: 'response_time', op: 'lt', value: 10 },
  ].map((a) => assertionSchema.parse(a)) as Assertion[];
  const results = await evaluateAssertions(list, subject, sandbox);
  t.same(results.map((r) => r.ok), [true, false, false]);
  t.equal(firstFailure(results)?.detail, '$.status "ok" does not equal "down"');
  t.equal(results[2]!.detail, 'response_time 120 ms is not less than 10 ms');
});

t.test('without a response or a body every assertion fails and says why', async (t) => {
  const sandbox = createPatternSandbox();
  t.teardown(() => sandbox.close());
  const list = [{ type: 'status_code', op: 'eq', value: 200 }, { type: 'body_contains', op: 'contains', value: 'x' }].map((a) => assertionSchema.parse(a)) as Assertion[];
  const none = await evaluateAssertions(list, { ...subject, status_code: null, headers: null, body: null }, sandbox);
  t.same(none.map((r) => [r.ok, r.detail]), [[false, 'not evaluated: no response'], [false, 'not evaluated: no response']]);
  const notJson = await evaluateAssertions([assertionSchema.parse({ type: 'json_path', path: '$.a', op: 'eq', value: 1 })], { ...subject, body: '<html>' }, sandbox);
  t.match(notJson[0]!.detail, /^\$\.a: body is not JSON/);
  const cut = await evaluateAssertions([assertionSchema.parse({ type: 'body_contains', op: 'contains', value: 'zzz' })], { ...subject, body_truncated: true }, sandbox);
  t.match(cut[0]!.detail, /only the first \d+ characters were read/);
});

t.test('a large actual value is reported cut, as text', async (t) => {
  const sandbox = createPatternSandbox();
  t.teardown(() => sandbox.close());
  const big = JSON.stringify({ list: Array.from({ length: 500 }, (_, i) => i) });
  const [r] = await evaluateAssertions([assertionSchema.parse({ type: 'json_path', path: '$.list', op: 'contains', value: '499' })], { ...subject, body: big }, sandbox);
  t.equal(r!.ok, true);
  t.type(r!.actual, 'string');
  t.ok((r!.actual as string).endsWith('…'));
});
