import { resolveTime, type alertEventListQuerySchema } from '@vantage/shared-protocol';
import type { z } from 'zod';
import type { SqlExecutor } from '../contracts.js';
import type { OwnerScope } from '../teams/authorize.js';
import { listEvents } from './alert-events.db.js';
import { toAlertEvent } from './events.js';

/**
 * One page of the alert events of `scope` (teams/authorize.ts ownerScope), newest first, filtered
 * by status, monitor_id and started_at in [from, to) (ISO 8601, `now` or relative like -7d,
 * resolved against `now_ms`), as GET /v1/alert-events answers it (docs/api/alerting.md "Alert events").
 * @returns `{items[], total, page, page_size, has_more}` (shared-protocol alertEventListSchema)
 */
export async function alertEventsPage(sql: SqlExecutor, scope: OwnerScope, q: z.infer<typeof alertEventListQuerySchema>, now_ms = Date.now()) {
  const { rows, total } = await listEvents(sql, scope, {
    status: q.status, monitor_id: q.monitor_id,
    from: q.from ? new Date(resolveTime(q.from, now_ms)) : undefined, to: q.to ? new Date(resolveTime(q.to, now_ms)) : undefined,
    limit: q.page_size, offset: (q.page - 1) * q.page_size,
  });
  return { items: rows.map(toAlertEvent), total, page: q.page, page_size: q.page_size, has_more: q.page * q.page_size < total };
}
