import { newId } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';
import type { StatusPageRow } from './status-pages.db.js';

/** A `status_page_subscribers` row (0066_status_pages.sql). */
export interface SubscriberRow {
  id: string;
  page_id: string;
  kind: 'email' | 'webhook';
  address: string;
  secret: string | null;
  state: 'pending' | 'confirmed' | 'unsubscribed';
  created_at: Date;
  confirmed_at: Date | null;
}

/**
 * Subscribe `address` to a page: a new row in `state`, or the existing row of the same page, kind
 * and address unchanged (an unsubscribed address stays unsubscribed until its own link says
 * otherwise). @returns the row and whether it is new
 */
export async function upsertSubscriber(ex: SqlExecutor, f: { page_id: string; kind: 'email' | 'webhook'; address: string; secret: string | null; state: 'pending' | 'confirmed' }): Promise<{ row: SubscriberRow; created: boolean }> {
  const [row] = await ex<SubscriberRow[]>`
    INSERT INTO status_page_subscribers (id, page_id, kind, address, secret, state, confirmed_at)
    VALUES (${newId('status_page_subscriber')}, ${f.page_id}, ${f.kind}, ${f.address}, ${f.secret}, ${f.state}, ${f.state === 'confirmed' ? ex`now()` : null})
    ON CONFLICT (page_id, kind, address) DO NOTHING RETURNING *`;
  if (row) return { row, created: true };
  const [old] = await ex<SubscriberRow[]>`SELECT * FROM status_page_subscribers WHERE page_id = ${f.page_id} AND kind = ${f.kind} AND address = ${f.address}`;
  return { row: old!, created: false };
}

/** One subscriber, or null. */
export async function getSubscriber(ex: SqlExecutor, id: string): Promise<SubscriberRow | null> {
  const [row] = await ex<SubscriberRow[]>`SELECT * FROM status_page_subscribers WHERE id = ${id}`;
  return row ?? null;
}

/** Move a subscriber to `state` (confirming stamps confirmed_at once). @returns the row, or null */
export async function setSubscriberState(ex: SqlExecutor, id: string, state: 'confirmed' | 'unsubscribed'): Promise<SubscriberRow | null> {
  const [row] = await ex<SubscriberRow[]>`
    UPDATE status_page_subscribers SET state = ${state}, confirmed_at = CASE WHEN ${state} = 'confirmed' THEN coalesce(confirmed_at, now()) ELSE confirmed_at END
    WHERE id = ${id} RETURNING *`;
  return row ?? null;
}

/** The confirmed subscribers of `page_ids` with their page's slug and title. */
export async function confirmedSubscribers(ex: SqlExecutor, page_ids: string[]): Promise<Array<SubscriberRow & { slug: string; title: string; user_id: string }>> {
  if (page_ids.length === 0) return [];
  return ex<Array<SubscriberRow & { slug: string; title: string; user_id: string }>>`
    SELECT s.*, p.slug, p.title, p.user_id FROM status_page_subscribers s JOIN status_pages p ON p.id = s.page_id
    WHERE s.page_id = ANY(${page_ids}::text[]) AND s.state = 'confirmed'`;
}

/** The pages that have at least one confirmed subscriber. */
export async function pagesWithSubscribers(ex: SqlExecutor): Promise<StatusPageRow[]> {
  return ex<StatusPageRow[]>`
    SELECT p.* FROM status_pages p WHERE EXISTS (SELECT 1 FROM status_page_subscribers s WHERE s.page_id = p.id AND s.state = 'confirmed')`;
}

/** Claim the maintenance notice of one page and window occurrence. @returns whether this call claimed it (false: sent already) */
export async function claimMaintenanceNotice(ex: SqlExecutor, page_id: string, window_id: string, occurrence_start: Date): Promise<boolean> {
  const rows = await ex`
    INSERT INTO status_page_maintenance_notices (page_id, window_id, occurrence_start) VALUES (${page_id}, ${window_id}, ${occurrence_start})
    ON CONFLICT DO NOTHING RETURNING page_id`;
  return rows.length > 0;
}
