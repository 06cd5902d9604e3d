import type postgres from 'postgres';
import type { Sql } from '../db/sql.js';

type Executor = Sql | postgres.TransactionSql<Record<string, never>>;

/*
 * Platform nodes (docs/api/nodes.md "Platform nodes"; nodes.platform, 0037): the nodes of the
 * accounts the operator names in VANTAGE_PLATFORM_NODE_OWNERS and the nodes an administrator
 * marks; they serve every account and are trusted with every account's secrets.
 */

/**
 * SQL: true when the account `owner` (a column or value of the calling statement) is one of
 * `owner_emails` (lower case) with its address verified. A listed address nobody verified counts
 * for nothing: anyone may register an address.
 */
export function isPlatformOwner(sql: Executor, owner: string | null | postgres.Fragment, owner_emails: string[]) {
  return sql`EXISTS (SELECT 1 FROM users u WHERE u.id = ${owner} AND u.email_verified AND lower(u.email) = ANY(${owner_emails}::text[]))`;
}

/**
 * Apply the operator's list to every node not removed whose mark no administrator set:
 * `platform` is set on the nodes of those accounts and cleared on every other such node (a change
 * of the list between starts, an address verified since), with `platform_source`
 * 'owners_setting' (null once cleared). A node an administrator marked or unmarked (PATCH
 * /v1/admin/nodes/{id}, `platform_source` 'admin') keeps the administrator's choice. Nodes whose
 * mark changes get their monitors placed again (0037's trigger).
 * @returns how many nodes were marked and unmarked
 */
export async function applyPlatformNodeOwners(sql: Sql, owner_emails: string[]): Promise<{ marked: number; unmarked: number }> {
  const rows = await sql<{ platform: boolean }[]>`
    UPDATE nodes n SET platform = w.platform, platform_source = CASE WHEN w.platform THEN 'owners_setting' END
    FROM (SELECT id, ${isPlatformOwner(sql, sql`owner_user_id`, owner_emails)} AS platform FROM nodes
          WHERE removed_at IS NULL AND platform_source IS DISTINCT FROM 'admin') w
    WHERE n.id = w.id AND n.platform IS DISTINCT FROM w.platform
    RETURNING n.platform`;
  const marked = rows.filter((r) => r.platform).length;
  return { marked, unmarked: rows.length - marked };
}

/**
 * An administrator's decision on node `id` (not removed): `platform` set as given and
 * `platform_source` 'admin', so the start-up sync of VANTAGE_PLATFORM_NODE_OWNERS leaves it alone.
 * A change of the mark places the node's monitors again (0037's trigger).
 * @returns the mark before and after, or null when there is no such node
 */
export async function setPlatformByAdmin(sql: Sql, id: string, platform: boolean): Promise<{ before: boolean; after: boolean } | null> {
  const [row] = await sql<{ before: boolean; after: boolean }[]>`
    UPDATE nodes n SET platform = ${platform}, platform_source = 'admin'
    FROM (SELECT id, platform FROM nodes WHERE id = ${id} AND removed_at IS NULL FOR UPDATE) old
    WHERE n.id = old.id
    RETURNING old.platform AS before, n.platform AS after`;
  return row ?? null;
}
