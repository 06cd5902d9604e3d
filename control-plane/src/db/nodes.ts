import type postgres from 'postgres';
import type { NodeStatus } from '@vantage/shared-protocol';
import type { Sql } from './sql.js';

type Executor = Sql | postgres.TransactionSql<Record<string, never>>;

/** A `nodes` row (0010_nodes.sql) without the credential hash. */
export interface NodeRow {
  /** Last `outbox.stats` of the node (null until it reported). */
  outbox_pending: number | null;
  outbox_dropped_total: number | null;
  outbox_oldest_pending_at: Date | null;
  outbox_reported_at: Date | null;
  id: string;
  name: string;
  owner_user_id: string | null;
  status: NodeStatus;
  instance_id: string | null;
  country: string | null;
  region: string | null;
  city: string | null;
  asn: number | null;
  isp: string | null;
  provider: string | null;
  tags: string[];
  ip_address: string | null;
  allow_private: boolean;
  agent_version: string | null;
  capabilities: string[];
  last_seen_at: Date | null;
  created_at: Date;
  removed_at: Date | null;
}

const COLUMNS = (sql: Executor) => sql`
  id, name, owner_user_id, status, instance_id, country, region, city, asn, isp, provider, tags,
  ip_address, allow_private, agent_version, capabilities, last_seen_at, created_at, removed_at,
  outbox_pending, outbox_dropped_total, outbox_oldest_pending_at, outbox_reported_at`;

/** A new node as enrollment creates it: online on `instance_id`, holding `credential_hash`. */
export interface NewNode {
  id: string; name: string; owner_user_id: string | null; instance_id: string; credential_hash: string;
  country: string | null; region: string | null; city: string | null; city_id: number | null;
  asn: number | null; isp: string | null; provider: string | null; declared_operator: string | null;
  ip_address: string | null; agent_version: string; capabilities: string[];
}

/** Insert an enrolled node (inside the enrollment transaction). */
export async function insertNode(tx: Executor, n: NewNode): Promise<NodeRow> {
  const [row] = await tx<NodeRow[]>`
    INSERT INTO nodes (id, name, owner_user_id, status, instance_id, credential_hash, country, region, city,
      city_id, asn, isp, provider, declared_operator, ip_address, agent_version, capabilities, last_seen_at)
    VALUES (${n.id}, ${n.name}, ${n.owner_user_id}, 'online', ${n.instance_id}, ${n.credential_hash}, ${n.country},
      ${n.region}, ${n.city}, ${n.city_id}, ${n.asn}, ${n.isp}, ${n.provider}, ${n.declared_operator},
      ${n.ip_address}, ${n.agent_version}, ${n.capabilities}, now())
    RETURNING ${COLUMNS(tx)}`;
  return row!;
}

/**
 * Retry of an enrollment whose `welcome` was lost: give the node created by the used token
 * `token_hash` a new credential, if that node never confirmed its first one with a hello, the token
 * is unexpired and was used within `window_s`. The old credential stops working; the node is
 * online on `instance_id` (the retrying socket).
 * @returns the node, or null when the token cannot be retried
 */
export async function reissueUnconfirmedCredential(tx: Executor, n: { token_hash: string; credential_hash: string; window_s: number; instance_id: string }): Promise<NodeRow | null> {
  const { token_hash, credential_hash, window_s, instance_id } = n;
  const [row] = await tx<NodeRow[]>`
    UPDATE nodes SET credential_hash = ${credential_hash}, status = 'online', instance_id = ${instance_id}, last_seen_at = now()
    WHERE id = (SELECT consumed_node_id FROM enrollment_tokens WHERE token_hash = ${token_hash} AND status = 'used'
        AND expires_at > now() AND used_at > now() - make_interval(secs => ${window_s}))
      AND credential_confirmed_at IS NULL AND removed_at IS NULL AND status IN ('online', 'offline')
    RETURNING ${COLUMNS(tx)}`;
  return row ?? null;
}

/** The node holding `credential_hash` (a revoked or removed node has none), or null. */
export async function findNodeByCredential(sql: Sql, credential_hash: string): Promise<NodeRow | null> {
  const [row] = await sql<NodeRow[]>`
    SELECT ${COLUMNS(sql)} FROM nodes WHERE credential_hash = ${credential_hash} AND removed_at IS NULL`;
  return row ?? null;
}

/**
 * Record that `instance_id` now holds the node's socket. Refused (null) for disabled, banned or
 * removed nodes, so a node disabled between upgrade and hello cannot come online.
 */
export async function markNodeOnline(sql: Sql, n: {
  id: string; instance_id: string; ip_address: string | null; agent_version: string; capabilities: string[];
}): Promise<NodeRow | null> {
  const [row] = await sql<NodeRow[]>`
    UPDATE nodes SET status = 'online', instance_id = ${n.instance_id}, ip_address = ${n.ip_address},
      agent_version = ${n.agent_version}, capabilities = ${n.capabilities}, last_seen_at = now(),
      credential_confirmed_at = coalesce(credential_confirmed_at, now())
    WHERE id = ${n.id} AND status IN ('online', 'offline') AND removed_at IS NULL
    RETURNING ${COLUMNS(sql)}`;
  return row ?? null;
}

/** Store a node's `outbox.stats` report (pending results, results dropped by its bound). */
export async function recordOutboxStats(sql: Sql, id: string, s: { pending: number; dropped_total: number; oldest_pending_at: string | null }): Promise<void> {
  await sql`
    UPDATE nodes SET outbox_pending = ${s.pending}, outbox_dropped_total = ${s.dropped_total},
      outbox_oldest_pending_at = ${s.oldest_pending_at}, outbox_reported_at = now()
    WHERE id = ${id}`;
}

/** Mark offline, only if `instance_id` still holds the node (a newer connection elsewhere wins). */
export async function markNodeOffline(sql: Sql, id: string, instance_id: string): Promise<void> {
  await sql`
    UPDATE nodes SET status = 'offline', instance_id = NULL, last_seen_at = now()
    WHERE id = ${id} AND instance_id = ${instance_id} AND status = 'online'`;
}

/** Crash recovery at start: every node this instance was recorded as holding goes offline. @returns how many */
export async function releaseInstanceNodes(sql: Sql, instance_id: string): Promise<number> {
  const rows = await sql`
    UPDATE nodes SET status = 'offline', instance_id = NULL
    WHERE instance_id = ${instance_id} AND status = 'online' RETURNING id`;
  return rows.length;
}

/**
 * Heartbeat bookkeeping, one statement for all nodes held here: refresh `last_seen_at`, and put back
 * online a live node that a stale sweep took offline while this instance was slow (self-healing);
 * a node now held by another instance, or disabled/removed, is left alone.
 */
export async function touchNodes(sql: Sql, ids: string[], instance_id: string): Promise<void> {
  if (ids.length === 0) return;
  await sql`
    UPDATE nodes SET last_seen_at = now(), status = 'online', instance_id = ${instance_id}
    WHERE id = ANY(${ids}) AND removed_at IS NULL AND status IN ('online', 'offline')
      AND (instance_id = ${instance_id} OR instance_id IS NULL)`;
}

/**
 * Nodes recorded online whose holder stopped touching them for `stale_ms` (an instance that crashed
 * under a name that will not come back) go offline. Any instance may run it. @returns the ids
 */
export async function sweepStaleNodes(sql: Sql, stale_ms: number): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    UPDATE nodes SET status = 'offline', instance_id = NULL
    WHERE status = 'online' AND last_seen_at < now() - make_interval(secs => ${stale_ms / 1000}) RETURNING id`;
  return rows.map((r) => r.id);
}

/** Of `ids`, those that may no longer be connected (disabled, banned, removed, or credential revoked). */
export async function nodesToDrop(sql: Sql, ids: string[]): Promise<Array<{ id: string; removed: boolean }>> {
  if (ids.length === 0) return [];
  return sql<Array<{ id: string; removed: boolean }>>`
    SELECT id, (removed_at IS NOT NULL OR credential_hash IS NULL) AS removed FROM nodes
    WHERE id = ANY(${ids}) AND (status IN ('disabled', 'banned') OR removed_at IS NOT NULL OR credential_hash IS NULL)`;
}

/** Where a node's socket is: its status and the instance holding it, or null when unknown/removed. */
export async function nodeHolder(sql: Sql, id: string): Promise<{ status: NodeStatus; instance_id: string | null } | null> {
  const [row] = await sql<Array<{ status: NodeStatus; instance_id: string | null }>>`
    SELECT status, instance_id FROM nodes WHERE id = ${id} AND removed_at IS NULL`;
  return row ?? null;
}

/** A node by id (removed ones excluded), or null. */
export async function getNode(sql: Sql, id: string): Promise<NodeRow | null> {
  const [row] = await sql<NodeRow[]>`SELECT ${COLUMNS(sql)} FROM nodes WHERE id = ${id} AND removed_at IS NULL`;
  return row ?? null;
}

/** Directory filters (GET /v1/nodes); all optional, ANDed. */
export interface NodeFilter {
  country?: string; region?: string; provider?: string; status?: NodeStatus; asn?: number; tag?: string;
  owner_user_id?: string;
}

/** One page of the directory, ordered by id (creation order), with the total match count. */
export async function listNodes(sql: Sql, f: NodeFilter, page: number, page_size: number): Promise<{ rows: NodeRow[]; total: number }> {
  const where = sql`
    removed_at IS NULL
    ${f.country ? sql`AND country = ${f.country}` : sql``}
    ${f.region ? sql`AND lower(region) = lower(${f.region})` : sql``}
    ${f.provider ? sql`AND lower(provider) = lower(${f.provider})` : sql``}
    ${f.status ? sql`AND status = ${f.status}` : sql``}
    ${f.asn !== undefined ? sql`AND asn = ${f.asn}` : sql``}
    ${f.tag ? sql`AND ${f.tag} = ANY(tags)` : sql``}
    ${f.owner_user_id ? sql`AND owner_user_id = ${f.owner_user_id}` : sql``}`;
  const [count] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM nodes WHERE ${where}`;
  const rows = await sql<NodeRow[]>`
    SELECT ${COLUMNS(sql)} FROM nodes WHERE ${where} ORDER BY id LIMIT ${page_size} OFFSET ${(page - 1) * page_size}`;
  return { rows, total: count?.n ?? 0 };
}

/** Owner update (omitted fields unchanged). @returns the updated row, or null when not found. */
export async function updateNode(sql: Sql, id: string, p: { name?: string; tags?: string[]; allow_private?: boolean }): Promise<NodeRow | null> {
  const [row] = await sql<NodeRow[]>`
    UPDATE nodes SET
      name = COALESCE(${p.name ?? null}, name),
      tags = COALESCE(${p.tags ?? null}::text[], tags),
      allow_private = COALESCE(${p.allow_private ?? null}, allow_private)
    WHERE id = ${id} AND removed_at IS NULL
    RETURNING ${COLUMNS(sql)}`;
  return row ?? null;
}

/**
 * Set a status from an allowed set (owner disable/enable). A disabled node keeps no socket, so the
 * holder is cleared. @returns the row, or null when the node is not in one of `from`.
 */
export async function changeNodeStatus(sql: Sql, id: string, from: NodeStatus[], to: NodeStatus): Promise<NodeRow | null> {
  const [row] = await sql<NodeRow[]>`
    UPDATE nodes SET status = ${to}, instance_id = NULL
    WHERE id = ${id} AND removed_at IS NULL AND status = ANY(${from}::text[])
    RETURNING ${COLUMNS(sql)}`;
  return row ?? null;
}

/** Remove a node: the row stays for old results, the credential is revoked. @returns the row as it was before, or null. */
export async function removeNode(sql: Sql, id: string): Promise<NodeRow | null> {
  const [row] = await sql<NodeRow[]>`
    UPDATE nodes SET removed_at = now(), credential_hash = NULL, status = 'offline', instance_id = NULL
    WHERE id = ${id} AND removed_at IS NULL
    RETURNING ${COLUMNS(sql)}`;
  return row ?? null;
}

/** Keep a relay message too large for a NOTIFY payload; the NOTIFY then carries only the returned id. */
export async function storeRelayMessage(sql: Sql, instance_id: string, node_id: string, message: unknown): Promise<number> {
  const [row] = await sql<{ id: number }[]>`
    INSERT INTO hub_relay_messages (instance_id, node_id, message) VALUES (${instance_id}, ${node_id}, ${sql.json(message as never)})
    RETURNING id`;
  return Number(row!.id);
}

/** Take (read and delete) a stored relay message addressed to `instance_id`, or null when gone. */
export async function takeRelayMessage(sql: Sql, id: number, instance_id: string): Promise<{ node_id: string; message: unknown } | null> {
  const [row] = await sql<{ node_id: string; message: unknown }[]>`
    DELETE FROM hub_relay_messages WHERE id = ${id} AND instance_id = ${instance_id} RETURNING node_id, message`;
  return row ?? null;
}
