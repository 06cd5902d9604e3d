import postgres from 'postgres';

/** The one `postgres` client of a process (porsager/postgres README: one `sql` instance). */
export type Sql = postgres.Sql<Record<string, never>>;

/**
 * Reconnect delay after a failed connection attempt, seconds: 0.1 s doubling up to 2 s. The
 * `postgres` default (3^n / 100 s, up to 20 s, with a retry counter shared by the whole pool) left
 * the pool idle for 10-20 s after a 5 s database restart (test/faults scenario 4).
 */
export const RECONNECT_BACKOFF_S = (retries: number): number => Math.min(0.1 * 2 ** retries, 2);

/**
 * Connect to Postgres at `url`. Timestamps come back as Date objects, bigint columns as numbers
 * when they fit (counts, ids we own never exceed 2^53). Reconnects after
 * {@link RECONNECT_BACKOFF_S} when the server goes away.
 * @param max pool size
 */
export function connect(url: string, max = 10): Sql {
  return postgres(url, {
    max,
    backoff: RECONNECT_BACKOFF_S,
    onnotice: () => {},
    types: { bigint: postgres.BigInt },
    transform: { undefined: null },
  }) as unknown as Sql;
}
