import type { SqlExecutor } from '../contracts.js';
import type { Sql } from '../db/sql.js';
import { createPartition, dropPartition, listPartitions, partitionFor, pruneDefault, PARTITIONED, type PartitionedTable } from './partitions.db.js';
import type { CheckRetention } from './retention.js';

const DAY_MS = 86_400_000;
/** Days of daily partitions kept ready ahead of today (a node's clock may run up to a day ahead). */
export const PARTITION_DAYS_AHEAD = 3;
/** How long partition DDL waits for a lock before giving up until the next run, ms. */
const LOCK_TIMEOUT_MS = 5_000;

/** Serialises partition DDL of all instances (ensure at start-up and the claimed job); `tx` is a transaction. */
async function ddl<T>(tx: SqlExecutor, fn: () => Promise<T>): Promise<T> {
  await tx`SELECT pg_advisory_xact_lock(hashtext('vantage.check_partitions'))`;
  await tx.unsafe(`SET LOCAL lock_timeout = ${LOCK_TIMEOUT_MS}`);
  return fn();
}

/**
 * Make sure the partitions around `now` exist (docs/architecture/checks.md "Storage"): daily ones
 * for raw checks and rounds from yesterday to PARTITION_DAYS_AHEAD days ahead, monthly ones for
 * rollups for this month and the next. Rows that landed in a DEFAULT partition meanwhile move
 * into the partition created for them. Idempotent; safe on several instances at once.
 * @returns names of the partitions created
 */
export async function ensurePartitions(sql: Sql, now: Date = new Date()): Promise<string[]> {
  return sql.begin((tx) => ensurePartitionsIn(tx, now)) as Promise<string[]>;
}

/** {@link ensurePartitions} inside the caller's transaction `tx`. */
export async function ensurePartitionsIn(tx: SqlExecutor, now: Date = new Date()): Promise<string[]> {
  return ddl(tx, async () => {
    const created: string[] = [];
    for (const table of Object.keys(PARTITIONED) as PartitionedTable[]) {
      const have = new Set((await listPartitions(tx, table)).map((p) => p.name));
      const wanted = PARTITIONED[table].unit === 'day'
        ? Array.from({ length: PARTITION_DAYS_AHEAD + 2 }, (_, i) => partitionFor(table, new Date(now.getTime() + (i - 1) * DAY_MS)))
        : [partitionFor(table, now), partitionFor(table, new Date(partitionFor(table, now).to.getTime()))];
      for (const p of wanted) {
        if (have.has(p.name)) continue;
        await createPartition(tx, table, p);
        created.push(p.name);
      }
    }
    return created;
  });
}

/**
 * Drop what is past its retention at `now`: daily partitions of raw checks and of rounds that end
 * before `raw_days` and `rounds_days` ago, monthly rollup partitions that end before `rollup_days` ago (whole
 * partitions: a day or a month is kept until all of it is old enough), the same rows from the
 * DEFAULT partitions. Call inside a transaction.
 * @returns names of the partitions dropped and rows deleted from DEFAULT partitions
 */
export async function dropExpiredPartitions(tx: SqlExecutor, retention: CheckRetention, now: Date = new Date()): Promise<{ dropped: string[]; default_rows: number }> {
  return ddl(tx, async () => {
    const dropped: string[] = [];
    let default_rows = 0;
    for (const table of Object.keys(PARTITIONED) as PartitionedTable[]) {
      const days = table === 'checks' ? retention.raw_days : table === 'check_rounds' ? retention.rounds_days : retention.rollup_days;
      const cutoff = new Date(now.getTime() - days * DAY_MS);
      for (const p of await listPartitions(tx, table)) {
        if (p.to.getTime() > cutoff.getTime()) continue;
        await dropPartition(tx, table, p.name);
        dropped.push(p.name);
      }
      default_rows += await pruneDefault(tx, table, cutoff);
    }
    return { dropped, default_rows };
  });
}
