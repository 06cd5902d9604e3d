import type { NodeStatus } from '@vantage/shared-protocol';
import type { Sql } from '../db/sql.js';

/** A node as the administrators' list reads it (GET /v1/admin/nodes, docs/api/nodes.md "Administrators"). */
export interface AdminNodeRow {
  id: string;
  name: string;
  owner_user_id: string | null;
  owner_email: string | null;
  status: NodeStatus;
  country: string | null;
  region: string | null;
  asn: number | null;
  provider: string | null;
  ip_address: string | null;
  agent_version: string | null;
  shared: boolean;
  platform: boolean;
  platform_source: 'owners_setting' | 'admin' | null;
  last_seen_at: Date | null;
  created_at: Date;
}

/** Filters of the administrators' list; omitted = any. */
export interface AdminNodeFilter { platform?: boolean; shared?: boolean }

const SELECT = (sql: Sql) => sql`
  SELECT n.id, n.name, n.owner_user_id, u.email AS owner_email, n.status, n.country, n.region, n.asn, n.provider,
    n.ip_address, n.agent_version, n.shared, n.platform, n.platform_source,
    CASE WHEN n.status = 'online' THEN coalesce((SELECT h.lease_at FROM hub_instances h WHERE h.instance_id = n.instance_id), n.last_seen_at)
      ELSE n.last_seen_at END AS last_seen_at,
    n.created_at
  FROM nodes n LEFT JOIN users u ON u.id = n.owner_user_id`;

/**
 * One page of every node that is not removed, whoever owns it, ordered by id (enrollment order),
 * with its owner's e-mail and the total count of matching nodes. `page` ≥ 1, `page_size` 1-200.
 */
export async function listNodesForAdmin(sql: Sql, f: AdminNodeFilter, page: number, page_size: number): Promise<{ rows: AdminNodeRow[]; total: number }> {
  const where = sql`n.removed_at IS NULL
    ${f.platform !== undefined ? sql`AND n.platform = ${f.platform}` : sql``}
    ${f.shared !== undefined ? sql`AND n.shared = ${f.shared}` : sql``}`;
  const [counted] = await sql<{ total: number }[]>`SELECT count(*)::int AS total FROM nodes n WHERE ${where}`;
  const rows = await sql<AdminNodeRow[]>`${SELECT(sql)} WHERE ${where} ORDER BY n.id LIMIT ${page_size} OFFSET ${(page - 1) * page_size}`;
  return { rows, total: counted!.total };
}

/** Node `id` (not removed) as the administrators' list shows it, or null. */
export async function getNodeForAdmin(sql: Sql, id: string): Promise<AdminNodeRow | null> {
  const [row] = await sql<AdminNodeRow[]>`${SELECT(sql)} WHERE n.id = ${id} AND n.removed_at IS NULL`;
  return row ?? null;
}
