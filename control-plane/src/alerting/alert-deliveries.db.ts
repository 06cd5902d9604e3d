import type { Sql } from '../db/sql.js';

/** Where a queued notification stands: the delivery row and its last attempt's status code. */
export interface NotificationState {
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  last_error: string | null;
  status_code: number | null;
}

/** The state of delivery `id` (null when gone). */
export async function notificationState(sql: Sql, id: string): Promise<NotificationState | null> {
  const [row] = await sql<NotificationState[]>`
    SELECT d.status, d.attempts, d.last_error,
      (SELECT a.status_code FROM delivery_attempts a WHERE a.delivery_id = d.id ORDER BY a.attempt DESC LIMIT 1) AS status_code
    FROM deliveries d WHERE d.id = ${id}`;
  return row ?? null;
}
