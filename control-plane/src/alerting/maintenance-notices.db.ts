import type { SqlExecutor } from '../contracts.js';
import type { MaintenanceWindowRow } from './maintenance-windows.db.js';

/** Who gets a window's advance notice: an account and its address. */
export interface NoticeRecipient { user_id: string; email: string }

/**
 * A window that asks for advance notice, with its creator's address, its owner's time zone (a
 * team's own, else the creator's) and its recipients: the creator of a personal window; every
 * member of a team window's team with the role member or above (docs/api/alerting.md
 * "Maintenance windows"), by address.
 */
export type NoticeWindow = MaintenanceWindowRow & { owner_email: string; owner_tz: string; recipients: NoticeRecipient[] };

/**
 * Windows with `advance_notice_minutes` > 0 whose first start is within their notice of `now`
 * and that can still have an occurrence after it (a one-off not started; a recurring one not past
 * `recurrence_until`). The caller finds the next occurrence (windows.ts nextOccurrenceStart).
 */
export async function noticeCandidates(ex: SqlExecutor, now: Date, limit: number): Promise<NoticeWindow[]> {
  return ex<NoticeWindow[]>`
    SELECT w.*, u.email AS owner_email, coalesce(t.time_zone, u.timezone) AS owner_tz,
      CASE WHEN w.team_id IS NULL THEN json_build_array(json_build_object('user_id', u.id, 'email', u.email))
      ELSE (SELECT coalesce(json_agg(json_build_object('user_id', mu.id, 'email', mu.email) ORDER BY lower(mu.email)), '[]'::json)
        FROM team_members tm JOIN users mu ON mu.id = tm.user_id WHERE tm.team_id = w.team_id AND tm.role IN ('member', 'admin', 'owner')) END AS recipients
    FROM maintenance_windows w JOIN users u ON u.id = w.user_id LEFT JOIN teams t ON t.id = w.team_id
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
