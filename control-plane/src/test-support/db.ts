import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { connect, type Sql } from '../db/sql.js';
import { migrate } from '../db/migrate.js';

/** Admin URL of the real Postgres server tests use (test/env/postgres.sh: trust auth on 127.0.0.1:5432). */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

interface Teardown { teardown(fn: () => unknown): void }

const MIGRATIONS_DIR = fileURLToPath(new URL('../db/migrations/', import.meta.url));

/** The URL of database `name` on the test server. */
const databaseUrl = (name: string): string => {
  const u = new URL(TEST_DATABASE_URL);
  u.pathname = `/${name}`;
  return u.toString();
};

/**
 * The name of the template database holding the migrated schema: `vantage_tpl_` and the first 16
 * hex of a SHA-256 over every migration's name and text, so a changed or added migration makes a
 * new template and a stale one is never used.
 */
function templateName(): string {
  const hash = createHash('sha256');
  for (const f of readdirSync(MIGRATIONS_DIR).filter((n) => n.endsWith('.sql')).sort()) hash.update(f).update('\0').update(readFileSync(MIGRATIONS_DIR + f)).update('\0');
  return `vantage_tpl_${hash.digest('hex').slice(0, 16)}`;
}

let template: Promise<string> | null = null;

/**
 * The migrated template database, built once per schema on the test server: the first caller
 * (any process: a session advisory lock on the one-connection admin client orders them) migrates
 * a scratch database and renames it into place, so nobody ever copies a half-migrated one.
 * Templates of other schemas are left alone (another checkout's run may be copying one); each is a
 * few MB. Copying the template (CREATE DATABASE … TEMPLATE) takes a fraction of the time running
 * the migrations in every test file took.
 */
function migratedTemplate(admin: Sql): Promise<string> {
  template ??= (async () => {
    const name = templateName();
    await admin`SELECT pg_advisory_lock(7261002)`;
    try {
      const [found] = await admin`SELECT 1 FROM pg_database WHERE datname = ${name}`;
      if (found) return name;
      const scratch = `${name}_build_${randomBytes(4).toString('hex')}`;
      await admin.unsafe(`CREATE DATABASE ${scratch}`);
      const sql = connect(databaseUrl(scratch), 1);
      try {
        await migrate(sql);
      } finally {
        await sql.end({ timeout: 5 });
      }
      await admin.unsafe(`ALTER DATABASE ${scratch} RENAME TO ${name}`);
      return name;
    } finally {
      await admin`SELECT pg_advisory_unlock(7261002)`.catch(() => undefined);
    }
  })();
  template.catch(() => { template = null; });
  return template;
}

/**
 * A fresh, migrated database on the test server for one test file, dropped at teardown, so test
 * files run in parallel without sharing rows: a copy of the migrated template (migratedTemplate),
 * then `migrate` (which finds nothing to apply, or applies what a concurrent change added).
 * @returns `{ url, sql }`: the database URL (for a second instance or a child process) and a client
 */
export async function testDatabase(t: Teardown): Promise<{ url: string; sql: Sql }> {
  const name = `vantage_t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = connect(TEST_DATABASE_URL, 1);
  await admin.unsafe(`CREATE DATABASE ${name} TEMPLATE ${await migratedTemplate(admin)}`);
  const url = databaseUrl(name);
  const sql = connect(url, 10);
  await migrate(sql);
  t.teardown(async () => {
    await sql.end({ timeout: 5 });
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end({ timeout: 5 });
  });
  return { url, sql };
}

/**
 * The `postgres` client's own parser and serializer of the array type `oid`, as a client without
 * db/sql.ts's `types` makes them on connecting: what db/int4-array.ts and db/text-array.ts are
 * compared with. The parser takes the whole column value (the client's array parsers are handed
 * the text after the opening brace).
 */
export async function clientArrayPair(t: Teardown, oid: number): Promise<{ parse: (text: string) => unknown; serialize: (xs: unknown) => unknown }> {
  const plain = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {}, transform: { undefined: null } });
  t.teardown(() => plain.end({ timeout: 5 }));
  await plain`SELECT 1`;
  const o = plain.options as unknown as { parsers: Record<number, ((x: string) => unknown) & { array?: boolean }>; serializers: Record<number, (x: unknown) => unknown> };
  const parse = o.parsers[oid]!;
  return { parse: (text: string) => parse(parse.array ? text.slice(1) : text), serialize: o.serializers[oid]! };
}
