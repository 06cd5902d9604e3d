import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import * as zxcvbnCommon from '@zxcvbn-ts/language-common';
import * as zxcvbnEn from '@zxcvbn-ts/language-en';
import type { PasswordWeakDetails } from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';
import { ApiError } from '../errors.js';

/**
 * Characters of a password the estimator looks at, and the most l33t substitutions it tries:
 * zxcvbn-ts' defaults (256, 100) let a crafted 1024-character password hold the event loop for
 * over a second; with these the worst input measured took about 75 ms, a usual one 3-15 ms. A
 * password is judged by its first 100 characters (longer ones are long enough).
 */
const MAX_LENGTH = 100;
const L33T_MAX_SUBSTITUTIONS = 8;

let estimator: ZxcvbnFactory | undefined;
/**
 * The estimator with the common and English dictionaries (passwords, names, Wikipedia words),
 * built once on first use: about 230 ms and 60 MB the first time, nothing after.
 */
function zxcvbn(): ZxcvbnFactory {
  estimator ??= new ZxcvbnFactory({
    dictionary: { ...zxcvbnCommon.dictionary, ...zxcvbnEn.dictionary },
    graphs: zxcvbnCommon.adjacencyGraphs,
    translations: zxcvbnEn.translations,
    maxLength: MAX_LENGTH,
    l33tMaxSubstitutions: L33T_MAX_SUBSTITUTIONS,
  });
  return estimator;
}

/**
 * Words about the account a password should not lean on: the whole e-mail address, its local part
 * as is, joined and split on `.`, `_`, `-` and `+`, the domain's labels but the last, and the
 * name joined and word by word (2 characters or more each).
 * @example userInputs('ada.lovelace@example.com', 'Ada L') → ['ada.lovelace@example.com', 'ada.lovelace', 'adalovelace', 'ada', 'lovelace', 'example']
 */
export function userInputs(email: string, name?: string | null): string[] {
  const address = email.trim().toLowerCase();
  const [local = '', domain = ''] = address.split('@');
  const sep = /[\s._+-]+/;
  const fullName = (name ?? '').trim().toLowerCase();
  const words = [
    address, local, local.split(sep).join(''), ...local.split(sep), ...domain.split('.').slice(0, -1),
    fullName.split(sep).join(''), ...fullName.split(sep),
  ];
  return [...new Set(words.filter((w) => w.length >= 2))];
}

/**
 * Score `password` with zxcvbn-ts (0-4; Wheeler, USENIX Security 2016), with `inputs`
 * ({@link userInputs}) as known words. Synchronous: 3-15 ms usually, about 75 ms at worst.
 */
export function passwordStrength(password: string, inputs: string[]): Omit<PasswordWeakDetails, 'min_score'> {
  const r = zxcvbn().check(password.normalize('NFC'), inputs);
  return { score: r.score, warning: r.feedback.warning ?? '', suggestions: r.feedback.suggestions };
}

/**
 * Refuse a password weaker than `config.password_min_score` (VANTAGE_PASSWORD_MIN_SCORE; docs/api/accounts.md
 * "Passwords"), judged knowing the account's e-mail and name. Every place a password is chosen calls
 * it before hashing: registration, change, reset, accounts an administrator creates with a password.
 * @param field the body field holding the password, named in `details.fields` (`password`, `new_password`)
 * @throws ApiError 400 AUTH_PASSWORD_WEAK with `details {score, min_score, warning, suggestions, fields}`
 */
export function assertStrongPassword(config: Pick<Config, 'password_min_score'>, password: string, account: { email: string; name?: string | null }, field = 'password'): void {
  const min_score = config.password_min_score;
  if (min_score === 0) return;
  const s = passwordStrength(password, userInputs(account.email, account.name));
  if (s.score >= min_score) return;
  const details: PasswordWeakDetails = { score: s.score, min_score, warning: s.warning, suggestions: s.suggestions };
  throw new ApiError('AUTH_PASSWORD_WEAK', `this password is too easy to guess (strength ${s.score} of 4, at least ${min_score} needed)${s.warning ? `: ${s.warning}` : ''}`, {
    ...details, fields: [{ path: field, message: s.warning || 'too easy to guess' }],
  });
}
