import t from 'tap';
import { REGEX_PROGRAM_MAX, compileRegex, jsonPathFault, jsonPathSchema, parseMonitorConfig, regexFault } from '../index.js';
import { regexExpandedSize } from './regex-size.js';

/*
 * One JSONPath rule for the API and the node (checks/patterns.ts): what jsonPathFault refuses,
 * the nodes refuse to evaluate, so every schema field holding a JSONPath refuses it at save.
 */

const PATHS = [
  '$.choices[0].message.content', '$..id', '$.items[?@.price < 10]', '$.items[?length(@.tags) > 1]',
  '$.items[?match(@.name, "a.*")]', '$.items[?search(@.name, "(a+)+$")]', '$[?count(@..x) > 0 && search(@.y, "z")]',
  '$.a[', '$$', 'choices',
];

t.test('jsonPathSchema accepts exactly what jsonPathFault lets the node run', async (t) => {
  const schema = jsonPathSchema(1024);
  for (const path of PATHS) {
    const fault = path.startsWith('$') ? jsonPathFault(path) : 'must start with $';
    const r = schema.safeParse(path);
    t.equal(r.success, fault === null, `${path}: ${fault ?? 'accepted'}`);
  }
  t.notOk(schema.safeParse('$.' + 'a'.repeat(1024)).success, 'bounded length');
});

t.test('expected_fields of agent endpoint monitors: match() and search() refused at save with the reason', async (t) => {
  for (const type of ['llm_endpoint', 'tool_api', 'rag'] as const) {
    const r = parseMonitorConfig(type, { expected_fields: ['$.choices[0]', '$.items[?match(@.name, "a+")]'] });
    t.notOk(r.ok, type);
    t.match(!r.ok && r.issues, [{ path: 'config.expected_fields[1]', message: /^match\(\) is not supported in a JSONPath .* use op regex/ }]);
    t.ok(parseMonitorConfig(type, { expected_fields: ['$.choices[0].message.content', '$..usage'] }).ok, `${type}: plain paths accepted`);
  }
});

t.test('a pattern whose repetitions expand too far is refused before it is compiled', async (t) => {
  const huge = 'x{1000}'.repeat(140); // 980 characters, 140,002 instructions once compiled
  const started = performance.now();
  const fault = regexFault(huge);
  const took_ms = performance.now() - started;
  t.equal(fault, `pattern too complex (its repetitions expand to about 140000 instructions, at most ${REGEX_PROGRAM_MAX})`);
  t.ok(took_ms < 500, `refused in ${took_ms.toFixed(1)} ms, without compiling (about a second compiled)`);
  t.equal(regexExpandedSize(huge), 140_000);
  t.throws(() => compileRegex('(?:ab|cd|ef|gh|ij|kl|mn|op|qr|st){1000}'), /expand to about 29000 instructions/);
  t.match(regexFault('x{1000}'.repeat(6)), /expand to about 6000 instructions/);

  // Within the expansion bound, the compiled program's exact size still decides.
  t.equal(regexFault('x{1000}'.repeat(5)), 'pattern too complex (5002 instructions, at most 5000)');
  t.equal(regexFault('x{1000}'.repeat(4)), null, 'a program of 4002 instructions is fine');
  t.equal(regexFault('(?:abc1|abc2|abc3){300}'), null, 'an alternation within the bound before RE2 factors it');
  t.match(regexFault('(?=x)'), /^not an RE2 regular expression/, 'syntax errors are the engine\'s to name');
  t.match(regexFault('(x{1000}){1000}'), /too complex|invalid repeat/);
});

t.test('regexExpandedSize: the expanded size RE2 compiles, read from the text', async (t) => {
  // [pattern, estimate]: RE2's program is the estimate plus 2 (its match and fail instructions),
  // except where it factors alternations.
  const cases: Array<[string, number]> = [
    ['^ok$', 4], ['x{1000}', 1000], ['[a-z]{1000}', 1000], ['(?i)hello{100}', 104], ['(a|b|c)+', 4],
    ['(?:a|b|c|d|e|f|g|h){1000}', 1000], ['(?:ab|cd){10}', 50], ['((((x{10}){10}){10}){1})', 1224],
    ['(?:a{0,5}b{0,5}){200}(?:c{0,5}){200}', 6000], ['\\d{3}-\\d{4}', 8], ['(?P<year>\\d{4})-(?P<m>\\d{2})', 11],
    ['[[:alpha:]]{50}', 50], ['[]a]{10}', 10], ['\\Qa.b\\E{5}', 7], ['\\p{Greek}{100}', 100], ['\\x{41}{100}', 100],
    ['a{2,}', 3], ['a{0,}', 3], ['a{,5}', 5], ['a*?b+?c??', 7], ['(?:\\b|\\B){100}', 300], ['(?:(?:a|bb){10}|c){10}', 420],
  ];
  for (const [pattern, size] of cases) {
    t.equal(regexExpandedSize(pattern), size, pattern);
    if (size < REGEX_PROGRAM_MAX) t.ok(compileRegex(pattern).programSize() <= size + 2, `${pattern}: the program is no larger`);
  }
});
