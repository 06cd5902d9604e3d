import type { Sql } from '../db/sql.js';
import { decodeOutput } from './output-codec.js';
import { encodeBlock, type PackedCheck } from './pack-codec.js';
import {
  finishPackedDay, lockBlocks, oldestRawDay, packingState, rawChecksOf, savePackingCursor, seriesAfter, writeBlocks, type BlockRow, type RawCheck,
} from './pack.db.js';
import { dropPartition, listPartitions, partitionFor } from './partitions.db.js';
import { ensurePartitionFor, partitionDdl } from './partitions.js';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** Series one transaction packs (an hour of them per statement: at most this many times 60-120 checks in memory). */
export const PACK_SERIES_PER_BATCH = 1000;

/** What one packing run did. */
export interface PackOutcome {
  /** Days packed whole (their raw partitions dropped). */
  days: number;
  blocks: number;
  checks: number;
  /** False when the time budget ran out first (the job is due again at once). */
  done: boolean;
}

/** A raw check as a block holds it: its output decoded (checks/output-codec.ts) or as stored (control-plane checks). */
export function toPacked(r: RawCheck): PackedCheck {
  return {
    scheduled_at: r.scheduled_at, start_offset_ms: r.start_offset_ms, duration_ms: r.duration_ms, response_ms: r.response_ms, success: r.success,
    error_class: r.error_class, error: r.error, assertions: r.assertions, output: r.output_z ? decodeOutput(r.output_z) : r.output ?? null,
  };
}

/** The blocks of `rows` (ordered by series, then scheduled_at, all in the hour at `hour`): one per series. */
export function blocksOf(hour: Date, rows: RawCheck[]): BlockRow[] {
  const out: BlockRow[] = [];
  for (let i = 0; i < rows.length;) {
    let j = i;
    while (j < rows.length && rows[j]!.series_id === rows[i]!.series_id) j++;
    const group = rows.slice(i, j);
    out.push({
      series_id: group[0]!.series_id, hour, checks: group.length, failures: group.filter((r) => !r.success).length,
      first_at: group[0]!.scheduled_at, last_at: group[group.length - 1]!.scheduled_at, data: encodeBlock(hour, group.map(toPacked)),
    });
    i = j;
  }
  return out;
}

/**
 * Pack the raw checks of `series` on UTC `day` into blocks, hour by hour, in one transaction
 * (serialised with block deletes and rewrites: pack.db.ts lockBlocks). Blocks already there are
 * kept: packing a day again (after a crash before its partition was dropped) writes the same ones.
 */
export async function packSeriesDay(sql: Sql, series: number[], day: Date): Promise<{ blocks: number; checks: number }> {
  return sql.begin(async (tx) => {
    await lockBlocks(tx);
    let blocks = 0;
    let checks = 0;
    for (let h = day.getTime(); h < day.getTime() + DAY_MS; h += HOUR_MS) {
      const rows = await rawChecksOf(tx, series, new Date(h), new Date(h + HOUR_MS));
      await writeBlocks(tx, blocksOf(new Date(h), rows));
      blocks += new Set(rows.map((r) => r.series_id)).size;
      checks += rows.length;
    }
    return { blocks, checks };
  }) as Promise<{ blocks: number; checks: number }>;
}

/**
 * Pack raw check history that can no longer change (docs/architecture/checks.md "Storage"): each
 * UTC day, oldest first, whose whole day is older than the rounds retention (no result is accepted
 * for it any more: ingest refuses older rounds) and rolled up (`rolled_until`: the rollup job
 * reads raw checks), and not past the raw retention (the retention job drops those). Its checks
 * are written as blocks, `series_per_batch` series per transaction (the cursor saved after each),
 * then, in one partition-DDL transaction, its raw partitions (`checks`, `check_batches`) are
 * dropped, its DEFAULT rows deleted and packed_until moved past it: readers see its raw checks
 * until then and its blocks after.
 * A crash in between loses nothing (the raw checks are still there, readers still read them) and
 * packing again writes the same blocks. Runs under the pack job's claim (jobs.ts), within
 * `budget_ms`; call it outside any transaction.
 */
export async function packHistory(sql: Sql, opts: {
  now: Date; rounds_days: number; raw_days: number; rolled_until: Date | null; budget_ms: number; series_per_batch?: number;
}): Promise<PackOutcome> {
  const out: PackOutcome = { days: 0, blocks: 0, checks: 0, done: true };
  const deadline = Date.now() + opts.budget_ms;
  const batch = opts.series_per_batch ?? PACK_SERIES_PER_BATCH;
  for (;;) {
    const state = await packingState(sql);
    const day = await oldestRawDay(sql, state.packed_until);
    if (day === null) return out;
    const end = day.getTime() + DAY_MS;
    const packable = end <= opts.now.getTime() - opts.rounds_days * DAY_MS && opts.rolled_until !== null && end <= opts.rolled_until.getTime()
      && end > opts.now.getTime() - opts.raw_days * DAY_MS;
    if (!packable) return out;
    await ensurePartitionFor(sql, 'check_blocks', day);
    let after = state.day?.getTime() === day.getTime() ? state.after_series : 0;
    for (;;) {
      const ids = await seriesAfter(sql, after, batch);
      if (ids.length === 0) break;
      const r = await packSeriesDay(sql, ids, day);
      out.blocks += r.blocks;
      out.checks += r.checks;
      after = ids[ids.length - 1]!;
      await savePackingCursor(sql, day, after);
      if (Date.now() > deadline) return { ...out, done: false };
    }
    await partitionDdl(sql, async (tx) => {
      for (const table of ['checks', 'check_batches'] as const) {
        const raw = partitionFor(table, day);
        if ((await listPartitions(tx, table)).some((p) => p.name === raw.name)) await dropPartition(tx, table, raw.name);
      }
      await finishPackedDay(tx, day);
    });
    out.days++;
    if (Date.now() > deadline) return { ...out, done: false };
  }
}
