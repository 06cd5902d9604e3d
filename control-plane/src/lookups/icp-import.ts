/*
 * Load ICP filing records into the database from a CSV or JSON Lines file (docs/api/lookups.md
 * "ICP filing", import format), the operator's way to load or refresh the data set without the API:
 *
 *   npx tsx control-plane/src/lookups/icp-import.ts FILE [--replace]
 *
 * The database comes from VANTAGE_DATABASE_URL (or DATABASE_URL), as for the control plane; its
 * migrations must have run (start the control plane once). `--replace` makes the file the whole
 * set (records not in it are removed); without it records are added or replace those of the same
 * registrable domain. Nothing is written when any line is bad: the error names the line and field.
 */
import { readFile } from 'node:fs/promises';
import { loadConfig } from '../config/index.js';
import { connect } from '../db/sql.js';
import { importIcpRecords } from './icp.db.js';
import { parseIcpFile } from './icp.js';

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--'));
if (!file || args.some((a) => a.startsWith('--') && a !== '--replace')) {
  process.stderr.write('usage: icp-import.ts FILE [--replace]\n');
  process.exit(2);
}
const config = loadConfig();
if (!config.database_url) {
  process.stderr.write('icp-import: set VANTAGE_DATABASE_URL (or DATABASE_URL) to the control plane\'s database\n');
  process.exit(2);
}
let rows;
try {
  rows = parseIcpFile(await readFile(file, 'utf8'));
} catch (err) {
  process.stderr.write(`icp-import: ${file}: ${(err as Error).message}\n`);
  process.exit(1);
}
const sql = connect(config.database_url, 1);
try {
  const { imported, total } = await importIcpRecords(sql, rows, args.includes('--replace'));
  process.stdout.write(`imported ${imported} ICP records from ${file}; ${total} in the data set\n`);
} finally {
  await sql.end({ timeout: 5 });
}
