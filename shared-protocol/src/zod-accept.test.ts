import { isDeepStrictEqual } from 'node:util';
import t from 'tap';
import { z } from 'zod';
import { ID_PREFIXES, newId, type IdKind } from './ids.js';
import { monitorResultEnvelopeSchema, taskResultEnvelopeSchema } from './node-protocol/messages.js';
import { compileAccept } from './zod-accept.js';

/** The promise of compileAccept: a yes means zod accepts the value and returns it unchanged. */
function kept(schema: z.ZodType, value: unknown): boolean {
  const parsed = schema.safeParse(value);
  return parsed.success && isDeepStrictEqual(parsed.data, value);
}

t.test('compileAccept: yes only where zod returns the value itself', async (t) => {
  const schema = z.object({
    id: z.string().refine((v) => v.startsWith('m_'), 'must be a monitor id'),
    at: z.iso.datetime(),
    n: z.number().int().min(0).max(10),
    tag: z.enum(['a', 'b']),
    note: z.string().max(3).nullable(),
    extra: z.boolean().optional(),
    list: z.array(z.object({ k: z.literal('x'), v: z.unknown() })).max(2),
    map: z.record(z.string().max(4), z.number()),
  });
  const accept = compileAccept(schema);
  const base = { id: 'm_1', at: '2026-11-30T10:00:00.000Z', n: 3, tag: 'a', note: null, list: [{ k: 'x', v: { any: [1] } }], map: { ab: 1 } };
  const cases: Array<[string, unknown, boolean]> = [
    ['a valid value', base, true],
    ['keys in another order', Object.fromEntries(Object.entries(base).reverse()), true],
    ['an optional key present', { ...base, extra: false }, true],
    ['an unknown key (zod strips it)', { ...base, other: 1 }, false],
    ['a required key missing', { ...base, id: undefined }, false],
    ['a refinement failing', { ...base, id: 'x_1' }, false],
    ['a format failing', { ...base, at: '2026-11-30 10:00' }, false],
    ['a number past its bound', { ...base, n: 11 }, false],
    ['a non-integer', { ...base, n: 1.5 }, false],
    ['a string past its length', { ...base, note: 'abcd' }, false],
    ['an enum value not listed', { ...base, tag: 'c' }, false],
    ['an array past its length', { ...base, list: [base.list[0], base.list[0], base.list[0]] }, false],
    ['an element of the wrong shape', { ...base, list: [{ k: 'y', v: 1 }] }, false],
    ['a record key past its length', { ...base, map: { abcde: 1 } }, false],
    ['a record holding __proto__ (zod leaves it out)', { ...base, map: JSON.parse('{"__proto__":1}') }, false],
    ['an object holding __proto__', JSON.parse(JSON.stringify(base).replace('{', '{"__proto__":{},')), false],
    ['not an object', [base], false],
    ['null', null, false],
  ];
  for (const [name, value, expected] of cases) {
    t.equal(accept(value), expected, name);
    if (expected) t.ok(kept(schema, value), `${name}: zod returns it unchanged`);
  }
  // The walk recovers from a failure: a valid value after an invalid one is still accepted.
  t.equal(accept({ ...base, n: -1 }), false);
  t.equal(accept(base), true, 'a valid value after a failed one');
});

t.test('compileAccept: what it does not know asks zod', async (t) => {
  const schemas: Array<[string, z.ZodType, unknown]> = [
    ['a default', z.object({ a: z.number().default(1) }), { a: 1 }],
    ['a transform', z.object({ a: z.string().transform((s) => s.length) }), { a: 'x' }],
    ['a pipe', z.object({ a: z.string().pipe(z.string()) }), { a: 'x' }],
    ['coercion', z.object({ a: z.coerce.number() }), { a: 1 }],
    ['a rewriting check', z.object({ a: z.string().trim() }), { a: ' x ' }],
    ['a plain union', z.object({ a: z.union([z.string(), z.number()]) }), { a: 1 }],
    ['a loose object', z.looseObject({ a: z.number() }), { a: 1, b: 2 }],
    ['a strict object with an extra key (zod refuses it)', z.strictObject({ a: z.number() }), { a: 1, b: 2 }],
    ['a lazy schema', z.object({ a: z.lazy(() => z.number()) }), { a: 1 }],
  ];
  for (const [name, schema, value] of schemas) t.equal(compileAccept(schema)(value), false, name);
  t.equal(compileAccept(z.strictObject({ a: z.number() }))({ a: 1 }), true, 'a strict object with its keys only');
});

t.test('compileAccept: a schema that holds itself is walked to any depth', async (t) => {
  const node = z.object({
    name: z.string().max(8),
    get children() {
      return z.array(node).max(3);
    },
  });
  const accept = compileAccept(node);
  const tree = { name: 'a', children: [{ name: 'b', children: [{ name: 'c', children: [] }] }, { name: 'd', children: [] }] };
  t.equal(accept(tree), true, 'a valid tree');
  t.ok(kept(node, tree), 'zod returns it unchanged');
  t.equal(accept({ name: 'a', children: [{ name: 'b', children: [{ name: 'far too long', children: [] }] }] }), false, 'a bad leaf three levels down');
  t.equal(accept({ name: 'a', children: [{ name: 'b', children: [{ name: 'c' }] }] }), false, 'a missing key three levels down');
});

// ─────────────── the result schemas: generated valid values and their mutants ───────────────

/** A tiny seeded PRNG (mulberry32), so a failure names a seed that reproduces it. */
function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const STRINGS = [
  ...Object.keys(ID_PREFIXES).map((k) => newId(k as IdKind)), '2026-11-30T10:00:00.000Z', 'example.com', '198.18.1.10', 'ok', '', 'x'.repeat(40),
];
const NUMBERS = [0, 1, 12.5, 57, 443, 3, 200, 0.25, 1e6];
const JSONS: unknown[] = [null, 1, 'x', true, [1, 'a'], { k: [null] }];

/** A value zod accepts for `s` (where one of the candidates fits), with random choices from `rand`. */
function sample(s: z.core.$ZodType, rand: () => number, depth = 0): unknown {
  const def = s._zod.def as unknown as Record<string, unknown> & { type: string };
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const fits = (xs: readonly unknown[]) => {
    const ok = xs.filter((x) => (s as z.ZodType).safeParse(x).success);
    return ok.length > 0 ? pick(ok) : xs[0];
  };
  switch (def.type) {
    case 'string': return fits(STRINGS);
    case 'number': return fits(NUMBERS);
    case 'boolean': return rand() < 0.5;
    case 'null': return null;
    case 'literal': return pick(def.values as unknown[]);
    case 'enum': return pick(Object.values(def.entries as Record<string, unknown>));
    case 'unknown': case 'any': return pick(JSONS);
    case 'nullable': return rand() < 0.3 ? null : sample(def.innerType as z.core.$ZodType, rand, depth);
    case 'optional': return rand() < 0.3 ? undefined : sample(def.innerType as z.core.$ZodType, rand, depth);
    case 'array': return Array.from({ length: depth > 4 ? 0 : Math.floor(rand() * 3) }, () => sample(def.element as z.core.$ZodType, rand, depth + 1));
    case 'record': return Object.fromEntries(Array.from({ length: Math.floor(rand() * 3) }, (_, i) => [`k${i}`, sample(def.valueType as z.core.$ZodType, rand, depth + 1)]));
    case 'union': return sample(pick(def.options as z.core.$ZodType[]), rand, depth);
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(def.shape as Record<string, z.core.$ZodType>)) {
        const x = sample(v, rand, depth + 1);
        if (x !== undefined) out[k] = x;
      }
      return out;
    }
    default: throw new Error(`no sample for ${def.type}`);
  }
}

/** Every [container, key] inside `v` (objects and arrays), for the mutations to pick from. */
function slots(v: unknown, out: Array<[Record<string, unknown> | unknown[], string | number]> = []) {
  if (Array.isArray(v)) v.forEach((x, i) => { out.push([v, i]); slots(x, out); });
  else if (typeof v === 'object' && v !== null) for (const [k, x] of Object.entries(v)) { out.push([v as Record<string, unknown>, k]); slots(x, out); }
  return out;
}

const REPLACEMENTS: unknown[] = [null, -1, 1.5, 1e15, '', 'x'.repeat(3000), 'not-a-date', true, [], {}, [null], { a: 1 }, 'm_bad', 'NaN'];

/** `v` changed in one random place: a key removed or added, a value replaced or an array grown. */
function mutate(v: unknown, rand: () => number): unknown {
  const copy = structuredClone(v);
  const all = slots(copy);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const kind = rand();
  if (all.length === 0 || kind < 0.1) {
    if (typeof copy === 'object' && copy !== null && !Array.isArray(copy)) (copy as Record<string, unknown>).unexpected = 1;
    return copy;
  }
  const [container, key] = pick(all);
  if (kind < 0.25 && !Array.isArray(container)) delete container[key as string];
  else if (kind < 0.35) {
    const target = (container as Record<string | number, unknown>)[key];
    if (typeof target === 'object' && target !== null && !Array.isArray(target)) (target as Record<string, unknown>)[pick(['extra', 'type', '__proto__', 'ok'])] = pick(REPLACEMENTS);
    else if (Array.isArray(target)) for (let i = 0; i < 60; i++) target.push(target[0] ?? pick(REPLACEMENTS));
  } else (container as Record<string | number, unknown>)[key] = pick(REPLACEMENTS);
  return copy;
}

for (const [name, schema] of [['monitor results', monitorResultEnvelopeSchema], ['task results', taskResultEnvelopeSchema]] as const) {
  t.test(`compileAccept on ${name}: every generated result is taken as it is; no mutant is taken that zod would change or refuse`, async (t) => {
    const accept = compileAccept(schema);
    const options = (schema._zod.def as unknown as { options: z.core.$ZodType[] }).options;
    let valid = 0, mutants = 0, taken = 0;
    for (const [i, option] of options.entries()) {
      const type = (option._zod.def as unknown as { shape: { type: { _zod: { def: { values: string[] } } } } }).shape.type._zod.def.values[0];
      let of_type = 0;
      for (let seed = 0; seed < 40; seed++) {
        const rand = prng(i * 1000 + seed);
        // Through JSON, as a node's frame arrives.
        const value = JSON.parse(JSON.stringify(sample(option, rand))) as unknown;
        if (!kept(schema, value)) continue; // a cross-field rule the candidates missed
        valid++;
        of_type++;
        if (!accept(value)) t.fail(`${type} (seed ${seed}): a valid result was not taken as it is: ${JSON.stringify(value)}`);
        for (let m = 0; m < 25; m++) {
          const mutant = JSON.parse(JSON.stringify(mutate(value, rand)) ?? 'null') as unknown;
          mutants++;
          if (!accept(mutant)) continue;
          taken++;
          if (!kept(schema, mutant)) t.fail(`${type} (seed ${seed}, mutant ${m}): taken, but zod ${schema.safeParse(mutant).success ? 'changes' : 'refuses'} it: ${JSON.stringify(mutant)}`);
        }
      }
      t.ok(of_type >= 10, `${type}: ${of_type} valid results generated`);
    }
    t.comment(`${valid} valid results, ${mutants} mutants (${taken} of them still valid and taken)`);
  });
}
