import type { SqlExecutor } from '../contracts.js';

/** Run `fn` in `ex` when it is a transaction already, else in a new transaction of it. */
export function inTransaction<T>(ex: SqlExecutor, fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
  return 'savepoint' in ex ? fn(ex) : (ex.begin((tx) => fn(tx)) as Promise<T>);
}

/**
 * Run `fn` atomically on `ex`: in a new transaction, or in a savepoint of `ex` when it is a
 * transaction already, so an error inside `fn` (a unique violation the caller turns into an
 * answer) rolls back only `fn`'s statements and leaves the outer transaction usable.
 */
export function atomically<T>(ex: SqlExecutor, fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
  return 'savepoint' in ex ? (ex.savepoint((sp) => fn(sp)) as Promise<T>) : (ex.begin((tx) => fn(tx)) as Promise<T>);
}
