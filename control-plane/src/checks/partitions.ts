import type { Sql } from '../db/sql.js';
import type { SqlExecutor } from '../contracts.js';
import { createPartition, dropPartition, listPartitions, partitionFor, pruneDefault, PARTITIONED, type Partition, type PartitionedTable } from './partitions.db.js';
import type { CheckRetention } from './retention.js';

const DAY_MS = 86_400_000;
/** Days of daily partitions kept ready ahead of today (a node's clock may run up to a day ahead). */
export const PARTITION_DAYS_AHEAD = 3;
/** How long partition DDL waits for a lock before giving up until the next run, ms. */
const LOCK_TIMEOUT_MS = 5_000;

/*
 * Each partition is created or dropped in a transaction of its own (docs/architecture/checks.md
 * "Storage"). ATTACH takes an ACCESS EXCLUSIVE lock on the table's DEFAULT partition, DETACH one
 * on the parent; a transaction that went on to the next table while holding them locked two
 * tables in the order checks, check_rounds, while ingest and the verdict job's claim lock the
 * partitions of check_rounds before those of checks (a claim plans both tables in one
 * statement): "deadlock detected", and Postgres may cancel the ingest rather than the job. Holding
 * the locks of one table only, the job can wait for others but never while they wait for it.
 */

/**
 * Run `fn` in a transaction of its own, serialised with every instance's partition DDL, with a lock
 * timeout (a lock not had within it fails the transaction: the caller retries on its next run).
 */
export async function partitionDdl<T>(sql: Sql, fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(hashtext('vantage.check_partitions'))`;
    await tx.unsafe(`SET LOCAL lock_timeout = ${LOCK_TIMEOUT_MS}`);
    return fn(tx);
  }) as Promise<T>;
}

/** Whether `table` has partition `name` now. */
const has = async (tx: SqlExecutor, table: PartitionedTable, name: string) => (await listPartitions(tx, table)).some((p) => p.name === name);

/** The partitions of `table` that should exist around `now`. */
function wantedAround(table: PartitionedTable, now: Date): Partition[] {
  if (PARTITIONED[table].unit === 'day') {
    return Array.from({ length: PARTITION_DAYS_AHEAD + 2 }, (_, i) => partitionFor(table, new Date(now.getTime() + (i - 1) * DAY_MS)));
  }
  const current = partitionFor(table, now);
  return [current, partitionFor(table, current.to)];
}

/**
 * Make sure the partitions around `now` exist (docs/architecture/checks.md "Storage"): daily ones
 * for raw checks and rounds from yesterday to PARTITION_DAYS_AHEAD days ahead, monthly ones for
 * rollups for this month and the next. Rows that landed in a DEFAULT partition meanwhile move
 * into the partition created for them. Each partition is made in a transaction of its own (never
 * nested in the caller's: call it outside any transaction). Idempotent; safe on several instances
 * at once; a partition made before an error stays.
 * @returns names of the partitions created
 */
export async function ensurePartitions(sql: Sql, now: Date = new Date()): Promise<string[]> {
  const created: string[] = [];
  for (const table of Object.keys(PARTITIONED) as PartitionedTable[]) {
    const have = new Set((await listPartitions(sql, table)).map((p) => p.name));
    for (const p of wantedAround(table, now)) {
      if (have.has(p.name)) continue;
      const made = await partitionDdl(sql, async (tx) => {
        if (await has(tx, table, p.name)) return false; // made by another instance meanwhile
        await createPartition(tx, table, p);
        return true;
      });
      if (made) created.push(p.name);
    }
  }
  return created;
}

/**
 * Make sure the partition of `table` holding instant `at` exists (the pack job writes blocks of
 * days long past: pack.ts), in a transaction of its own. @returns whether it was created now
 */
export async function ensurePartitionFor(sql: Sql, table: PartitionedTable, at: Date): Promise<boolean> {
  const p = partitionFor(table, at);
  if (await has(sql, table, p.name)) return false;
  return partitionDdl(sql, async (tx) => {
    if (await has(tx, table, p.name)) return false;
    await createPartition(tx, table, p);
    return true;
  });
}

/**
 * Drop what is past its retention at `now`: daily partitions of raw checks and of rounds that end
 * before `raw_days` and `rounds_days` ago (packed checks: as raw checks), monthly rollup partitions that end before `rollup_days`
 * ago (whole partitions: a day or a month is kept until all of it is old enough), the same rows
 * from the DEFAULT partitions. Each partition is dropped in a transaction of its own (call it
 * outside any transaction).
 * @returns names of the partitions dropped and rows deleted from DEFAULT partitions
 */
export async function dropExpiredPartitions(sql: Sql, retention: CheckRetention, now: Date = new Date()): Promise<{ dropped: string[]; default_rows: number }> {
  const dropped: string[] = [];
  let default_rows = 0;
  for (const table of Object.keys(PARTITIONED) as PartitionedTable[]) {
    // Packed checks (check_blocks) are the raw checks of older days: kept as long.
    const days = table === 'checks' || table === 'check_batches' || table === 'check_blocks' ? retention.raw_days : table === 'check_rounds' ? retention.rounds_days : retention.rollup_days;
    const cutoff = new Date(now.getTime() - days * DAY_MS);
    for (const p of await listPartitions(sql, table)) {
      if (p.to.getTime() > cutoff.getTime()) continue;
      const gone = await partitionDdl(sql, async (tx) => {
        if (!await has(tx, table, p.name)) return false; // dropped by another instance meanwhile
        await dropPartition(tx, table, p.name);
        return true;
      });
      if (gone) dropped.push(p.name);
    }
    default_rows += await pruneDefault(sql, table, cutoff);
  }
  return { dropped, default_rows };
}
