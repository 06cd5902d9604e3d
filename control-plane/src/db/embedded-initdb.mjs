#!/usr/bin/env node
// Creates an embedded Postgres data folder (PGlite's initdb) at the path given as the only
// argument, in its own short-lived process (db/embedded.ts initEmbeddedDataDir): initdb runs a
// second PGlite instance and peaks near 0.9 GiB, memory a long-running process never gives back.
// Plain JavaScript so that it runs without the TypeScript loader. Exit status 0 once the folder
// is complete, 1 with the error on stderr.
import { PGlite } from '@electric-sql/pglite';

const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: embedded-initdb.mjs <data folder>\n');
  process.exit(2);
}
try {
  const db = await PGlite.create(dir);
  await db.close();
} catch (err) {
  process.stderr.write(`embedded Postgres initdb failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
