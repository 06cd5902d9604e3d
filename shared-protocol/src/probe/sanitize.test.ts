import t from 'tap';
import { jsonMayHoldUnstorable, markSanitized, sanitizedOnce, sanitizeStrings, sanitizeText } from './sanitize.js';

t.test('NUL and lone surrogates become U+FFFD; everything else is kept', async (t) => {
  t.equal(sanitizeText('a\u0000b'), 'a\ufffdb');
  t.equal(sanitizeText('\ud800'), '\ufffd', 'lone high surrogate');
  t.equal(sanitizeText('x\udc00y'), 'x\ufffdy', 'lone low surrogate');
  t.equal(sanitizeText('\ud83d\ude00 ok'), '\ud83d\ude00 ok', 'a surrogate pair is one character, kept');
  t.equal(sanitizeText('\ude00\ud83d'), '\ufffd\ufffd', 'a reversed pair is two lone halves');
  t.equal(sanitizeText('tab\tand\u0001 control'), 'tab\tand\u0001 control', 'other control characters are storable');
  t.equal(sanitizeText(''), '');
});

t.test('sanitizeStrings walks objects, arrays and keys, and copies only what changes', async (t) => {
  const clean = { a: ['x', 1, null, true], b: { c: 'y' } };
  t.equal(sanitizeStrings(clean), clean, 'clean input is returned as is');
  const dirty = { output: { headers: { 'x-\u0000': 'v\ud800' }, answers: [{ value: 'txt\u0000' }, { value: 'ok' }] }, n: 3 };
  const out = sanitizeStrings(dirty);
  t.same(out, { output: { headers: { 'x-\ufffd': 'v\ufffd' }, answers: [{ value: 'txt\ufffd' }, { value: 'ok' }] }, n: 3 });
  t.equal(dirty.output.answers[0]!.value, 'txt\u0000', 'the input is not modified');
  t.equal(sanitizeStrings('\u0000'), '\ufffd');
  t.equal(sanitizeStrings(42), 42);
});

t.test('sanitizedOnce walks what is not marked, and returns what is marked as it is', async (t) => {
  const dirty = { error: 'x\u0000', output: { a: ['\ud800'] } };
  t.same(sanitizedOnce(dirty), { error: 'x\ufffd', output: { a: ['\ufffd'] } }, 'unmarked: sanitised as sanitizeStrings does');
  const built = markSanitized(sanitizeStrings({ error: 'y\u0000' }));
  t.equal(sanitizedOnce(built), built, 'marked: the same object, not walked again');
  t.equal(sanitizedOnce('\u0000'), '\ufffd', 'not an object: sanitised');
  t.equal(sanitizedOnce(null), null);
});

t.test('jsonMayHoldUnstorable clears only JSON text whose parse sanitising would not change', async (t) => {
  const cases: Array<[string, boolean]> = [
    ['{"a":"plain","b":[1,2,"x\\n\\t\\u0001"]}', false],
    ['{"a":"x\\u0000"}', true],
    ['{"a\\u0000":1}', true],
    ['{"a":"\\ud800"}', true],
    ['{"a":"\\uDC00"}', true],
    ['{"a":"\\ud83d\\ude00"}', true],
    ['{"a":"\\\\u0000"}', true],
    ['{"a":"\\u00e9\\u20ac\\uFFFD"}', false],
  ];
  for (const [text, expected] of cases) {
    t.equal(jsonMayHoldUnstorable(text), expected, `string ${text}`);
    t.equal(jsonMayHoldUnstorable(Buffer.from(text, 'utf8')), expected, `bytes ${text}`);
  }
  t.ok(jsonMayHoldUnstorable('{"a":"\ud800"}'), 'a JavaScript string holding a lone surrogate as a character');
  t.notOk(jsonMayHoldUnstorable(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d])),
    'bytes that try to encode a surrogate decode to U+FFFD: nothing to replace');
  t.equal(JSON.parse(Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22]).toString('utf8')), '\ufffd\ufffd\ufffd');

  // Whatever the text, a cleared one parses to a value sanitising leaves as it is.
  const units = ['a', 'é', '\u0000', '\u0001', '\ud800', '\udfff', '\ud83d\ude00', '\\', '"', '\ufffd', 'u0000'];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  let cleared = 0;
  const wrong: string[] = [];
  for (let i = 0; i < 2000; i++) {
    let s = '';
    const n = Math.floor(next() * 6);
    for (let j = 0; j < n; j++) s += units[Math.floor(next() * units.length)];
    const text = JSON.stringify({ [s]: [s, { v: s }] });
    for (const form of [text, Buffer.from(text, 'utf8')]) {
      if (jsonMayHoldUnstorable(form)) continue;
      cleared++;
      const parsed: unknown = JSON.parse(form.toString());
      if (sanitizeStrings(parsed) !== parsed) wrong.push(text);
    }
  }
  t.same(wrong, [], 'no cleared text needs sanitising');
  t.ok(cleared > 500, `${cleared} of 4000 texts and buffers cleared`);
});
