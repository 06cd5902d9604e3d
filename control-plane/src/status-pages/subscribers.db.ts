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

/**
 * One page of page `page_id`'s subscribers, newest first (ties by id), optionally in one `state`,
 * and how many there are (the owner's list: docs/api/status-pages.md "Subscribers").
 */
export async function listPageSubscribers(ex: SqlExecutor, page_id: string, state: SubscriberRow['state'] | undefined, limit: number, offset: number): Promise<{ rows: SubscriberRow[]; total: number }> {
  const only = state === undefined ? ex`` : ex`AND state = ${state}`;
  const rows = await ex<Array<SubscriberRow & { total: number }>>`
    SELECT *, count(*) OVER ()::int AS total FROM status_page_subscribers
    WHERE page_id = ${page_id} ${only}
    ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}`;
  if (rows.length === 0 && offset > 0) {
    const [n] = await ex<{ total: number }[]>`SELECT count(*)::int AS total FROM status_page_subscribers WHERE page_id = ${page_id} ${only}`;
    return { rows: [], total: n!.total };
  }
  return { rows: rows.map(({ total: _, ...r }) => r), total: rows[0]?.total ?? 0 };
}

/**
 * Remove subscriber `id` of page `page_id` (its owner's removal: the row goes, so the address may
 * subscribe again later and start over with the opt-in). @returns false when there is no such
 * subscriber of that page
 */
export async function deletePageSubscriber(ex: SqlExecutor, page_id: string, id: string): Promise<boolean> {
  const rows = await ex`DELETE FROM status_page_subscribers WHERE id = ${id} AND page_id = ${page_id} RETURNING 1`;
  return rows.length > 0;
}
