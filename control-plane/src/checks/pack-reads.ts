import type { SqlExecutor } from '../contracts.js';
import { listChecks, rawChecksMarked, type CheckRow } from './history.db.js';
import { decodeBlock, type PackedCheck } from './pack-codec.js';
import { blockMarks, blocksByKey, type BlockMark } from './pack.db.js';

const HOUR_MS = 3_600_000;

/** A check as the checks list reads it: a raw row, or a packed one (its output decoded, output_z null). */
export type ListedCheck = Omit<CheckRow, 'stored_at'>;

const key = (series_id: number, hour: Date) => `${series_id}/${hour.getTime()}`;

/** A packed check as a listed row. */
function listed(series_id: number, c: PackedCheck): ListedCheck {
  return {
    series_id, scheduled_at: c.scheduled_at, start_offset_ms: c.start_offset_ms, duration_ms: c.duration_ms, response_ms: c.response_ms,
    success: c.success, error_class: c.error_class, error: c.error, assertions: c.assertions as ListedCheck['assertions'],
    output: c.output as ListedCheck['output'], output_z: null,
  };
}

/** The checks of blocks `marks` in [from, to), their data read in one statement (decoded ones kept in `cache`). */
async function checksOfBlocks(sql: SqlExecutor, marks: BlockMark[], from: Date, to: Date, cache: Map<string, ListedCheck[]>): Promise<ListedCheck[]> {
  const missing = marks.filter((m) => !cache.has(key(m.series_id, m.hour)));
  for (const b of await blocksByKey(sql, missing)) {
    cache.set(key(b.series_id, b.hour), decodeBlock(b.hour, b.data)
      .filter((c) => c.scheduled_at.getTime() >= from.getTime() && c.scheduled_at.getTime() < to.getTime())
      .map((c) => listed(b.series_id, c)));
  }
  return marks.flatMap((m) => cache.get(key(m.series_id, m.hour)) ?? []);
}

/**
 * A page of the checks of `series` scheduled in [from, to), newest first (scheduled_at, then
 * series), at `offset`, and how many there are, whether raw or packed (docs/api/monitors.md
 * "Checks": the same rows, order and totals either way). `reach`: the instant before which
 * history may be packed (now less the rounds retention: packing takes only days wholly older);
 * a range starting at or after it reads raw checks alone, as before packing existed.
 *
 * Otherwise: one statement reads packed_until with the raw count and raw page (raw checks all lie
 * at or after it, so they come first); the blocks before it are immutable, so the statements
 * after read the same ones: their marks (counts; the blocks cut by the range's ends decoded to
 * count exactly), then the data of the hours the page reaches.
 */
export async function checksPage(sql: SqlExecutor, series: number[], from: Date, to: Date, limit: number, offset: number, reach: Date): Promise<{ rows: ListedCheck[]; total: number }> {
  if (series.length === 0 || from.getTime() >= reach.getTime()) return listChecks(sql, series, from, to, limit, offset);
  const raw = await rawChecksMarked(sql, series, from, to, limit, offset);
  if (raw.packed_until === null || raw.packed_until.getTime() <= from.getTime()) return { rows: raw.rows, total: raw.raw_n };
  const marks = await blockMarks(sql, series, new Date(from.getTime() - HOUR_MS + 1), to, raw.packed_until);
  const cache = new Map<string, ListedCheck[]>();
  const cut = marks.filter((m) => m.first_at.getTime() < from.getTime() || m.last_at.getTime() >= to.getTime());
  await checksOfBlocks(sql, cut, from, to, cache);
  const countOf = (m: BlockMark) => cache.get(key(m.series_id, m.hour))?.length ?? m.checks;

  // Hours newest first, each with its blocks and how many of their checks lie in the range.
  const hours: Array<{ marks: BlockMark[]; n: number }> = [];
  for (const m of marks) {
    const last = hours[hours.length - 1];
    if (last && last.marks[0]!.hour.getTime() === m.hour.getTime()) {
      last.marks.push(m);
      last.n += countOf(m);
    } else hours.push({ marks: [m], n: countOf(m) });
  }
  const packed_n = hours.reduce((n, h) => n + h.n, 0);
  const rows = [...raw.rows];
  const skip = Math.max(0, offset - raw.raw_n);
  const need = limit - rows.length;
  if (need > 0) {
    // The hours holding packed checks [skip, skip + need), their checks read together.
    let at = 0;
    const wanted: Array<{ marks: BlockMark[]; first: number }> = [];
    for (const h of hours) {
      if (at + h.n > skip && at < skip + need) wanted.push({ marks: h.marks, first: at });
      at += h.n;
      if (at >= skip + need) break;
    }
    await checksOfBlocks(sql, wanted.flatMap((h) => h.marks), from, to, cache);
    for (const h of wanted) {
      const checks = (await checksOfBlocks(sql, h.marks, from, to, cache))
        .sort((a, b) => b.scheduled_at.getTime() - a.scheduled_at.getTime() || a.series_id - b.series_id);
      rows.push(...checks.slice(Math.max(0, skip - h.first), skip + need - h.first));
    }
  }
  return { rows: rows.slice(0, limit), total: raw.raw_n + packed_n };
}
