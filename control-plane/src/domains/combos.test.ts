import t from 'tap';
import type { DomainComboSpec } from '@vantage/shared-protocol';
import { buildCombos, drawEvenly, effectiveCap, nameAt } from './combos.js';
import { WORD_LISTS } from './words.js';

/*
 * Counting and drawing checked against brute-force enumeration of small specs: every string of
 * each slot's alphabet built by nested loops, tokens with an excluded character dropped, the
 * cartesian product taken, and compared with the exact total and the full sample (a sample as
 * large as the total is every name once).
 */

const ALPHABETS: Record<string, string> = { number: '0123456789', letter: 'abcdefghijklmnopqrstuvwxyz', vowel: 'aeiou', consonant: 'bcdfghjklmnpqrstvwxyz' };

/** Every token of a slot, by enumeration. */
function bruteTokens(slot: DomainComboSpec['slots'][number], exclude: string): string[] {
  let tokens: string[];
  if (slot.kind === 'literal') tokens = [slot.literal!];
  else if (slot.kind === 'word') tokens = [...WORD_LISTS[slot.variant ?? 'tech']!];
  else {
    const alphabet = slot.variant === 'vowel' || slot.variant === 'consonant' ? ALPHABETS[slot.variant]! : ALPHABETS[slot.kind]!;
    const n = slot.variant === 'vowel' || slot.variant === 'consonant' ? 1 : Number(slot.variant ?? '1');
    tokens = [''];
    for (let p = 0; p < n; p++) tokens = tokens.flatMap((prefix) => [...alphabet].map((ch) => prefix + ch));
  }
  return tokens.filter((tok) => ![...tok].some((ch) => exclude.includes(ch)));
}

/** Every name of a spec, by enumeration. */
function bruteNames(spec: DomainComboSpec): string[] {
  let labels = [''];
  for (const slot of spec.slots) {
    const tokens = bruteTokens(slot, spec.exclude ?? '');
    labels = labels.flatMap((prefix) => tokens.map((tok) => prefix + tok));
  }
  return [...new Set(spec.tlds)].flatMap((tld) => labels.map((l) => `${l}.${tld}`));
}

const SPECS: DomainComboSpec[] = [
  { slots: [{ kind: 'number', variant: '2' }], tlds: ['com'] },
  { slots: [{ kind: 'letter', variant: '2' }, { kind: 'number' }], tlds: ['io', 'dev'], exclude: 'aeo3' },
  { slots: [{ kind: 'literal', literal: 'go' }, { kind: 'letter', variant: 'vowel' }, { kind: 'word', variant: 'color' }], tlds: ['net', 'net', 'org'], exclude: 'u' },
  { slots: [{ kind: 'word', variant: 'tech' }, { kind: 'literal', literal: 'x-ray' }, { kind: 'number', variant: '3' }], tlds: ['app'], exclude: '13579' },
  { slots: [{ kind: 'letter', variant: 'consonant' }, { kind: 'letter', variant: 'consonant' }], tlds: ['cn'], exclude: 'bcd' },
  { slots: [{ kind: 'literal', literal: 'shop' }, { kind: 'number' }], tlds: ['com'], exclude: 'p' },
];

t.test('totals and full samples equal brute-force enumeration', async (t) => {
  for (const spec of SPECS) {
    const brute = bruteNames(spec);
    const combos = buildCombos(spec);
    t.equal(combos.total, BigInt(brute.length), `total of ${JSON.stringify(spec)}`);
    const all = drawEvenly(combos, brute.length);
    t.same(all, brute, 'a sample of every name lists each once, in enumeration order');
  }
});

t.test('a capped sample is evenly spread, distinct, and made of real names', async (t) => {
  const spec: DomainComboSpec = { slots: [{ kind: 'letter', variant: '2' }, { kind: 'number', variant: '2' }], tlds: ['com', 'io'], exclude: 'z' };
  const brute = bruteNames(spec);
  const combos = buildCombos(spec);
  t.equal(combos.total, 2n * 25n * 25n * 100n);
  const sample = drawEvenly(combos, 1000);
  t.equal(sample.length, 1000);
  t.equal(new Set(sample).size, 1000, 'no repeats');
  const position = new Map(brute.map((n, i) => [n, i]));
  const at = sample.map((n) => position.get(n));
  t.notOk(at.includes(undefined), 'every drawn name is one of the enumeration');
  const step = brute.length / 1000;
  t.ok(at.every((p, k) => p === Math.floor(k * step)), 'the k-th draw is name floor(k * total / n)');
  t.equal(sample.filter((n) => n.endsWith('.io')).length, 500, 'each top-level domain gets its share');
});

t.test('big totals are exact, without enumeration', async (t) => {
  const spec: DomainComboSpec = { slots: [{ kind: 'letter', variant: '6' }, { kind: 'letter', variant: '6' }, { kind: 'number', variant: '6' }, { kind: 'letter', variant: '6' }], tlds: ['com', 'net', 'org'] };
  const combos = buildCombos(spec);
  const expected = 3n * 26n ** 18n * 10n ** 6n;
  t.equal(combos.total, expected);
  t.ok(combos.total > BigInt(Number.MAX_SAFE_INTEGER), 'beyond what a double holds exactly');
  t.equal(nameAt(combos, 0n), 'aaaaaaaaaaaa000000aaaaaa.com');
  t.equal(nameAt(combos, expected - 1n), 'zzzzzzzzzzzz999999zzzzzz.org');
  t.equal(drawEvenly(combos, 5000).length, 5000);
});

t.test('cap rules: <= 0 means 1000, clamped to 5000', async (t) => {
  t.equal(effectiveCap(undefined), 1000);
  t.equal(effectiveCap(0), 1000);
  t.equal(effectiveCap(-5), 1000);
  t.equal(effectiveCap(7), 7);
  t.equal(effectiveCap(5000), 5000);
  t.equal(effectiveCap(5001), 5000);
});

t.test('refused specs name the field', async (t) => {
  const cases: Array<[DomainComboSpec, string]> = [
    [{ slots: [{ kind: 'number', variant: '7' }], tlds: ['com'] }, 'slots[0].variant'],
    [{ slots: [{ kind: 'letter', variant: 'two' }], tlds: ['com'] }, 'slots[0].variant'],
    [{ slots: [{ kind: 'word', variant: 'klingon' }], tlds: ['com'] }, 'slots[0].variant'],
    [{ slots: [{ kind: 'number' }, { kind: 'literal' }], tlds: ['com'] }, 'slots[1].literal'],
    [{ slots: [{ kind: 'literal', literal: '-x' }], tlds: ['com'] }, 'slots[0].literal'],
    [{ slots: [{ kind: 'literal', literal: 'a--b' }], tlds: ['com'] }, 'slots[0].literal'],
    [{ slots: [{ kind: 'literal', literal: 'ab', variant: '1' }], tlds: ['com'] }, 'slots[0].variant'],
    [{ slots: [{ kind: 'number', literal: 'ab' }], tlds: ['com'] }, 'slots[0].literal'],
    [{ slots: [{ kind: 'literal', literal: 'a'.repeat(40) }, ...Array.from({ length: 4 }, () => ({ kind: 'letter' as const, variant: '6' }))], tlds: ['com'] }, 'slots'],
  ];
  for (const [spec, path] of cases) {
    t.throws(() => buildCombos(spec), { code: 'VALIDATION_FAILED', details: { fields: [{ path }] } }, path);
  }
});

t.test('an excluded character of a literal leaves no names', async (t) => {
  const combos = buildCombos({ slots: [{ kind: 'literal', literal: 'abc' }, { kind: 'number' }], tlds: ['com'], exclude: 'B' });
  t.equal(combos.total, 0n);
  t.same(drawEvenly(combos, 10), []);
});
