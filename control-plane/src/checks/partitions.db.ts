import type { SqlExecutor } from '../contracts.js';

/*
 * DDL of the check history's partitions (0025_checks.sql). Partition names and bounds are built
 * only from dates formatted here (never from input), so the statements are safe to assemble.
 */

/**
 * Partitioned tables of the check history and how each is cut; `storage`: options each partition
 * is created with (check_blocks: blocks up to a page's size stay in line, never TOASTed;
 * check_rounds: room on each page so that the reports every node adds to a round are HOT updates,
 * 0102_check_rounds_fillfactor.sql).
 */
export const PARTITIONED = {
  checks: { key: 'scheduled_at', unit: 'day' },
  check_batches: { key: 'first_at', unit: 'day' },
  check_blocks: { key: 'hour', unit: 'day', storage: 'toast_tuple_target = 8160' },
  check_rounds: { key: 'scheduled_at', unit: 'day', storage: 'fillfactor = 60' },
  check_rollups: { key: 'hour', unit: 'month' },
  check_rollups_daily: { key: 'day', unit: 'month' },
  round_rollups: { key: 'hour', unit: 'month' },
  round_rollups_daily: { key: 'day', unit: 'month' },
} as const;
export type PartitionedTable = keyof typeof PARTITIONED;

/** One dated partition: its table name and bounds [from, to). */
export interface Partition {
  name: string;
  from: Date;
  to: Date;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** The partition of `table` holding instant `at` (UTC days or months). */
export function partitionFor(table: PartitionedTable, at: Date): Partition {
  if (PARTITIONED[table].unit === 'day') {
    const from = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
    const to = new Date(from.getTime() + 86_400_000);
    return { name: `${table}_p${from.getUTCFullYear()}${pad(from.getUTCMonth() + 1)}${pad(from.getUTCDate())}`, from, to };
  }
  const from = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  const to = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
  return { name: `${table}_p${from.getUTCFullYear()}${pad(from.getUTCMonth() + 1)}`, from, to };
}

/** The dated partitions `table` has now (the DEFAULT partition left out), oldest first. */
export async function listPartitions(sql: SqlExecutor, table: PartitionedTable): Promise<Partition[]> {
  const rows = await sql<{ name: string }[]>`
    SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = ${table}::regclass ORDER BY c.relname`;
  const out: Partition[] = [];
  for (const { name } of rows) {
    const m = /_p(\d{4})(\d{2})(\d{2})?$/.exec(name);
    if (!m) continue;
    const at = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, m[3] ? Number(m[3]) : 1));
    out.push(partitionFor(table, at));
  }
  return out;
}

const iso = (d: Date) => d.toISOString();

/**
 * Create partition `p` of `table` without blocking writers for long: a plain table shaped like
 * the parent gets the rows the DEFAULT partition holds for its range, then is attached (ATTACH
 * needs only a SHARE UPDATE EXCLUSIVE lock on the parent; the parent's indexes and foreign keys
 * are built or cloned on it). `storage` (e.g. `toast_tuple_target = 128`; default the table's
 * PARTITIONED storage) is set on the new table.
 * Call inside a transaction.
 */
export async function createPartition(tx: SqlExecutor, table: PartitionedTable, p: Partition, storage?: string): Promise<void> {
  const key = PARTITIONED[table].key;
  const spec = PARTITIONED[table] as { storage?: string };
  const with_ = storage ?? spec.storage;
  await tx.unsafe(`CREATE TABLE ${p.name} (LIKE ${table} INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE INCLUDING COMPRESSION)${with_ ? ` WITH (${with_})` : ''}`);
  await tx.unsafe(`WITH moved AS (DELETE FROM ${table}_default WHERE ${key} >= '${iso(p.from)}' AND ${key} < '${iso(p.to)}' RETURNING *)
    INSERT INTO ${p.name} SELECT * FROM moved`);
  await tx.unsafe(`ALTER TABLE ${table} ATTACH PARTITION ${p.name} FOR VALUES FROM ('${iso(p.from)}') TO ('${iso(p.to)}')`);
}

/** Drop partition `name` of `table` with its rows. Call inside a transaction. */
export async function dropPartition(tx: SqlExecutor, table: PartitionedTable, name: string): Promise<void> {
  await tx.unsafe(`ALTER TABLE ${table} DETACH PARTITION ${name}`);
  await tx.unsafe(`DROP TABLE ${name}`);
}

/** Delete rows of `table`'s DEFAULT partition older than `before`. @returns how many */
export async function pruneDefault(tx: SqlExecutor, table: PartitionedTable, before: Date): Promise<number> {
  const rows = await tx.unsafe(`DELETE FROM ${table}_default WHERE ${PARTITIONED[table].key} < '${iso(before)}'`);
  return rows.count;
}
