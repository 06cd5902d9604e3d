import type { SqlExecutor } from '../contracts.js';
import type { MaintenanceWindowRow } from './maintenance-windows.db.js';

/** A window that asks for advance notice, with its owner's address and time zone. */
export type NoticeWindow = MaintenanceWindowRow & { owner_email: string; owner_tz: string };

/**
 * Windows with `advance_notice_minutes` > 0 whose first start is within their notice of `now`
 * and that can still have an occurrence after it (a one-off not started; a recurring one not past
 * `recurrence_until`). The caller finds the next occurrence (windows.ts nextOccurrenceStart).
 */
export async function noticeCandidates(ex: SqlExecutor, now: Date, limit: number): Promise<NoticeWindow[]> {
  return ex<NoticeWindow[]>`
    SELECT w.*, u.email AS owner_email, u.timezone AS owner_tz FROM maintenance_windows w JOIN users u ON u.id = w.user_id
    WHERE w.advance_notice_minutes > 0 AND w.starts_at <= ${now}::timestamptz + make_interval(mins => w.advance_notice_minutes)
      AND ((w.recurrence = 'none' AND w.starts_at > ${now}) OR (w.recurrence <> 'none' AND (w.recurrence_until IS NULL OR w.recurrence_until > ${now})))
      AND NOT EXISTS (SELECT 1 FROM maintenance_notices n WHERE n.window_id = w.id AND n.occurrence_start > ${now})
    ORDER BY w.starts_at, w.id LIMIT ${limit}`;
}

/**
 * Record the notice of one occurrence; @returns false when it was recorded already (by this
 * instance earlier or another one: a concurrent insert waits for the other transaction).
 */
export async function claimNotice(ex: SqlExecutor, window_id: string, occurrence_start: Date, outcome: 'queued' | 'logged', now: Date): Promise<boolean> {
  const rows = await ex`
    INSERT INTO maintenance_notices (window_id, occurrence_start, notified_at, outcome) VALUES (${window_id}, ${occurrence_start}, ${now}, ${outcome})
    ON CONFLICT DO NOTHING RETURNING window_id`;
  return rows.length > 0;
}
