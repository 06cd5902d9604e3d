import type { AccountRetention } from '../contracts.js';
import type { Sql } from '../db/sql.js';
import { deleteSeriesBlocks, deleteSeriesChecks, hideSeriesChecks, markSeriesPruned, seriesPastRetention } from './account-retention.db.js';
import { rollupMarks } from './jobs.db.js';

const DAY_MS = 86_400_000;
/** Series one batch looks at, and checks one DELETE removes at most (each batch its own short transaction). */
const SERIES_PER_BATCH = 500;
const ROWS_PER_DELETE = 5_000;
/** Packed blocks one DELETE removes at most (an hour of a series each: about 60 checks). */
const BLOCKS_PER_DELETE = 500;

/** What one pass of per-account raw-check retention did. */
export interface AccountPruneOutcome {
  /** Raw checks deleted. */
  rows: number;
  /** Packed blocks deleted (pack.ts). */
  blocks: number;
  /** Series brought to their cutoff. */
  series: number;
  /** False when the time budget ran out first (the job is due again at once). */
  done: boolean;
}

/** The days each account keeps raw checks and the longest of them (what whole partitions are dropped past). */
export async function rawDaysInUse(policy: AccountRetention): Promise<{ default_days: number; accounts: Map<string, number>; max_days: number }> {
  const r = await policy.rawDays();
  let max_days = r.default_days;
  for (const d of r.accounts.values()) max_days = Math.max(max_days, d);
  return { ...r, max_days };
}

const floorDay = (ms: number) => new Date(Math.floor(ms / DAY_MS) * DAY_MS);

/**
 * Delete the raw checks of monitors whose account keeps fewer days than `days.max_days`
 * (docs/api/monitors.md "Checks"; the partitions past `max_days` are dropped whole by
 * partitions.ts): each series' checks of UTC days wholly older than its account's retention
 * (a team's monitor: the longest retention of the team's owners). Never a check of an hour not
 * rolled up yet, nor one within `rounds_days` (results may still arrive for those hours, and the
 * rollup job would roll such an hour up again from its raw checks): rollups stay whole. Packed
 * history (pack.ts) goes the same way: the series' blocks of those hours, after its raw checks. Batches of
 * {@link SERIES_PER_BATCH} series, DELETEs of at most {@link ROWS_PER_DELETE} checks, each in its
 * own transaction; a series done is marked (`pruned_before`) so later passes start there. Runs
 * under the retention job's claim (jobs.ts), within `budget_ms`.
 */
export async function pruneAccountChecks(sql: Sql, days: Awaited<ReturnType<typeof rawDaysInUse>>, opts: {
  now: Date; rounds_days: number; budget_ms: number;
}): Promise<AccountPruneOutcome> {
  const out: AccountPruneOutcome = { rows: 0, blocks: 0, series: 0, done: true };
  const rolled = (await rollupMarks(sql)).hours_until;
  const shorter = days.default_days < days.max_days || [...days.accounts.values()].some((d) => d < days.max_days);
  if (rolled === null || !shorter) return out;
  const now_ms = opts.now.getTime();
  const limit_before = floorDay(Math.min(rolled.getTime(), now_ms - opts.rounds_days * DAY_MS));
  const floor = floorDay(now_ms - days.max_days * DAY_MS);
  const user_ids = [...days.accounts.keys()];
  const deadline = Date.now() + opts.budget_ms;
  let after_id = 0;
  for (;;) {
    const cuts = await seriesPastRetention(sql, {
      default_days: days.default_days, user_ids, days: user_ids.map((id) => days.accounts.get(id)!), max_days: days.max_days,
      now: opts.now, floor, limit_before, after_id, limit: SERIES_PER_BATCH,
    });
    if (cuts.length === 0) return out;
    let n: number;
    do {
      n = await deleteSeriesChecks(sql, cuts, ROWS_PER_DELETE);
      out.rows += n;
      if (n === ROWS_PER_DELETE && Date.now() > deadline) return { ...out, done: false };
    } while (n === ROWS_PER_DELETE);
    do {
      n = await hideSeriesChecks(sql, cuts, ROWS_PER_DELETE);
      out.rows += n;
      if (n === ROWS_PER_DELETE && Date.now() > deadline) return { ...out, done: false };
    } while (n === ROWS_PER_DELETE);
    // Blocks after the raw checks: a day packed meanwhile is deleted here too (deleteSeriesBlocks).
    do {
      n = await deleteSeriesBlocks(sql, cuts, BLOCKS_PER_DELETE);
      out.blocks += n;
      if (n === BLOCKS_PER_DELETE && Date.now() > deadline) return { ...out, done: false };
    } while (n === BLOCKS_PER_DELETE);
    await markSeriesPruned(sql, cuts);
    out.series += cuts.length;
    after_id = cuts[cuts.length - 1]!.series_id;
    if (Date.now() > deadline) return { ...out, done: false };
  }
}
