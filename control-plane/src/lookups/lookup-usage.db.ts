import type { Sql } from '../db/sql.js';

/** One row of metered lookup usage: calls of one access key to one lookup on one UTC day. */
export interface LookupUsageRow { access_key_id: string; lookup: string; day: string; count: number }

/** Count one metered call of `lookup` by access key `access_key_id` on today's UTC date (one upsert). */
export async function countLookupUsage(sql: Sql, access_key_id: string, lookup: string): Promise<void> {
  await sql`
    INSERT INTO lookup_usage (access_key_id, lookup, day, count)
    VALUES (${access_key_id}, ${lookup}, (now() AT TIME ZONE 'UTC')::date, 1)
    ON CONFLICT (access_key_id, lookup, day) DO UPDATE SET count = lookup_usage.count + 1`;
}

/**
 * Usage of every access key of `user_id` between two UTC dates (inclusive, `YYYY-MM-DD`),
 * newest day first, then key id.
 */
export async function listLookupUsage(sql: Sql, user_id: string, from: string, to: string): Promise<LookupUsageRow[]> {
  return sql<LookupUsageRow[]>`
    SELECT u.access_key_id, u.lookup, to_char(u.day, 'YYYY-MM-DD') AS day, u.count::int AS count
    FROM lookup_usage u JOIN access_keys k ON k.id = u.access_key_id
    WHERE k.user_id = ${user_id} AND u.day BETWEEN ${from}::date AND ${to}::date
    ORDER BY u.day DESC, u.access_key_id, u.lookup`;
}
