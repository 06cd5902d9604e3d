import t from 'tap';
import { markSanitized, sanitizedOnce, sanitizeStrings, sanitizeText } from './sanitize.js';

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
