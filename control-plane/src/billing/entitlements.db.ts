import { newId } from '@vantage/shared-protocol';
import type { SqlExecutor } from '../contracts.js';

/** An entitlement row (entitlements): a quota override, an API call pack or a report credit pack. */
export interface EntitlementRow {
  id: string;
  user_id: string;
  kind: 'quota_override' | 'api_pack' | 'report_pack';
  status: 'active' | 'revoked' | 'expired';
  balance: number;
  attrs: Record<string, unknown>;
  source: string;
  order_ref: string | null;
  granted_at: Date;
  expires_at: Date | null;
}

const COLUMNS = 'id, user_id, kind, balance::float8 AS balance, attrs, source, order_ref, granted_at, expires_at';

/** An account's entitlements, newest first; status `expired` is reported for active ones past expires_at. */
export async function listEntitlements(sql: SqlExecutor, user_id: string): Promise<EntitlementRow[]> {
  return sql<EntitlementRow[]>`
    SELECT ${sql.unsafe(COLUMNS)}, CASE WHEN status = 'active' AND expires_at <= now() THEN 'expired' ELSE status END AS status
    FROM entitlements WHERE user_id = ${user_id} ORDER BY granted_at DESC, id DESC`;
}

/** Grant an entitlement. */
export async function insertEntitlement(sql: SqlExecutor, e: Omit<EntitlementRow, 'id' | 'status' | 'granted_at'>): Promise<EntitlementRow> {
  const [row] = await sql<EntitlementRow[]>`
    INSERT INTO entitlements (id, user_id, kind, status, balance, attrs, source, order_ref, expires_at)
    VALUES (${newId('entitlement')}, ${e.user_id}, ${e.kind}, 'active', ${e.balance}, ${sql.json(e.attrs as never)}, ${e.source}, ${e.order_ref}, ${e.expires_at})
    RETURNING ${sql.unsafe(COLUMNS)}, status`;
  return row!;
}

/** Revoke an active entitlement; null when there is none with this id or it is not active. */
export async function revokeEntitlement(sql: SqlExecutor, id: string): Promise<EntitlementRow | null> {
  const [row] = await sql<EntitlementRow[]>`
    UPDATE entitlements SET status = 'revoked', revoked_at = now() WHERE id = ${id} AND status = 'active'
    RETURNING ${sql.unsafe(COLUMNS)}, status`;
  return row ?? null;
}

/** One entitlement by id (any account). */
export async function findEntitlement(sql: SqlExecutor, id: string): Promise<EntitlementRow | null> {
  const [row] = await sql<EntitlementRow[]>`SELECT ${sql.unsafe(COLUMNS)}, status FROM entitlements WHERE id = ${id}`;
  return row ?? null;
}
