import t from 'tap';
import {
  createApiKeyRequestSchema, createPatRequestSchema, loginRequestSchema, profilePatchSchema, refreshRequestSchema, registerRequestSchema,
} from './account.js';
import { findTextFault, textFault, textString } from './parse.js';

t.test('textFault: NUL and lone surrogates, nothing else', async (t) => {
  const cases: Array<[string, string, RegExp | null]> = [
    ['plain', 'hello', null],
    ['astral pair (emoji)', 'a😀b', null],
    ['CJK', '中文', null],
    ['empty', '', null],
    ['NUL', 'a\u0000b', /NUL/],
    ['lone high surrogate at the end', 'a\ud83d', /surrogate/],
    ['lone high surrogate before a letter', '\ud800x', /surrogate/],
    ['lone low surrogate', '\udc00', /surrogate/],
    ['reversed pair', '\ude00\ud83d', /surrogate/],
  ];
  for (const [name, s, want] of cases) {
    const got = textFault(s);
    if (want) t.match(got, want, name);
    else t.equal(got, null, name);
  }
});

t.test('findTextFault walks keys and values and names the path', async (t) => {
  t.equal(findTextFault({ a: [1, 'ok', { b: true }], c: null }), null);
  t.same(findTextFault({ a: [1, 'ok', { b: 'x\u0000' }] }), { path: 'a[2].b', message: 'must not contain NUL (U+0000)' });
  t.same(findTextFault({ headers: { 'x\ud800': 'v' } }), { path: 'headers.x\\ud800', message: 'key must not contain a lone UTF-16 surrogate' });
  t.same(findTextFault('\u0000'), { path: '', message: 'must not contain NUL (U+0000)' });
  const deep = JSON.parse(`${'['.repeat(20_000)}"\\u0000"${']'.repeat(20_000)}`);
  t.match(findTextFault(deep)?.message, /NUL/, 'any depth, no recursion');
});

t.test('textString and the account request schemas refuse NUL and lone surrogates', async (t) => {
  t.notOk(textString().safeParse('a\u0000').success);
  t.equal(textString().trim().max(3).parse(' ab '), 'ab', 'chains like z.string()');
  const bad: Array<[string, { safeParse(v: unknown): { success: boolean; error?: { issues: Array<{ path: PropertyKey[] }> } } }, unknown, string]> = [
    ['register email', registerRequestSchema, { email: 'a\u0000@example.test', password: 'long-enough' }, 'email'],
    ['register password', registerRequestSchema, { email: 'a@example.test', password: 'long-enough\ud800' }, 'password'],
    ['login email', loginRequestSchema, { email: 'a@example.test\u0000', password: 'x' }, 'email'],
    ['login password', loginRequestSchema, { email: 'a@example.test', password: '\udc00' }, 'password'],
    ['login otp', loginRequestSchema, { email: 'a@example.test', password: 'x', otp: '\u0000' }, 'otp'],
    ['refresh token', refreshRequestSchema, { refresh_token: 'rt_\ud800' }, 'refresh_token'],
    ['profile display_name', profilePatchSchema, { display_name: 'x\ud800' }, 'display_name'],
    ['profile bio', profilePatchSchema, { bio: 'x\udfff' }, 'bio'],
    ['profile timezone', profilePatchSchema, { timezone: 'UTC\u0000' }, 'timezone'],
    ['key name', createApiKeyRequestSchema, { name: 'k\ud800' }, 'name'],
    ['PAT name', createPatRequestSchema, { name: '\udbff' }, 'name'],
  ];
  for (const [name, schema, input, field] of bad) {
    const r = schema.safeParse(input);
    t.notOk(r.success, name);
    t.equal(r.error?.issues[0]?.path.join('.'), field, `${name}: names ${field}`);
  }
  t.ok(profilePatchSchema.safeParse({ display_name: 'Zoë 😀', bio: 'line\nline' }).success, 'clean text passes');
});
