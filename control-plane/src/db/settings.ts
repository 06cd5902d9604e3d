import type { Sql } from './sql.js';

/**
 * Read setting `name`, creating it with `initial` when absent. Concurrent first starts of several
 * instances all end up with the value of whichever insert won (ON CONFLICT DO NOTHING).
 */
export async function getOrCreateSetting(sql: Sql, name: string, initial: string): Promise<string> {
  await sql`INSERT INTO platform_settings (name, value) VALUES (${name}, ${initial}) ON CONFLICT (name) DO NOTHING`;
  const [row] = await sql<{ value: string }[]>`SELECT value FROM platform_settings WHERE name = ${name}`;
  return row!.value;
}
