import t from 'tap';
import { clientArrayPair, TEST_DATABASE_URL } from '../test-support/db.js';
import { serializeArray } from './array-text.js';
import { parseInt4Array } from './int4-array.js';
import { connect } from './sql.js';

const INT4_MIN = -2147483648;
const INT4_MAX = 2147483647;

t.test('int4[] columns read through the client: NULLs, negatives, bounds, empty, several dimensions, lower bounds', async (t) => {
  const sql = connect(TEST_DATABASE_URL, 1);
  t.teardown(() => sql.end({ timeout: 5 }));
  const [row] = await sql<Array<Record<string, unknown>>>`SELECT
    '{1,NULL,-3}'::int4[] AS nulls, '{}'::int4[] AS empty, ARRAY[NULL]::int4[] AS only_null,
    ARRAY[${INT4_MIN}, ${INT4_MAX}, 0, -0]::int4[] AS bounds, '{4194305,2143289344}'::int4[] AS packed,
    '{{1,2},{3,NULL}}'::int4[] AS two_d, '{{{1},{-2}}}'::int4[] AS three_d,
    '[0:1]={7,8}'::int4[] AS lower_bound, '[0:1][5:6]={{1,2},{3,4}}'::int4[] AS lower_bounds_2d,
    NULL::int4[] AS null_array`;
  t.same(row, {
    nulls: [1, null, -3], empty: [], only_null: [null],
    bounds: [INT4_MIN, INT4_MAX, 0, 0], packed: [4194305, 2143289344],
    two_d: [[1, 2], [3, null]], three_d: [[[1], [-2]]],
    lower_bound: [7, 8], lower_bounds_2d: [[1, 2], [3, 4]],
    null_array: null,
  });
  t.ok(Object.is((row!.bounds as number[])[3], 0), '-0 is sent by Postgres as 0');
});

t.test('int4[] parameters round-trip through Postgres, as the text Postgres reads them', async (t) => {
  const sql = connect(TEST_DATABASE_URL, 1);
  t.teardown(() => sql.end({ timeout: 5 }));
  const cases: Array<[unknown[], string]> = [
    [[1, null, -3], '{1,NULL,-3}'],
    [[], '{}'],
    [[INT4_MIN, INT4_MAX], '{-2147483648,2147483647}'],
    [[[1, 2], [3, null]], '{{1,2},{3,NULL}}'],
    [['5', 6n, undefined], '{5,6,NULL}'],
  ];
  for (const [xs, text] of cases) {
    const [r] = await sql<Array<{ text: string; back: unknown }>>`SELECT ${xs as never}::int4[]::text AS text, ${xs as never}::int4[] AS back`;
    t.equal(r!.text, text, `${JSON.stringify(xs, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))} is read as ${text}`);
    t.same(r!.back, parseInt4Array(text));
  }
  await t.rejects(sql`SELECT ${[INT4_MAX + 1]}::int4[]`, { code: '22003' }, 'out of range, as before');
});

t.test('the serializer writes what the client writes; the parser reads integer arrays as the client does', async (t) => {
  const client = await clientArrayPair(t, 1007);
  const typed = { type: 23, value: 9 };
  const inputs: unknown[] = [
    [], [0], [1, null, -3], [INT4_MIN, INT4_MAX], [[1, 2], [3, 4]], [[[1]], [[2]]], [[], []], ['7', 'a"b\\c', 8n, undefined], [typed, 1], [1.5], 'not an array', null,
  ];
  for (const xs of inputs) t.equal(serializeArray(xs, null), client.serialize(xs), `serialized ${String(JSON.stringify(xs, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)))}`);
  // Where the client's parser is right (no NULL elements, no lower bounds) the two agree.
  for (const text of ['{}', '{0}', '{1,-2,3}', '{-2147483648,2147483647}', '{{1,2},{3,4}}', '{{{1},{2}},{{3},{4}}}']) {
    t.same(parseInt4Array(text), client.parse(text), text);
  }
});

t.test('text no int4[] output looks like is refused', async (t) => {
  for (const text of ['', '1,2', '{1,2', '{1,,2}', '{1 ,2}', '{"1"}', '{1}x', '{NUL}', '{-}', '{+1}', '[0:1]{1,2}', '{1;2}']) {
    t.throws(() => parseInt4Array(text), TypeError, JSON.stringify(text));
  }
});
