import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { PasswordWeakDetails } from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';
import { ApiError } from '../errors.js';
import { STRENGTH_WORKER_SOURCE } from './password-strength-worker.js';

/**
 * Characters of a password the estimator looks at, and the most l33t substitutions it tries:
 * zxcvbn-ts' defaults (256, 100) let a crafted 1024-character password hold a thread for over a
 * second; with these the worst input measured took about 75 ms, a usual one 3-15 ms. A password
 * is judged by its first 100 characters (longer ones are long enough).
 */
const MAX_LENGTH = 100;
const L33T_MAX_SUBSTITUTIONS = 8;
/** Longest a check may take before the worker is taken for stuck, ms (the worst measured is ~75 ms, plus the estimator's first build). */
const CHECK_TIMEOUT_MS = 15_000;
/** The worker ends after this long without a check, ms (its heap is given back; the next check builds the estimator again). */
const IDLE_MS = 300_000;

/*
 * The estimator runs in a worker thread of its own, not on the event loop: a check holds its thread
 * 3-15 ms, a crafted long password 50-75 ms, and on the event loop every other request waited
 * that long (docs/benchmarks.md "Password checks off the event loop"); its dictionaries and the
 * built estimator (about 25 MB of long-lived heap) stay out of the main thread's heap too. One
 * worker per process, started by the first check, ended after IDLE_MS without one; it keeps the
 * process alive only while a check is pending.
 */
let worker: Worker | null = null;
let idle: NodeJS.Timeout | null = null;
let next_id = 1;
const pending = new Map<number, { resolve: (s: Strength) => void; reject: (err: Error) => void; timer: NodeJS.Timeout }>();

type Strength = Omit<PasswordWeakDetails, 'min_score'>;

/** The 503 a route that judges a new password may answer (its OpenAPI response's description). */
export const STRENGTH_UNAVAILABLE = 'UNAVAILABLE: the password strength check failed or did not answer within 15 s (nothing changed; retry)';
type Answer = { id: number; error: string } | ({ id: number } & Strength);

/** Settle every pending check with `err` and forget worker `w` (it failed, stopped or was stuck). */
function fail(w: Worker, err: Error): void {
  if (worker !== w) return;
  worker = null;
  void w.terminate();
  for (const p of pending.values()) {
    clearTimeout(p.timer);
    p.reject(err);
  }
  pending.clear();
}

function spawn(): Worker {
  const require = createRequire(import.meta.url);
  const w = new Worker(STRENGTH_WORKER_SOURCE, {
    // Plain CommonJS: none of the process's loaders (tsx, a test runner's hooks) is needed.
    eval: true, execArgv: [],
    workerData: {
      core: require.resolve('@zxcvbn-ts/core'), common: require.resolve('@zxcvbn-ts/language-common'), en: require.resolve('@zxcvbn-ts/language-en'),
      max_length: MAX_LENGTH, l33t_max_substitutions: L33T_MAX_SUBSTITUTIONS,
    },
  });
  const unavailable = (why: string) => new ApiError('UNAVAILABLE', `the password strength check is unavailable (${why}); retry`);
  w.on('message', (m: Answer) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    clearTimeout(p.timer);
    if ('error' in m) p.reject(unavailable(m.error));
    else p.resolve({ score: m.score, warning: m.warning, suggestions: m.suggestions });
    if (pending.size === 0) {
      w.unref();
      idle = setTimeout(() => {
        if (worker === w && pending.size === 0) {
          worker = null;
          void w.terminate();
        }
      }, IDLE_MS);
      idle.unref();
    }
  });
  w.on('error', (err) => fail(w, unavailable(err.message.slice(0, 200))));
  w.on('exit', (code) => fail(w, unavailable(`the worker stopped with code ${code}`)));
  return w;
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
 * ({@link userInputs}) as known words, in the strength worker: 3-15 ms of its thread usually, about
 * 75 ms at worst, about 230 ms more for the first check of a worker (the estimator is built).
 * @throws ApiError 503 UNAVAILABLE when the worker fails or does not answer within CHECK_TIMEOUT_MS
 *   (it is replaced: the next check starts a new one)
 */
export function passwordStrength(password: string, inputs: string[]): Promise<Strength> {
  if (idle) clearTimeout(idle);
  idle = null;
  const w = (worker ??= spawn());
  const id = next_id++;
  return new Promise<Strength>((resolve, reject) => {
    const timer = setTimeout(() => fail(w, new ApiError('UNAVAILABLE', `the password strength check did not answer within ${CHECK_TIMEOUT_MS} ms; retry`)), CHECK_TIMEOUT_MS);
    timer.unref();
    pending.set(id, { resolve, reject, timer });
    // Held while it has checks to answer (a pending check keeps the process alive), let go when idle.
    w.ref();
    try {
      w.postMessage({ id, password: password.normalize('NFC'), inputs });
    } catch (err) {
      // Not cloneable (inputs are strings, so not expected): this check fails alone.
      pending.delete(id);
      clearTimeout(timer);
      if (pending.size === 0) w.unref();
      reject(err instanceof Error ? err : new Error(String(err)));
    }
  });
}

/**
 * Refuse a password weaker than `config.password_min_score` (VANTAGE_PASSWORD_MIN_SCORE; docs/api/accounts.md
 * "Passwords"), judged knowing the account's e-mail and name. Every place a password is chosen calls
 * it before hashing: registration, change, reset, accounts an administrator creates with a password.
 * @param field the body field holding the password, named in `details.fields` (`password`, `new_password`)
 * @throws ApiError 400 AUTH_PASSWORD_WEAK with `details {score, min_score, warning, suggestions, fields}`;
 *   503 UNAVAILABLE when the strength worker fails (see {@link passwordStrength})
 */
export async function assertStrongPassword(config: Pick<Config, 'password_min_score'>, password: string, account: { email: string; name?: string | null }, field = 'password'): Promise<void> {
  const min_score = config.password_min_score;
  if (min_score === 0) return;
  const s = await passwordStrength(password, userInputs(account.email, account.name));
  if (s.score >= min_score) return;
  const details: PasswordWeakDetails = { score: s.score, min_score, warning: s.warning, suggestions: s.suggestions };
  throw new ApiError('AUTH_PASSWORD_WEAK', `this password is too easy to guess (strength ${s.score} of 4, at least ${min_score} needed)${s.warning ? `: ${s.warning}` : ''}`, {
    ...details, fields: [{ path: field, message: s.warning || 'too easy to guess' }],
  });
}
