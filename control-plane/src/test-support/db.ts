import { randomBytes } from 'node:crypto';
import { connect, type Sql } from '../db/sql.js';
import { migrate } from '../db/migrate.js';

/** Admin URL of the real Postgres server tests use (test/env/postgres.sh: trust auth on 127.0.0.1:5432). */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

interface Teardown { teardown(fn: () => unknown): void }

/**
 * A fresh, migrated database on the test server for one test file, dropped at teardown, so test
 * files run in parallel without sharing rows.
 * @returns `{ url, sql }`: the database URL (for a second instance or a child process) and a client
 */
export async function testDatabase(t: Teardown): Promise<{ url: string; sql: Sql }> {
  const name = `vantage_t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = connect(TEST_DATABASE_URL, 1);
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const u = new URL(TEST_DATABASE_URL);
  u.pathname = `/${name}`;
  const url = u.toString();
  const sql = connect(url, 10);
  await migrate(sql);
  t.teardown(async () => {
    await sql.end({ timeout: 5 });
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end({ timeout: 5 });
  });
  return { url, sql };
}
