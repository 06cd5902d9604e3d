import { performance } from 'node:perf_hooks';
import t from 'tap';
import { ApiError } from '../errors.js';
import { assertStrongPassword, passwordStrength, userInputs } from './password-strength.js';

const config = { password_min_score: 3 };

async function refusal(p: Promise<void>): Promise<ApiError> {
  try { await p; } catch (err) { if (err instanceof ApiError) return err; throw err; }
  throw new Error('expected a refusal');
}

t.test('cost: first use loads the dictionaries once; crafted long inputs stay bounded', async (t) => {
  const s = performance.now();
  await passwordStrength('warm-up', []);
  t.comment(`first check (worker started, dictionaries loaded) ${(performance.now() - s).toFixed(0)} ms`);
  let total = 0;
  for (let i = 0; i < 50; i++) { const a = performance.now(); await passwordStrength(`pw-${i}-${Math.random().toString(36).slice(2)}`, ['user@example.test']); total += performance.now() - a; }
  t.comment(`usual check ${(total / 50).toFixed(1)} ms on average`);
  let worst = 0;
  for (const crafted of ['aB3$'.repeat(256), 'p@ssw0rd'.repeat(128), '4@3$1!0'.repeat(146), '1!|'.repeat(341)]) {
    const a = performance.now(); await passwordStrength(crafted, ['user@example.test']); worst = Math.max(worst, performance.now() - a);
  }
  t.comment(`worst crafted 1024-character input ${worst.toFixed(0)} ms`);
  t.ok(worst < 1000, 'a crafted 1024-character password is judged in under a second (unbounded: over a second each)');
});

t.test('a check runs in the strength worker: the event loop keeps turning, concurrent checks get their own answers', async (t) => {
  await passwordStrength('warm-up', []);
  let ticks = 0;
  const iv = setInterval(() => ticks++, 1);
  const crafted = 'aB3$'.repeat(256);
  const a = performance.now();
  await passwordStrength(crafted, ['user@example.test']);
  const took = performance.now() - a;
  clearInterval(iv);
  t.comment(`crafted check ${took.toFixed(0)} ms, ${ticks} timer ticks meanwhile`);
  t.ok(ticks > 0, 'timers ran while the password was judged (on the event loop, none could)');
  const passwords = ['password1', 'correct horse battery staple', 'qwertyuiop', 'zorblaxquintavius1', 'P@ssw0rd!', 'staple-orbit-lantern-42'];
  const alone: unknown[] = [];
  for (const p of passwords) alone.push(await passwordStrength(p, ['someone@example.test']));
  const together = await Promise.all(passwords.map((p) => passwordStrength(p, ['someone@example.test'])));
  t.same(together, alone, 'each of six concurrent checks gets the answer it gets alone');
});

t.test('user inputs: the address, its parts and the name', async (t) => {
  t.same(userInputs('Ada.Lovelace+vantage@Example.com', 'Ada K. Lovelace'), [
    'ada.lovelace+vantage@example.com', 'ada.lovelace+vantage', 'adalovelacevantage', 'ada', 'lovelace', 'vantage', 'example', 'adaklovelace',
  ]);
  t.same(userInputs('x@y.io'), ['x@y.io']);
});

t.test('common and short-pattern passwords are refused with the estimator\'s feedback', async (t) => {
  for (const weak of ['password1', 'longenough', 'qwertyuiop', '12345678', 'P@ssw0rd!', 'aaaaaaaaaaaa']) {
    const err = await refusal(assertStrongPassword(config, weak, { email: 'someone@example.test' }));
    t.equal(err.code, 'AUTH_PASSWORD_WEAK', weak);
    t.equal(err.status, 400);
    t.match(err.details, { score: Number, min_score: 3, warning: String, suggestions: Array, fields: [{ path: 'password' }] });
    t.ok((err.details!.score as number) < 3);
  }
  const err = await refusal(assertStrongPassword(config, 'password1', { email: 'a@example.test' }, 'new_password'));
  t.equal(err.details!.warning, 'This is a commonly used password.');
  t.match(err.details!.fields, [{ path: 'new_password' }], 'the field is named');
});

t.test('a password built from the account\'s own address or name is refused; the same for someone else passes', async (t) => {
  t.ok((await passwordStrength('zorblaxquintavius1', [])).score >= 3, 'strong for a stranger');
  t.equal((await refusal(assertStrongPassword(config, 'zorblaxquintavius1', { email: 'zorblax.quintavius@example.test' }))).code, 'AUTH_PASSWORD_WEAK');
  t.equal((await refusal(assertStrongPassword(config, 'quintaviuszorblax', { email: 'qz@example.test', name: 'Quintavius Zorblax' }))).code, 'AUTH_PASSWORD_WEAK');
  await t.resolves(assertStrongPassword(config, 'zorblaxquintavius1', { email: 'ada@example.test' }));
});

t.test('strong passwords pass; min score 0 turns the check off', async (t) => {
  for (const strong of ['staple-orbit-lantern-42', 'correct horse battery staple', 'pw-Xk3_9aQz1LmB']) {
    await t.resolves(assertStrongPassword(config, strong, { email: 'someone@example.test' }), strong);
  }
  await t.resolves(assertStrongPassword({ password_min_score: 0 }, 'password1', { email: 'someone@example.test' }));
  await t.rejects(assertStrongPassword({ password_min_score: 4 }, 'plain-password', { email: 'someone@example.test' }), { code: 'AUTH_PASSWORD_WEAK' });
});
