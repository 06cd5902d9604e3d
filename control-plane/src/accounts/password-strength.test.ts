import { performance } from 'node:perf_hooks';
import t from 'tap';
import { ApiError } from '../errors.js';
import { assertStrongPassword, passwordStrength, userInputs } from './password-strength.js';

const config = { password_min_score: 3 };

function refusal(fn: () => void): ApiError {
  try { fn(); } catch (err) { if (err instanceof ApiError) return err; throw err; }
  throw new Error('expected a refusal');
}

t.test('cost: first use loads the dictionaries once; crafted long inputs stay bounded', async (t) => {
  const s = performance.now();
  passwordStrength('warm-up', []);
  t.comment(`first check (dictionaries loaded if not yet) ${(performance.now() - s).toFixed(0)} ms`);
  let total = 0;
  for (let i = 0; i < 50; i++) { const a = performance.now(); passwordStrength(`pw-${i}-${Math.random().toString(36).slice(2)}`, ['user@example.test']); total += performance.now() - a; }
  t.comment(`usual check ${(total / 50).toFixed(1)} ms on average`);
  let worst = 0;
  for (const crafted of ['aB3$'.repeat(256), 'p@ssw0rd'.repeat(128), '4@3$1!0'.repeat(146), '1!|'.repeat(341)]) {
    const a = performance.now(); passwordStrength(crafted, ['user@example.test']); worst = Math.max(worst, performance.now() - a);
  }
  t.comment(`worst crafted 1024-character input ${worst.toFixed(0)} ms`);
  t.ok(worst < 1000, 'a crafted 1024-character password is judged in under a second (unbounded: over a second each)');
});

t.test('user inputs: the address, its parts and the name', async (t) => {
  t.same(userInputs('Ada.Lovelace+vantage@Example.com', 'Ada K. Lovelace'), [
    'ada.lovelace+vantage@example.com', 'ada.lovelace+vantage', 'adalovelacevantage', 'ada', 'lovelace', 'vantage', 'example', 'adaklovelace',
  ]);
  t.same(userInputs('x@y.io'), ['x@y.io']);
});

t.test('common and short-pattern passwords are refused with the estimator\'s feedback', async (t) => {
  for (const weak of ['password1', 'longenough', 'qwertyuiop', '12345678', 'P@ssw0rd!', 'aaaaaaaaaaaa']) {
    const err = refusal(() => assertStrongPassword(config, weak, { email: 'someone@example.test' }));
    t.equal(err.code, 'AUTH_PASSWORD_WEAK', weak);
    t.equal(err.status, 400);
    t.match(err.details, { score: Number, min_score: 3, warning: String, suggestions: Array, fields: [{ path: 'password' }] });
    t.ok((err.details!.score as number) < 3);
  }
  const err = refusal(() => assertStrongPassword(config, 'password1', { email: 'a@example.test' }, 'new_password'));
  t.equal(err.details!.warning, 'This is a commonly used password.');
  t.match(err.details!.fields, [{ path: 'new_password' }], 'the field is named');
});

t.test('a password built from the account\'s own address or name is refused; the same for someone else passes', async (t) => {
  t.ok(passwordStrength('zorblaxquintavius1', []).score >= 3, 'strong for a stranger');
  t.equal(refusal(() => assertStrongPassword(config, 'zorblaxquintavius1', { email: 'zorblax.quintavius@example.test' })).code, 'AUTH_PASSWORD_WEAK');
  t.equal(refusal(() => assertStrongPassword(config, 'quintaviuszorblax', { email: 'qz@example.test', name: 'Quintavius Zorblax' })).code, 'AUTH_PASSWORD_WEAK');
  t.doesNotThrow(() => assertStrongPassword(config, 'zorblaxquintavius1', { email: 'ada@example.test' }));
});

t.test('strong passwords pass; min score 0 turns the check off', async (t) => {
  for (const strong of ['staple-orbit-lantern-42', 'correct horse battery staple', 'pw-Xk3_9aQz1LmB']) {
    t.doesNotThrow(() => assertStrongPassword(config, strong, { email: 'someone@example.test' }), strong);
  }
  t.doesNotThrow(() => assertStrongPassword({ password_min_score: 0 }, 'password1', { email: 'someone@example.test' }));
  t.throws(() => assertStrongPassword({ password_min_score: 4 }, 'plain-password', { email: 'someone@example.test' }), { code: 'AUTH_PASSWORD_WEAK' });
});
