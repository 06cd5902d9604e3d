import type { PendingQuery, Row } from 'postgres';
import type { SqlExecutor } from '../contracts.js';
import { decodeDetails, type BatchDetails } from './batch-codec.js';
import type { CheckRow } from './history.db.js';

/*
 * Stored checks read back whole (0101_check_batches.sql): node checks lie in batch rows (their
 * details in one compressed value per batch), the control plane's checks and node checks stored
 * before batches in rows of `checks`. check_entries() lists both with the columns SQL can read;
 * the rest is joined here and a batch's details decoded once however many of its checks a read
 * returns.
 */

/** A stored check as {@link entriesWithDetails} reads it, before its batch's details are decoded. */
export type EntryRow = CheckRow & {
  /** The batch holding it (decimal text), or null for a row of `checks`. */
  batch_id: string | null;
  /** Its 1-based position in the batch. */
  pos: number | null;
  /** How many checks the batch holds. */
  batch_n: number | null;
  /** The batch's compressed details (checks/batch-codec.ts). */
  batch_data: Uint8Array | null;
};

/**
 * `entries` (a statement returning check_entries() columns: series_id, scheduled_at, stored_at,
 * success, response_ms, batch_first_at, batch_id, pos, plus any `extra` ones it selects) with
 * each check's other columns: from its row of `checks`, or its batch's data to decode
 * ({@link decodeEntries}). `order`: the ORDER BY of the result (the joins do not keep `entries`'s).
 */
export function entriesWithDetails<T extends EntryRow = EntryRow>(sql: SqlExecutor, entries: PendingQuery<Row[]>, order: PendingQuery<Row[]>,
  extra: PendingQuery<Row[]> = sql``): PendingQuery<T[]> {
  return sql<T[]>`
    SELECT e.series_id, e.scheduled_at, e.stored_at, e.success, e.response_ms ${extra},
      coalesce(r.start_offset_ms, 0) AS start_offset_ms, coalesce(r.duration_ms, 0) AS duration_ms, r.error_class, r.error, r.assertions,
      r.output, r.output_z, e.batch_id::text AS batch_id, e.pos, cardinality(b.series) AS batch_n, b.data AS batch_data
    FROM (${entries}) e
    LEFT JOIN checks r ON e.batch_id IS NULL AND r.series_id = e.series_id AND r.scheduled_at = e.scheduled_at
    LEFT JOIN check_batches b ON b.id = e.batch_id AND b.first_at = e.batch_first_at
    ORDER BY ${order}`;
}

/**
 * `rows` as CheckRows, in their order: the details of batch checks decoded from their batch (once
 * per batch), their output uncompressed (`output`, `output_z` null).
 * @throws Error for a damaged batch (checks/batch-codec.ts decodeDetails)
 */
export function decodeEntries<T extends EntryRow>(rows: T[]): Array<Omit<T, 'batch_id' | 'pos' | 'batch_n' | 'batch_data'>> {
  const wanted = new Map<string, { data: Uint8Array; n: number; positions: Set<number> }>();
  for (const r of rows) {
    if (r.batch_id === null) continue;
    const w = wanted.get(r.batch_id);
    if (w) w.positions.add(r.pos! - 1);
    else wanted.set(r.batch_id, { data: r.batch_data!, n: r.batch_n!, positions: new Set([r.pos! - 1]) });
  }
  const details = new Map<string, BatchDetails>();
  for (const [id, w] of wanted) {
    const positions = [...w.positions].sort((a, b) => a - b);
    decodeDetails(w.data, w.n, positions).forEach((d, i) => details.set(`${id}/${positions[i]}`, d));
  }
  return rows.map(({ batch_id, pos, batch_n: _n, batch_data: _d, ...r }) => {
    if (batch_id === null) return r;
    const d = details.get(`${batch_id}/${pos! - 1}`)!;
    return {
      ...r, start_offset_ms: d.start_offset_ms, duration_ms: d.duration_ms, error_class: d.error_class, error: d.error,
      assertions: d.assertions as CheckRow['assertions'], output: d.output as CheckRow['output'], output_z: null,
    };
  });
}
