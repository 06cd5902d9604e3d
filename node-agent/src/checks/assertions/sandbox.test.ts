/**
 * User-supplied patterns cannot stall the node: catastrophic regular expressions on a 1 MiB body
 * finish (RE2 is linear), a match too costly for the inline budget runs in the worker while the
 * event loop keeps turning, and a job past its deadline is stopped and reported.
 */
import t from 'tap';
import { jsonPathFault, regexFault } from '@vantage/shared-protocol';
import { createPatternSandbox } from './sandbox.js';

const MiB = 1024 * 1024;

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
  const sandbox = createPatternSandbox({ deadline_ms: 500, inline_regex_budget: 0 });
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
  const sandbox = createPatternSandbox({ deadline_ms: 500, inline_regex_budget: 0, inline_json_max_chars: 0 });
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
