import type { SqlExecutor } from '../contracts.js';
import type { OwnerScope } from '../teams/authorize.js';
import { ownedBy } from '../teams/owner-scope.db.js';

/** Order statuses (docs/api/certificates.md "Order states"). */
export type OrderStatus = 'draft' | 'validating' | 'awaiting_org_validation' | 'issuing' | 'issued' | 'failed' | 'revoking' | 'revoked';

/** One DNS-01 TXT record a manual-DNS order asks its owner to create. */
export interface ManualChallenge {
  fqdn: string;
  value: string;
  message: string | null;
}

/** A `cert_orders` row (0074_certificates.sql); int64 ids are numbers (below 2^53). */
export interface OrderRow {
  id: number;
  user_id: string;
  team_id: string | null;
  ca: string;
  tier: string;
  challenge_type: 'dns-01' | 'manual-dns';
  common_name: string | null;
  sans: string[];
  sans_unicode: string[];
  status: OrderStatus;
  cert_id: number | null;
  dns_credential_id: number | null;
  retry_count: number;
  attempt: number;
  last_error: string | null;
  acme_order_url: string | null;
  manual_challenges: ManualChallenge[];
  manual_confirmed: boolean;
  due_at: Date | null;
  lease_until: Date | null;
  created_at: Date;
  finalized_at: Date | null;
}

/** A `cert_order_events` row. */
export interface OrderEventRow {
  order_id: number;
  action_seq: number;
  action: string;
  detail: string | null;
  occurred_at: Date;
}

/** Append event `action` to order `id` (next action_seq). */
export async function appendEvent(ex: SqlExecutor, id: number, action: string, detail: string | null = null): Promise<void> {
  await ex`
    INSERT INTO cert_order_events (order_id, action_seq, action, detail)
    SELECT ${id}, coalesce(max(action_seq), 0) + 1, ${action}, ${detail} FROM cert_order_events WHERE order_id = ${id}`;
}

/** Store a draft order and its `created` event. */
export async function insertOrder(ex: SqlExecutor, o: Pick<OrderRow, 'user_id' | 'team_id' | 'ca' | 'tier' | 'challenge_type' | 'common_name' | 'sans' | 'sans_unicode' | 'dns_credential_id'>): Promise<OrderRow> {
  const [row] = await ex<OrderRow[]>`
    INSERT INTO cert_orders (user_id, team_id, ca, tier, challenge_type, common_name, sans, sans_unicode, dns_credential_id)
    VALUES (${o.user_id}, ${o.team_id}, ${o.ca}, ${o.tier}, ${o.challenge_type}, ${o.common_name}, ${o.sans}::text[], ${o.sans_unicode}::text[], ${o.dns_credential_id})
    RETURNING *`;
  await appendEvent(ex, row!.id, 'created');
  return row!;
}

/** One order, or null. */
export async function getOrder(ex: SqlExecutor, id: number): Promise<OrderRow | null> {
  const [row] = await ex<OrderRow[]>`SELECT * FROM cert_orders WHERE id = ${id}`;
  return row ?? null;
}

/** One order locked for a change in the caller's transaction, or null. */
export async function lockOrder(ex: SqlExecutor, id: number): Promise<OrderRow | null> {
  const [row] = await ex<OrderRow[]>`SELECT * FROM cert_orders WHERE id = ${id} FOR UPDATE`;
  return row ?? null;
}

/** The orders in `scope`, newest first, with the total. */
export async function listOrders(ex: SqlExecutor, scope: OwnerScope, f: { status?: OrderStatus; limit: number; offset: number }): Promise<{ rows: OrderRow[]; total: number }> {
  const state = f.status ? ex`AND status = ${f.status}` : ex``;
  const [rows, [count]] = await Promise.all([
    ex<OrderRow[]>`SELECT * FROM cert_orders WHERE ${ownedBy(ex, scope)} ${state} ORDER BY created_at DESC, id DESC LIMIT ${f.limit} OFFSET ${f.offset}`,
    ex<{ n: number }[]>`SELECT count(*)::int AS n FROM cert_orders WHERE ${ownedBy(ex, scope)} ${state}`,
  ]);
  return { rows, total: count!.n };
}

/** The events of `ids`, oldest first. */
export async function listEvents(ex: SqlExecutor, ids: number[]): Promise<OrderEventRow[]> {
  if (ids.length === 0) return [];
  return ex<OrderEventRow[]>`SELECT * FROM cert_order_events WHERE order_id = ANY(${ids.map(String)}::bigint[]) ORDER BY order_id, action_seq`;
}

/** The fields a step or a user action may change. */
export type OrderChange = Partial<Pick<OrderRow, 'status' | 'cert_id' | 'retry_count' | 'attempt' | 'last_error' | 'acme_order_url' | 'manual_challenges' | 'manual_confirmed' | 'due_at' | 'lease_until' | 'finalized_at'>>;

/** Apply `change` to order `id` and append event `action`. @returns the order as changed */
export async function changeOrder(ex: SqlExecutor, id: number, change: OrderChange, action: string, detail: string | null = null): Promise<OrderRow> {
  const set: Record<string, unknown> = { ...change };
  if (change.manual_challenges) set.manual_challenges = ex.json(change.manual_challenges as never);
  const [row] = Object.keys(set).length === 0
    ? await ex<OrderRow[]>`SELECT * FROM cert_orders WHERE id = ${id}`
    : await ex<OrderRow[]>`UPDATE cert_orders SET ${ex(set)} WHERE id = ${id} RETURNING *`;
  await appendEvent(ex, id, action, detail);
  return row!;
}

/**
 * Claim up to `limit` orders with a due step (validating, issuing or revoking; `due_at` passed, no
 * live lease), FOR UPDATE SKIP LOCKED, each leased for `lease_ms` so no other instance runs it
 * meanwhile (a crashed instance's lease runs out and the step is claimed again).
 */
export async function claimDueOrders(ex: SqlExecutor, limit: number, lease_ms: number): Promise<OrderRow[]> {
  return ex<OrderRow[]>`
    UPDATE cert_orders SET lease_until = now() + make_interval(secs => ${lease_ms / 1000}) WHERE id IN (
      SELECT id FROM cert_orders WHERE due_at <= now() AND status IN ('validating', 'issuing', 'revoking')
        AND (lease_until IS NULL OR lease_until < now())
      ORDER BY due_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING *`;
}
