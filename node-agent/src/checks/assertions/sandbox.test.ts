/**
 * User-supplied patterns cannot stall the node: catastrophic regular expressions on a 1 MiB body
 * finish (RE2 is linear), matches run in the worker while the event loop keeps turning, a job past
 * its deadline or the worker's heap limit is stopped and reported, alone, and what a JSONPath
 * selects is capped. loop-bound.test.ts measures the event loop through the checks.
 */
import t from 'tap';
import { jsonPathFault, regexFault } from '@vantage/shared-protocol';
import { createPatternSandbox, isSingularPath, JSON_SELECTED_VALUES_MAX } from './sandbox.js';

const MiB = 1024 * 1024;
/** `{"a":{"a":…1…}}`, 2000 levels (12 KB): `$..*..*..z` walks it for ever, selecting nothing. */
const nested = `${'{"a":'.repeat(2000)}1${'}'.repeat(2000)}`;
const outcomes = (got: Awaited<ReturnType<ReturnType<typeof createPatternSandbox>['jsonPaths']>>) =>
  (got.ok ? got.results.map((r) => (r.ok ? r.values.length : r.error)) : got.error);

t.test('catastrophic patterns on a 1 MiB body end (linear-time engine)', async (t) => {
  const sandbox = createPatternSandbox({ deadline_ms: 60_000 });
  t.teardown(() => sandbox.close());
  // `(a+)+$` against a run of a's that ends badly: exponential for a backtracking engine
  // (JavaScript's RegExp does not finish on 30 characters), one pass for RE2.
  const body = `${'a'.repeat(MiB)}!`;
  for (const pattern of ['(a+)+$', '(a|aa)+$', '^(([a-z])+.)+[A-Z]([a-z])+$', '(\\w+\\s?)*$']) {
    const got = await sandbox.regex(pattern, body);
    t.ok(got.ok, `${pattern}: evaluated`);
    if (got.ok) t.type(got.matched, 'boolean');
  }
});

t.test('a job past its deadline is stopped; the event loop never waited for it', async (t) => {
  const sandbox = createPatternSandbox({ deadline_ms: 500 });
  t.teardown(() => sandbox.close());
  // A pattern whose DFA blows up, so RE2 falls back to its NFA: seconds on 1 MiB of random a/b.
  let body = '';
  for (let i = 0; i < MiB; i++) body += Math.random() < 0.5 ? 'a' : 'b';
  let ticks = 0;
  const ticker = setInterval(() => ticks++, 5);
  const got = await sandbox.regex('[ab]*a[ab]{200}[^ab]', body);
  clearInterval(ticker);
  t.notOk(got.ok);
  if (!got.ok) t.match(got.error, /took longer than 500 ms/);
  t.ok(ticks > 0, 'timers ran while the worker matched');
  // The sandbox keeps working after a worker was stopped.
  const after = await sandbox.regex('b+', 'aaabbb');
  t.match(after, { ok: true, matched: true });
});

t.test('jobs queued behind a stopped one still get their answer', async (t) => {
  const sandbox = createPatternSandbox({ deadline_ms: 500, inline_json_max_chars: 0 });
  t.teardown(() => sandbox.close());
  let body = '';
  for (let i = 0; i < MiB; i++) body += Math.random() < 0.5 ? 'a' : 'b';
  const [slow, quick, json] = await Promise.all([
    sandbox.regex('[ab]*a[ab]{200}[^ab]', body),
    sandbox.regex('x', 'yyxyy'),
    sandbox.jsonPaths('{"a":{"b":[1,2]}}', ['$.a.b[*]', '$.nope']),
  ]);
  t.notOk(slow.ok);
  t.match(quick, { ok: true, matched: true });
  t.same(json, { ok: true, results: [{ ok: true, values: [1, 2] }, { ok: true, values: [] }] });
});

t.test('refused patterns never reach an engine', async (t) => {
  const sandbox = createPatternSandbox();
  t.teardown(() => sandbox.close());
  t.match(regexFault('(?=a)b'), /not an RE2 regular expression/, 'look-ahead needs backtracking');
  t.match(regexFault('(a)\\1'), /not an RE2 regular expression/, 'back-references too');
  t.match(regexFault('(?:a{0,5}b{0,5}){200}(?:c{0,5}){200}'), /too complex/);
  t.equal(regexFault('^ok$'), null);
  t.match(jsonPathFault('$.items[?search(@.name, "(a+)+$")]'), /search\(\) is not supported/);
  t.match(jsonPathFault('$[?match(@, "a")]'), /match\(\) is not supported/);
  t.match(jsonPathFault('$.a['), /not an RFC 9535 JSONPath/);
  t.equal(jsonPathFault('$.items[?@.price > 10 && length(@.name) > 0].name'), null);
  const got = await sandbox.jsonPaths(JSON.stringify({ items: [{ name: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!' }] }), ['$.items[?search(@.name, "(a+)+$")]', '$.items[0].name']);
  t.ok(got.ok);
  if (got.ok) {
    t.match(got.results[0], { ok: false, error: /search\(\) is not supported/ });
    t.same(got.results[1], { ok: true, values: ['aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!'] });
  }
});

t.test('a JSONPath past its deadline fails alone; the paths after it still run', async (t) => {
  const sandbox = createPatternSandbox({ deadline_ms: 500, inline_json_max_chars: 0 });
  t.teardown(() => sandbox.close());
  const got = outcomes(await sandbox.jsonPaths(nested, ['$.a', '$..*..*..z', '$.a.a']));
  t.match(got, [1, /^took longer than 500 ms, stopped/, 1]);
});

t.test('a worker out of memory costs only its job, never the process', async (t) => {
  const sandbox = createPatternSandbox({ deadline_ms: 60_000, heap_max_mb: 16, inline_json_max_chars: 0 });
  t.teardown(() => sandbox.close());
  const [json, queued] = await Promise.all([sandbox.jsonPaths(nested, ['$..*..*..z', '$.a']), sandbox.regex('b+', 'aabb')]);
  t.match(outcomes(json), [/^used more than 16 MB of memory, stopped/, 1]);
  t.match(queued, { ok: true, matched: true, match: 'bb' }, 'the job queued behind it ran on a fresh worker');
});

t.test('what a JSONPath selects is capped in count and size; first_only selects one', async (t) => {
  const sandbox = createPatternSandbox({ deadline_ms: 60_000, inline_json_max_chars: 0 });
  t.teardown(() => sandbox.close());
  const list = JSON.stringify({ list: Array.from({ length: JSON_SELECTED_VALUES_MAX + 1 }, (_, i) => i) });
  t.match(outcomes(await sandbox.jsonPaths(list, ['$.list[*]', '$.list[1:]'])), [/^selects more than 10,000 values/, 10_000]);
  t.same(await sandbox.jsonPaths(list, ['$.list[*]'], { first_only: true }), { ok: true, results: [{ ok: true, values: [0] }] });
  t.match(outcomes(await sandbox.jsonPaths(nested, ['$..*..*', '$..a'])), [/^selects more than 262,144 characters of JSON/, /^selects more than 262,144/]);
});

t.test('only singular paths run on the main thread', async (t) => {
  for (const path of ['$', '$.a', "$['a'][0]", '$.a[-1].b']) t.equal(isSingularPath(path), true, path);
  for (const path of ['$.a[0,1]', '$[*]', '$.a.*', '$..a', '$.a[1:2]', '$[?@.a]']) t.equal(isSingularPath(path), false, path);
});
