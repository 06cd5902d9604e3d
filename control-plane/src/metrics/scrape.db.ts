import type { Sql } from '../db/sql.js';

/** The delivery queue as a scrape sees it (deliveries still pending). */
export interface DeliveryQueueRow {
  /** Deliveries pending (first attempt or a retry ahead). */
  depth: number;
  /** Age of the oldest pending delivery, seconds (0 when none). */
  oldest_age_s: number;
  /** How far the earliest due attempt is behind its time, seconds (0 when nothing is overdue). */
  overdue_s: number;
}

/** One background job's lag: how long its due time has passed, seconds (0 when not yet due). */
export interface JobLagRow {
  name: string;
  lag_s: number;
}

/** Pending deliveries: one statement on the partial index of pending rows (0015_deliveries.sql). */
export async function deliveryQueue(sql: Sql): Promise<DeliveryQueueRow> {
  const [row] = await sql<{ depth: number; oldest_age_s: number; overdue_s: number }[]>`
    SELECT count(*)::int AS depth,
           coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8 AS oldest_age_s,
           greatest(coalesce(extract(epoch FROM now() - min(next_attempt_at)), 0), 0)::float8 AS overdue_s
      FROM deliveries WHERE status = 'pending'`;
  return row!;
}

/**
 * Lag of the periodic jobs (every row of check_jobs: partitions, rollup, retention, silent_rounds, pack;
 * artifact_jobs' retention as `artifacts_retention`) and of the placement queue's earliest entry
 * (`placement`, 0 when empty).
 */
export async function jobLags(sql: Sql): Promise<JobLagRow[]> {
  return sql<JobLagRow[]>`
    SELECT name, greatest(extract(epoch FROM now() - due_at), 0)::float8 AS lag_s FROM check_jobs
    UNION ALL
    SELECT 'artifacts_' || name, greatest(extract(epoch FROM now() - due_at), 0)::float8 FROM artifact_jobs
    UNION ALL
    SELECT 'placement', coalesce(greatest(extract(epoch FROM now() - min(due_at)), 0), 0)::float8 FROM placement_queue`;
}
