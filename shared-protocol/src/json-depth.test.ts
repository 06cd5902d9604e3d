import t from 'tap';
import { jsonDepthAt } from './json-depth.js';
import { LIMITS } from './limits.js';
import { jsonDepthFault, parseNodeMessage, parseServerMessage } from './parse.js';

const nested = (depth: number, inner = '1') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;

t.test('jsonDepthAt: counts [ and { outside strings and names where the bound is passed', async (t) => {
  // [name, text, max_depth, expected path or null]
  const cases: Array<[string, string, number, Array<string | number> | null]> = [
    ['scalar', '42', 1, null],
    ['empty array is depth 1', '[]', 1, null],
    ['empty array past 0', '[]', 0, []],
    ['object in array', '[{}]', 1, [0]],
    ['at the bound', '{"a":[[1]]}', 3, null],
    ['one past the bound', '{"a":[[1]]}', 2, ['a', 0]],
    ['array index counts commas', '[1,2,[3,[4]]]', 2, [2, 1]],
    ['key of the open member', '{"x":1,"y":{"z":[1]}}', 2, ['y', 'z']],
    ['brackets inside strings are text', '{"a":"[[[[{{{{","b":["]]]"]}', 2, null],
    ['brackets inside keys are text', '{"[[[":{"{{{":1}}', 2, null],
    ['escaped quote does not end a string', '{"a\\"[[[":{"b":[1]}}', 2, ['a"[[[', 'b']],
    ['escaped backslash before the closing quote', '{"a\\\\":[[1]]}', 2, ['a\\', 0]],
    ['escaped key decoded', '{"\\u0041":[[1]]}', 2, ['A', 0]],
    ['a value string after a key is not a key', '{"k":"v","w":[[1]]}', 2, ['w', 0]],
    ['siblings closed before going deep', '[[1],[2],[[3]]]', 2, [2, 0]],
    ['unterminated string ends the scan', '[["[[[[[[', 2, null],
    ['deep and long', nested(15_000), 64, Array(64).fill(0)],
  ];
  for (const [name, text, max, want] of cases) t.same(jsonDepthAt(text, max), want === null ? null : { path: want }, name);
  const long_key = `{"${'k'.repeat(500)}":[[1]]}`;
  t.same(jsonDepthAt(long_key, 2), { path: [`${'k'.repeat(64)}…`, 0] }, 'a long key is cut in the path');
});

t.test('jsonDepthAt agrees with JSON.parse on the depth of generated documents', async (t) => {
  const depthOf = (v: unknown): number => (v !== null && typeof v === 'object' ? 1 + Math.max(0, ...Object.values(v).map(depthOf)) : 0);
  let seed = 7;
  const rand = (n: number) => { seed = (seed * 1103515245 + 12345) % 2 ** 31; return Math.floor(seed / 65536) % n; };
  const build = (d: number): unknown => {
    if (d === 0 || rand(4) === 0) return ['x', 1, null, 'a"[{\\', true][rand(5)];
    return rand(2) ? Array.from({ length: 1 + rand(3) }, () => build(d - 1)) : Object.fromEntries(Array.from({ length: 1 + rand(3) }, (_, i) => [`k${i}{"`, build(d - 1)]));
  };
  const wrong: string[] = [];
  const depths = new Set<number>();
  for (let i = 0; i < 300; i++) {
    const text = JSON.stringify(build(1 + rand(12)));
    const depth = depthOf(JSON.parse(text));
    depths.add(depth);
    if (jsonDepthAt(text, depth) !== null || (depth > 0 && jsonDepthAt(text, depth - 1) === null)) wrong.push(text);
  }
  t.same(wrong, [], 'within its depth, past one less');
  t.ok(depths.size >= 8, `depths from 0 to 12 tried (${[...depths].sort((a, b) => a - b).join(',')})`);
});

t.test('jsonDepthFault reads like a field issue', async (t) => {
  t.same(jsonDepthFault('{"config":{"payload_template":{"a":[[[1]]]}}}', 4), { path: 'config.payload_template.a[0]', message: 'nested deeper than 4 levels of arrays and objects' });
  t.same(jsonDepthFault('[[1]]', 1), { path: '[0]', message: 'nested deeper than 1 levels of arrays and objects' });
  t.equal(jsonDepthFault('{"a":[1]}', LIMITS.json_depth_max), null);
});

t.test('node-protocol messages nested too deep are refused alone, never thrown', async (t) => {
  const result = `{"result_id":"r_01jd3k6w9z4q8r2t7v5x1y3b6c","monitor_id":"m_01jd3k6w9z4q8r2t7v5x1y3b6c","x":${nested(15_000)}}`;
  const batch = parseNodeMessage(`{"type":"result.batch","batch_id":1,"results":[${result}]}`);
  t.equal(batch.ok, false);
  if (!batch.ok) {
    t.match(batch.error, new RegExp(`^message results\\[0\\]\\.x(\\[0\\])+: nested deeper than ${LIMITS.ws_message_depth_max} levels`));
    t.equal(batch.issues.length, 1);
  }
  const config = `{"method":"POST","payload_template":{"a":${nested(15_000)}}}`;
  const assignments = `{"type":"assignments.full","version":1,"assignments":[{"monitor_id":"m_01jd3k6w9z4q8r2t7v5x1y3b6c","interval_s":60,"check":{"type":"llm_endpoint","target":"https://example.com/","config":${config}}}]}`;
  const server = parseServerMessage(assignments);
  t.equal(server.ok, false, 'a control-plane message too: the node drops it instead of overflowing its stack');
  if (!server.ok) t.match(server.error, /^message assignments\[0\]\.check\.config\.payload_template\.a(\[0\])+: nested deeper/);
  // The deepest valid message: a result whose assertion `actual` is 500 characters of nested JSON.
  const actual = nested(250, '');
  t.equal(actual.length, 500);
  const valid = parseNodeMessage(`{"type":"result.batch","batch_id":2,"results":[{"assertions":[{"actual":${actual}}]}]}`);
  t.equal(valid.ok, true, 'an assertion actual of 500 characters of nested JSON is within the bound');
});
