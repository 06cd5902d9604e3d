import type { Sql } from '../db/sql.js';
import type { SqlExecutor } from '../contracts.js';
import type { AttemptRow, DeliveryRow } from './deliveries.db.js';

/** Status filter of a delivery list; `delivering` = pending under a live claim. */
export type DeliveryStatusFilter = 'pending' | 'delivering' | 'succeeded' | 'failed';

/** A delivery row plus whether an attempt is under way right now. */
export type LoggedDelivery = DeliveryRow & { delivering: boolean };

function statusCondition(sql: Sql, status: DeliveryStatusFilter | undefined) {
  switch (status) {
    case undefined: return sql``;
    case 'delivering': return sql`AND status = 'pending' AND claimed_until > now()`;
    case 'pending': return sql`AND status = 'pending' AND (claimed_until IS NULL OR claimed_until <= now())`;
    default: return sql`AND status = ${status}`;
  }
}

/**
 * Deliveries of one destination, newest first, with the total matching count.
 * @param f optional `status` and `event_type` filters
 */
export async function listDeliveries(
  sql: Sql, channel: string, destination: string,
  f: { status?: DeliveryStatusFilter; event_type?: string }, page: number, page_size: number,
): Promise<{ rows: LoggedDelivery[]; total: number }> {
  const rows = await sql<Array<LoggedDelivery & { total: number }>>`
    SELECT *, coalesce(claimed_until > now(), false) AS delivering, count(*) OVER ()::int AS total
    FROM deliveries
    WHERE channel = ${channel} AND destination = ${destination} ${statusCondition(sql, f.status)}
      ${f.event_type ? sql`AND event_type = ${f.event_type}` : sql``}
    ORDER BY created_at DESC, id DESC
    LIMIT ${page_size} OFFSET ${(page - 1) * page_size}`;
  let total = rows[0]?.total ?? 0;
  if (rows.length === 0 && page > 1) {
    const [row] = await sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM deliveries
      WHERE channel = ${channel} AND destination = ${destination} ${statusCondition(sql, f.status)}
        ${f.event_type ? sql`AND event_type = ${f.event_type}` : sql``}`;
    total = row!.n;
  }
  return { rows, total };
}

/** The attempt logs of `delivery_ids`, oldest attempt first, grouped by delivery id. */
export async function attemptsOf(sql: Sql, delivery_ids: string[]): Promise<Map<string, AttemptRow[]>> {
  const out = new Map<string, AttemptRow[]>();
  if (delivery_ids.length === 0) return out;
  const rows = await sql<AttemptRow[]>`
    SELECT * FROM delivery_attempts WHERE delivery_id IN ${sql(delivery_ids)} ORDER BY delivery_id, attempt`;
  for (const r of rows) {
    const list = out.get(r.delivery_id) ?? [];
    list.push(r);
    out.set(r.delivery_id, list);
  }
  return out;
}

/** One delivery of a destination, or null (another destination's delivery is null too). */
export async function getDelivery(sql: Sql, channel: string, destination: string, id: string): Promise<LoggedDelivery | null> {
  const [row] = await sql<LoggedDelivery[]>`
    SELECT *, coalesce(claimed_until > now(), false) AS delivering FROM deliveries
    WHERE id = ${id} AND channel = ${channel} AND destination = ${destination}`;
  return row ?? null;
}

/** The delivery of message `message_id` to a destination, or null. */
export async function getDeliveryByMessage(sql: Sql, channel: string, destination: string, message_id: string): Promise<LoggedDelivery | null> {
  const [row] = await sql<LoggedDelivery[]>`
    SELECT *, coalesce(claimed_until > now(), false) AS delivering FROM deliveries
    WHERE channel = ${channel} AND destination = ${destination} AND message_id = ${message_id}`;
  return row ?? null;
}

/**
 * Send a delivery again now: pending, due at once, retry schedule restarted; the attempt log and
 * the message id are kept (receivers de-duplicate on it). A delivery under way is left as it is.
 * Wakes the workers (NOTIFY on commit).
 * @returns the row, or null when it is not a delivery of this destination
 */
export async function redeliver(sql: Sql, channel: string, destination: string, id: string, notify_channel: string): Promise<LoggedDelivery | null> {
  return sql.begin(async (tx) => {
    const [row] = await tx<LoggedDelivery[]>`
      UPDATE deliveries SET
        status = 'pending', retry_step = 0, finished_at = NULL,
        next_attempt_at = CASE WHEN claimed_until > now() THEN next_attempt_at ELSE now() END
      WHERE id = ${id} AND channel = ${channel} AND destination = ${destination}
      RETURNING *, coalesce(claimed_until > now(), false) AS delivering`;
    if (row) await tx`SELECT pg_notify(${notify_channel}, '')`;
    return row ?? null;
  });
}

/** Delete every delivery of a destination (its endpoint was deleted), inside the caller's transaction. */
export async function deleteDestinationDeliveries(ex: SqlExecutor, channel: string, destination: string): Promise<void> {
  await ex`DELETE FROM deliveries WHERE channel = ${channel} AND destination = ${destination}`;
}

/** Fail every pending delivery of a destination that is not under way (its endpoint was disabled). @returns how many */
export async function failPendingDeliveries(ex: SqlExecutor, channel: string, destination: string, reason: string): Promise<number> {
  const rows = await ex`
    UPDATE deliveries SET status = 'failed', finished_at = now(), last_error = ${reason}
    WHERE channel = ${channel} AND destination = ${destination} AND status = 'pending'
      AND (claimed_until IS NULL OR claimed_until <= now()) AND claimed_by IS NULL
    RETURNING id`;
  return rows.length;
}
