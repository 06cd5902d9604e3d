import type { SqlExecutor } from '../contracts.js';
import { boolTexts as bools } from '../db/array-text.js';
import type { CheckRow } from './history.db.js';

/*
 * SQL of the checks stored a row each (0025_checks.sql `checks`): the checks the control plane runs
 * itself (control-checks/results.db.ts). Node checks go into batch rows (ingest.db.ts
 * storeNodeChecks). Every statement takes many rows (multi-row insert from unnest arrays).
 */

/** One check row to insert (0025_checks.sql `checks`): a stored check's columns, the instants and JSON as text. */
export type CheckInsert = Pick<CheckRow, 'series_id' | 'start_offset_ms' | 'duration_ms' | 'response_ms' | 'success' | 'error_class' | 'error'> & {
  scheduled_at: string;
  /** JSON text, or null. */
  assertions: string | null;
  /** JSON text, or null (uncompressed: control-plane checks). */
  output: string | null;
  /** The output compressed (checks/output-codec.ts encodeOutput) as `\x…` hex text, or null; node checks use this, not `output`. */
  output_z?: string | null;
};

/**
 * Insert `rows` in one statement, skipping those stored before (same series and scheduled_at),
 * in key order so that concurrent batches lock rows in the same order.
 * @returns keys `series_id/epoch ms` of the rows inserted now
 */
export async function insertChecks(tx: SqlExecutor, rows: CheckInsert[]): Promise<Set<string>> {
  const col = <K extends keyof CheckInsert>(k: K) => rows.map((r) => r[k]);
  const inserted = await tx<{ series_id: number; scheduled_at: Date }[]>`
    INSERT INTO checks (scheduled_at, series_id, start_offset_ms, duration_ms, response_ms, success, error_class, error, assertions, output, output_z)
    SELECT * FROM unnest(${col('scheduled_at')}::timestamptz[], ${col('series_id')}::int[], ${col('start_offset_ms')}::int[],
      ${col('duration_ms')}::int[], ${col('response_ms')}::real[], ${bools(col('success'))}::text[]::boolean[], ${col('error_class')}::text[],
      ${col('error')}::text[], ${col('assertions')}::text[]::jsonb[], ${col('output')}::text[]::jsonb[], ${rows.map((r) => r.output_z ?? null)}::text[]::bytea[])
    ORDER BY 2, 1
    ON CONFLICT (series_id, scheduled_at) DO NOTHING
    RETURNING series_id, scheduled_at`;
  return new Set(inserted.map((r) => `${r.series_id}/${r.scheduled_at.getTime()}`));
}

/** What newly stored checks add to one round. */
export interface RoundAdd {
  monitor_id: string;
  scheduled_at: string;
  deadline_at: string;
  interval_s: number;
  /** Nodes placed now (the round's expected reports when it is new). */
  expected: number;
  reported: number;
  failed: number;
}

/**
 * Count newly stored checks into their rounds (each check once: `reported`/`failed` are what the
 * verdict job judges by) and make them dirty (to be judged): a new round is inserted (late when
 * created after its deadline), an existing one gets the counts added (late when its deadline has
 * passed; judged already, it is judged again). Rows are written in key order (no deadlock between
 * batches of different nodes for the same rounds).
 */
export async function addToRounds(tx: SqlExecutor, adds: RoundAdd[]): Promise<void> {
  const col = <K extends keyof RoundAdd>(k: K) => adds.map((a) => a[k]);
  await tx`
    INSERT INTO check_rounds AS r (scheduled_at, deadline_at, monitor_id, interval_s, expected, reported, failed, late)
    SELECT u.at, u.deadline, u.m, u.iv, u.ex::smallint, u.n::smallint, u.f::smallint, u.deadline < now()
    FROM unnest(${col('scheduled_at')}::timestamptz[], ${col('deadline_at')}::timestamptz[], ${col('monitor_id')}::text[],
      ${col('interval_s')}::int[], ${col('expected')}::int[], ${col('reported')}::int[], ${col('failed')}::int[])
      AS u(at, deadline, m, iv, ex, n, f)
    ORDER BY u.m, u.at
    ON CONFLICT (monitor_id, scheduled_at) DO UPDATE SET reported = r.reported + excluded.reported, failed = r.failed + excluded.failed,
      dirty = true, late = r.late OR r.deadline_at < now()`;
}
