import t from 'tap';
import { clientArrayPair, TEST_DATABASE_URL } from '../test-support/db.js';
import { serializeArray } from './array-text.js';
import { connect } from './sql.js';
import { parseTextArray } from './text-array.js';

/** Strings array_out must quote or escape, and ones it leaves bare. */
const AWKWARD = ['', ' ', 'a b', 'a,b', '{', '}', '{x}', '"', 'a"b', '\\', 'a\\b', '\\"', 'NULL', 'null', 'Null', 'é ü', '日本', 'tab\there', 'new\nline', 'plain', 'node_01JXYZ', '-1', '[0:1]'];

t.test('text[] columns read through the client: awkward strings, NULLs, empty, several dimensions, lower bounds', async (t) => {
  const sql = connect(TEST_DATABASE_URL, 1);
  t.teardown(() => sql.end({ timeout: 5 }));
  const [row] = await sql<Array<Record<string, unknown>>>`SELECT
    ${AWKWARD}::text[] AS awkward, '{a,NULL,"NULL"}'::text[] AS nulls, '{}'::text[] AS empty, ARRAY[NULL]::text[] AS only_null,
    '{{a,b},{"c d",NULL}}'::text[] AS two_d, '{{{x}},{{y}}}'::text[] AS three_d,
    '[0:1]={p,q}'::text[] AS lower_bound, '[0:1][5:6]={{a,b},{c,d}}'::text[] AS lower_bounds_2d,
    NULL::text[] AS null_array, ARRAY['a']::varchar[] AS varchar_array`;
  t.same(row, {
    awkward: AWKWARD, nulls: ['a', null, 'NULL'], empty: [], only_null: [null],
    two_d: [['a', 'b'], ['c d', null]], three_d: [[['x']], [['y']]],
    lower_bound: ['p', 'q'], lower_bounds_2d: [['a', 'b'], ['c', 'd']],
    null_array: null, varchar_array: ['a'],
  });
});

t.test('text[] parameters round-trip through Postgres as the text it reads them from', async (t) => {
  const sql = connect(TEST_DATABASE_URL, 1);
  t.teardown(() => sql.end({ timeout: 5 }));
  const cases: unknown[][] = [AWKWARD, [], ['a', null, undefined], [['a', 'b'], ['c', null]], [1, 2n, 'x']];
  for (const xs of cases) {
    const [r] = await sql<Array<{ text: string; back: unknown }>>`SELECT ${xs as never}::text[]::text AS text, ${xs as never}::text[] AS back`;
    t.same(r!.back, parseTextArray(r!.text), `${r!.text}: read back as written`);
  }
  const [tagged] = await sql<Array<{ hit: boolean }>>`SELECT ARRAY['a"b', 'c,d']::text[] @> ${['c,d']}::text[] AS hit`;
  t.equal(tagged!.hit, true, 'a parameter compared in SQL');
});

t.test('the serializer writes what the client writes; the parser reads what the client reads, except NULL', async (t) => {
  const client = await clientArrayPair(t, 1009);
  const inputs: unknown[] = [[], ['a'], AWKWARD, [null, 'x', undefined], [['a', 'b'], ['c', 'd']], [[], []], [1, 2n], [{ type: 25, value: 'v' }], 'not an array', null];
  for (const xs of inputs) t.equal(serializeArray(xs, null), client.serialize(xs), `serialized ${String(JSON.stringify(xs, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)))}`);
  for (const text of ['{}', '{a}', '{a,b,c}', '{"a b","c,d","e\\"f","g\\\\h",""}', '{{a,b},{c,d}}', '{node_01,node_02}', '{"NULL"}']) {
    t.same(parseTextArray(text), client.parse(text), text);
  }
  t.same(client.parse('{a,NULL}'), ['a', 'NULL'], 'the client\'s parser took a null element for the string NULL');
  t.same(parseTextArray('{a,NULL}'), ['a', null]);
});

t.test('text no text[] output looks like is refused', async (t) => {
  for (const text of ['', 'a,b', '{a,b', '{a,,b}', '{"a}', '{"a\\}', '{a}x', '{a{b}}', '[0:1]{a,b}', '{"a"b}', '{,}', '{a,}', '{,a}', '{a}b}', '{a,b}}']) {
    t.throws(() => parseTextArray(text), TypeError, JSON.stringify(text));
  }
});
