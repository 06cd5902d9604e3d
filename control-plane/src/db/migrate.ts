import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Sql } from './sql.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

/**
 * Apply forward-only numbered SQL migrations (`db/migrations/NNNN_name.sql`, in name order) that
 * this database has not seen, each in its own transaction, recording them in `schema_migrations`.
 * An advisory lock makes concurrent start-ups of several instances apply each file once.
 * @returns the names of the migrations applied now
 */
export async function migrate(sql: Sql): Promise<string[]> {
  const files = await migrationFiles();
  const applied: string[] = [];
  await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(7261001)`;
    await tx`CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`;
    const done = new Set((await tx<{ name: string }[]>`SELECT name FROM schema_migrations`).map((r) => r.name));
    for (const file of files) {
      if (done.has(file)) continue;
      const text = await readFile(MIGRATIONS_DIR + file, 'utf8');
      await tx.unsafe(text);
      await tx`INSERT INTO schema_migrations (name) VALUES (${file})`;
      applied.push(file);
    }
  });
  return applied;
}

async function migrationFiles(): Promise<string[]> {
  return (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f)).sort();
}

/**
 * Migrations this code has that the database has not applied (names, in order); empty when the
 * schema is current. A database without `schema_migrations` has every one pending.
 */
export async function pendingMigrations(sql: Sql): Promise<string[]> {
  const [row] = await sql<{ present: boolean }[]>`SELECT to_regclass('schema_migrations') IS NOT NULL AS present`;
  const done = row!.present ? new Set((await sql<{ name: string }[]>`SELECT name FROM schema_migrations`).map((r) => r.name)) : new Set<string>();
  return (await migrationFiles()).filter((f) => !done.has(f));
}
