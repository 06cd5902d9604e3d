import { createRequire } from 'node:module';
import type { PasswordWeakDetails } from '@vantage/shared-protocol';
import { createWorkerPool, type WorkerPool } from '../../../node-agent/src/checks/assertions/worker-pool.js';
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
/** Longest a check may run before the worker is taken for stuck and replaced, ms (the worst measured is ~75 ms, plus the estimator's first build). */
const CHECK_DEADLINE_MS = 15_000;
/** The worker's old-generation heap limit, MB (the dictionaries and the built estimator: about 60 MB). */
const HEAP_MAX_MB = 256;

type Strength = Omit<PasswordWeakDetails, 'min_score'>;

/** The 503 a route that judges a new password may answer (its OpenAPI response's description). */
export const STRENGTH_UNAVAILABLE = 'UNAVAILABLE: the password strength check failed or did not answer within 15 s (nothing changed; retry)';

/*
 * The estimator runs in a worker thread of its own (the agent's worker pool: one thread, jobs in
 * order, a deadline per job, a heap limit, replaced when it fails), not on the event loop: a check
 * holds its thread 3-15 ms, a crafted long password 50-75 ms, and on the event loop every other
 * request waited that long (docs/benchmarks.md "Password checks off the event loop"); its
 * dictionaries and the built estimator (about 25 MB of long-lived heap) stay out of the main
 * thread's heap too. Started by the first check; it keeps the process alive only while a check
 * is pending.
 */
let pool: WorkerPool | null = null;

function strengthPool(): WorkerPool {
  const require = createRequire(import.meta.url);
  pool ??= createWorkerPool({
    source: STRENGTH_WORKER_SOURCE, name: 'the password strength worker', deadline_ms: CHECK_DEADLINE_MS, heap_max_mb: HEAP_MAX_MB,
    worker_data: {
      core: require.resolve('@zxcvbn-ts/core'), common: require.resolve('@zxcvbn-ts/language-common'), en: require.resolve('@zxcvbn-ts/language-en'),
      max_length: MAX_LENGTH, l33t_max_substitutions: L33T_MAX_SUBSTITUTIONS,
    },
  });
  return pool;
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
 * @throws ApiError 503 UNAVAILABLE when the worker fails or a check runs past CHECK_DEADLINE_MS
 *   (the worker is replaced: the checks queued behind it run on the new one)
 */
export function passwordStrength(password: string, inputs: string[]): Promise<Strength> {
  const unavailable = (why: string) => new ApiError('UNAVAILABLE', `the password strength check is unavailable (${why}); retry`);
  return new Promise<Strength>((resolve, reject) => strengthPool().run({
    job: { password: password.normalize('NFC'), inputs },
    step() {},
    done(m) {
      const answer = m as Strength | { error: string };
      if ('error' in answer) reject(unavailable(answer.error));
      else resolve({ score: answer.score, warning: answer.warning, suggestions: answer.suggestions });
    },
    fail(error) {
      reject(unavailable(error));
      return null;
    },
  }));
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
