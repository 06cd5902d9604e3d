import postgres from 'postgres';

/** The one `postgres` client of a process (porsager/postgres README: one `sql` instance). */
export type Sql = postgres.Sql<Record<string, never>>;

/**
 * Connect to Postgres at `url`. Timestamps come back as Date objects, bigint columns as numbers
 * when they fit (counts, ids we own never exceed 2^53).
 * @param max pool size
 */
export function connect(url: string, max = 10): Sql {
  return postgres(url, {
    max,
    onnotice: () => {},
    types: { bigint: postgres.BigInt },
    transform: { undefined: null },
  }) as unknown as Sql;
}
