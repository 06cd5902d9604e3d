import type postgres from 'postgres';
import type { NodeStatus } from '@vantage/shared-protocol';
import type { Sql } from '../db/sql.js';
import type { OwnerScope } from '../teams/authorize.js';
import { isPlatformOwner } from './platform-nodes.db.js';

type Executor = Sql | postgres.TransactionSql<Record<string, never>>;

/** A `nodes` row (0010_nodes.sql) without the credential hash. */
export interface NodeRow {
  /** Last `outbox.stats` of the node (null until it reported). */
  outbox_pending: number | null;
  outbox_dropped_total: number | null;
  outbox_oldest_pending_at: Date | null;
  outbox_reported_at: Date | null;
  /** Last clock offset the node reported (node clock minus ours, ms) and when; null until it did. */
  clock_offset_ms: number | null;
  clock_offset_at: Date | null;
  id: string;
  name: string;
  owner_user_id: string | null;
  /** The team it belongs to (its enrollment token's), or null: its enroller's own (0046_teams.sql). */
  team_id: string | null;
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
  /** A platform node (0037, docs/api/nodes.md "Platform nodes"). */
  platform: boolean;
  /** Who set `platform` (0045): the operator's list, an administrator, or nobody yet (null). */
  platform_source: 'owners_setting' | 'admin' | null;
  /** Its owner lets other accounts' probes and monitors run on it (0045, docs/api/nodes.md "Sharing"). */
  shared: boolean;
  agent_version: string | null;
  capabilities: string[];
  last_seen_at: Date | null;
  created_at: Date;
  removed_at: Date | null;
}

// An online node's row is not rewritten while it stays connected: its last_seen_at is its holding
// instance's lease (hub_instances, refreshed every heartbeat interval), the stored value otherwise.
const COLUMNS = (sql: Executor) => sql`
  id, name, owner_user_id, team_id, status, instance_id, country, region, city, asn, isp, provider, tags,
  ip_address, allow_private, platform, platform_source, shared, agent_version, capabilities,
  CASE WHEN status = 'online' THEN coalesce((SELECT h.lease_at FROM hub_instances h WHERE h.instance_id = nodes.instance_id), last_seen_at)
    ELSE last_seen_at END AS last_seen_at,
  created_at, removed_at,
  outbox_pending, outbox_dropped_total, outbox_oldest_pending_at, outbox_reported_at, clock_offset_ms, clock_offset_at`;

/**
 * What the hub needs of a node while it connects: an upgrade's credential look-up and a hello's
 * online mark read only these, not every column: after a restart 10,000 rows of each are read
 * within seconds, and the full row (timestamps parsed into Dates, the lease look-up behind
 * `last_seen_at`) cost Postgres and the instance work nobody used.
 */
export type NodeLinkRow = Pick<NodeRow, 'id' | 'name' | 'status' | 'instance_id'>;
const LINK_COLUMNS = (sql: Executor) => sql`id, name, status, instance_id`;

/** A new node as enrollment creates it: online on `instance_id`, holding `credential_hash`. */
export interface NewNode {
  id: string; name: string; owner_user_id: string | null; instance_id: string; credential_hash: string;
  /** The team of its enrollment token, or null/omitted: its enroller's own. */
  team_id?: string | null;
  country: string | null; region: string | null; city: string | null; city_id: number | null;
  asn: number | null; isp: string | null; provider: string | null; declared_operator: string | null;
  ip_address: string | null; agent_version: string; capabilities: string[];
  /** The operator's platform node owners (config platform_node_owners): a node of one of them is a platform node. */
  platform_owner_emails?: string[];
  /** Whether other accounts' probes and monitors may run on it: its enrollment token's `shared`. */
  shared: boolean;
}

/**
 * Insert an enrolled node (inside the enrollment transaction), a platform node when its owner is
 * one of `platform_owner_emails` (then `platform_source` is 'owners_setting').
 */
export async function insertNode(tx: Executor, n: NewNode): Promise<NodeRow> {
  const [row] = await tx<NodeRow[]>`
    WITH p AS (SELECT ${isPlatformOwner(tx, n.owner_user_id, n.platform_owner_emails ?? [])} AS platform)
    INSERT INTO nodes (id, name, owner_user_id, team_id, status, instance_id, credential_hash, country, region, city,
      city_id, asn, isp, provider, declared_operator, ip_address, agent_version, capabilities, last_seen_at,
      platform, platform_source, shared)
    SELECT ${n.id}, ${n.name}, ${n.owner_user_id}, ${n.team_id ?? null}, 'online', ${n.instance_id}, ${n.credential_hash}, ${n.country},
      ${n.region}, ${n.city}, ${n.city_id}, ${n.asn}, ${n.isp}, ${n.provider}, ${n.declared_operator},
      ${n.ip_address}, ${n.agent_version}, ${n.capabilities}, now(),
      p.platform, CASE WHEN p.platform THEN 'owners_setting' END, ${n.shared}
    FROM p
    RETURNING ${COLUMNS(tx)}`;
  return row!;
}

/**
 * Retry of an enrollment whose `welcome` was lost: give the node created by the used token
 * `token_hash` a new credential, if that node never confirmed its first one (`enroll.confirm` or
 * a hello), no instance holds a connection of it (offline, `instance_id` null: a live node is
 * never handed to a second party), the token is unexpired and was used within `window_s`. The
 * old credential stops working; the node is online on `instance_id` (the retrying socket).
 * @returns the node, or null when the token cannot be retried
 */
export async function reissueUnconfirmedCredential(tx: Executor, n: { token_hash: string; credential_hash: string; window_s: number; instance_id: string }): Promise<NodeRow | null> {
  const { token_hash, credential_hash, window_s, instance_id } = n;
  const [row] = await tx<NodeRow[]>`
    UPDATE nodes SET credential_hash = ${credential_hash}, status = 'online', instance_id = ${instance_id}, last_seen_at = now()
    WHERE id = (SELECT consumed_node_id FROM enrollment_tokens WHERE token_hash = ${token_hash} AND status = 'used'
        AND expires_at > now() AND used_at > now() - make_interval(secs => ${window_s}))
      AND credential_confirmed_at IS NULL AND removed_at IS NULL AND status = 'offline' AND instance_id IS NULL
    RETURNING ${COLUMNS(tx)}`;
  return row ?? null;
}

/**
 * Confirm an enrollment: the node holding `credential_hash` has proved it stored that credential
 * (`enroll.confirm`), which spends the token that created it. Idempotent.
 * @returns false when the node no longer holds that credential or was removed
 */
export async function confirmNodeCredential(sql: Executor, id: string, credential_hash: string): Promise<boolean> {
  const rows = await sql`
    UPDATE nodes SET credential_confirmed_at = coalesce(credential_confirmed_at, now())
    WHERE id = ${id} AND credential_hash = ${credential_hash} AND removed_at IS NULL RETURNING id`;
  return rows.length > 0;
}

/** The node holding `credential_hash` (a revoked or removed node has none), or null. */
export async function findNodeByCredential(sql: Sql, credential_hash: string): Promise<NodeRow | null> {
  const [row] = await sql<NodeRow[]>`
    SELECT ${COLUMNS(sql)} FROM nodes WHERE credential_hash = ${credential_hash} AND removed_at IS NULL`;
  return row ?? null;
}

/**
 * The nodes holding `credential_hashes` (one statement for a burst of upgrades), keyed by
 * credential hash; a hash no live node holds is absent.
 */
export async function findNodesByCredential(sql: Sql, credential_hashes: string[]): Promise<Map<string, NodeLinkRow>> {
  if (credential_hashes.length === 0) return new Map();
  const rows = await sql<Array<NodeLinkRow & { credential_hash: string }>>`
    SELECT credential_hash, ${LINK_COLUMNS(sql)} FROM nodes
    WHERE credential_hash = ANY(${credential_hashes}::text[]) AND removed_at IS NULL`;
  return new Map(rows.map(({ credential_hash, ...row }) => [credential_hash, row]));
}

/** What a hello records of a node: {@link markNodeOnline}'s input. */
export interface NodeHello { id: string; instance_id: string; ip_address: string | null; agent_version: string; capabilities: string[] }

/**
 * {@link markNodeOnline} for many nodes in one statement (a burst of hellos), the rows locked in
 * id order. Every statement over many nodes' rows locks them so, and with FOR NO KEY UPDATE (what
 * an UPDATE of non-key columns takes): FOR UPDATE also waited for the key-share locks that inserts
 * referencing a node hold until they commit (a probe group's tasks, in no id order), which let a
 * batch and a 1,000-node probe deadlock.
 * @returns the updated rows keyed by id; a disabled, banned or removed node is absent
 */
export async function markNodesOnline(sql: Sql, hellos: NodeHello[]): Promise<Map<string, NodeLinkRow>> {
  if (hellos.length === 0) return new Map();
  // Prefixed names: RETURNING's unqualified columns must name only the nodes row.
  const input = hellos.map((h) => ({ h_id: h.id, h_instance: h.instance_id, h_ip: h.ip_address, h_version: h.agent_version, h_caps: h.capabilities }));
  const rows = await sql<NodeLinkRow[]>`
    WITH h AS (
      SELECT * FROM jsonb_to_recordset(${sql.json(input as never)})
        AS h(h_id text, h_instance text, h_ip text, h_version text, h_caps text[])
    ), locked AS (
      SELECT n.id AS locked_id FROM nodes n JOIN h ON h.h_id = n.id
      WHERE n.status IN ('online', 'offline') AND n.removed_at IS NULL
      ORDER BY n.id FOR NO KEY UPDATE OF n
    )
    UPDATE nodes SET status = 'online', instance_id = h.h_instance, ip_address = h.h_ip,
      agent_version = h.h_version, capabilities = h.h_caps, last_seen_at = now(),
      credential_confirmed_at = coalesce(nodes.credential_confirmed_at, now())
    FROM h JOIN locked ON locked.locked_id = h.h_id
    WHERE nodes.id = h.h_id
    RETURNING ${LINK_COLUMNS(sql)}`;
  return new Map(rows.map((r) => [r.id, r]));
}

/**
 * Record that `instance_id` now holds the node's socket. Refused (null) for disabled, banned or
 * removed nodes, so a node disabled between upgrade and hello cannot come online.
 */
export async function markNodeOnline(sql: Sql, n: NodeHello): Promise<NodeLinkRow | null> {
  const [row] = await sql<NodeLinkRow[]>`
    UPDATE nodes SET status = 'online', instance_id = ${n.instance_id}, ip_address = ${n.ip_address},
      agent_version = ${n.agent_version}, capabilities = ${n.capabilities}, last_seen_at = now(),
      credential_confirmed_at = coalesce(credential_confirmed_at, now())
    WHERE id = ${n.id} AND status IN ('online', 'offline') AND removed_at IS NULL
    RETURNING ${LINK_COLUMNS(sql)}`;
  return row ?? null;
}

/** Add `count` to the node's tally of results refused for good (results_rejected_total). */
export async function countRejectedResults(sql: Sql, id: string, count: number): Promise<void> {
  await sql`UPDATE nodes SET results_rejected_total = results_rejected_total + ${count} WHERE id = ${id}`;
}

/**
 * Mark offline, only if `instance_id` still holds the node (a newer connection elsewhere wins).
 * Also ends a link this instance had taken out of service as unreachable (offline, still held).
 */
export async function markNodeOffline(sql: Sql, id: string, instance_id: string): Promise<void> {
  await sql`
    UPDATE nodes SET status = 'offline', instance_id = NULL,
      last_seen_at = CASE WHEN status = 'online' THEN now() ELSE last_seen_at END
    WHERE id = ${id} AND instance_id = ${instance_id} AND status IN ('online', 'offline')`;
}

/**
 * {@link markNodeOffline} for many nodes of one instance in one statement (a burst of closed
 * links: a network blip cuts every node at once), the rows locked in id order as
 * {@link markNodesOnline} locks them, so the two cannot deadlock. Committed asynchronously
 * (`synchronous_commit = off`): an offline mark lost to a database crash in the next fraction of
 * a second leaves a node `online` on this instance, which the instance's release (on its next
 * start) or its stale lease (instances.db.ts) corrects, as for a crash of the instance itself.
 */
export async function markNodesOffline(sql: Sql, ids: string[], instance_id: string): Promise<void> {
  if (ids.length === 0) return;
  await sql.begin(async (tx) => {
    await tx`SET LOCAL synchronous_commit = off`;
    await tx`
      WITH locked AS (
        SELECT n.id FROM nodes n
        WHERE n.id = ANY(${ids}) AND n.instance_id = ${instance_id} AND n.status IN ('online', 'offline')
        ORDER BY n.id FOR NO KEY UPDATE OF n
      )
      UPDATE nodes SET status = 'offline', instance_id = NULL,
        last_seen_at = CASE WHEN nodes.status = 'online' THEN now() ELSE nodes.last_seen_at END
      FROM locked
      WHERE nodes.id = locked.id AND nodes.instance_id = ${instance_id} AND nodes.status IN ('online', 'offline')`;
  });
}

/**
 * Take a held node out of service while its link is suspect (a task.run went unanswered), or put
 * it back once the node answered: `reachable` false sets `offline` (node selection skips it) but
 * keeps `instance_id`; true sets `online` again. Only while `instance_id` still holds the node.
 * @returns whether the row changed
 */
export async function setNodeReachable(sql: Sql, id: string, instance_id: string, reachable: boolean): Promise<boolean> {
  const rows = reachable
    ? await sql`UPDATE nodes SET status = 'online' WHERE id = ${id} AND instance_id = ${instance_id} AND status = 'offline' AND removed_at IS NULL RETURNING id`
    : await sql`UPDATE nodes SET status = 'offline', last_seen_at = now() WHERE id = ${id} AND instance_id = ${instance_id} AND status = 'online' RETURNING id`;
  return rows.length > 0;
}

/** Of `ids`, those that may no longer be connected (disabled, banned, removed, or credential revoked). */
export async function nodesToDrop(sql: Sql, ids: string[]): Promise<Array<{ id: string; removed: boolean }>> {
  if (ids.length === 0) return [];
  return sql<Array<{ id: string; removed: boolean }>>`
    SELECT id, (removed_at IS NOT NULL OR credential_hash IS NULL) AS removed FROM nodes
    WHERE id = ANY(${ids}) AND (status IN ('disabled', 'banned') OR removed_at IS NOT NULL OR credential_hash IS NULL)`;
}

/** Status and last_seen_at (stored: when it went offline) of the nodes `ids`, by id. */
export async function nodeLinkStates(sql: Executor, ids: string[]): Promise<Map<string, { status: NodeStatus; last_seen_at: Date | null }>> {
  if (ids.length === 0) return new Map();
  const rows = await sql<Array<{ id: string; status: NodeStatus; last_seen_at: Date | null }>>`
    SELECT id, status, last_seen_at FROM nodes WHERE id = ANY(${ids}::text[])`;
  return new Map(rows.map((r) => [r.id, { status: r.status, last_seen_at: r.last_seen_at }]));
}

/** A node by id (removed ones excluded), or null. */
export async function getNode(sql: Sql, id: string): Promise<NodeRow | null> {
  const [row] = await sql<NodeRow[]>`SELECT ${COLUMNS(sql)} FROM nodes WHERE id = ${id} AND removed_at IS NULL`;
  return row ?? null;
}

/** Directory filters (GET /v1/nodes); all optional, ANDed. */
export interface NodeFilter {
  country?: string; region?: string; provider?: string; status?: NodeStatus; asn?: number; tag?: string;
  /** Only the nodes of these owners (mine=true: teams/authorize.ts ownerScope). */
  owners?: OwnerScope;
}

/**
 * SQL condition "the node is in `scope`": teams/owner-scope.db.ts ownedBy for the nodes table,
 * whose creator column is `owner_user_id`.
 */
export function ownedNodes(sql: Executor, scope: OwnerScope) {
  return scope.user_id === null
    ? sql`team_id = ANY(${scope.team_ids}::text[])`
    : sql`((team_id IS NULL AND owner_user_id = ${scope.user_id}) OR team_id = ANY(${scope.team_ids}::text[]))`;
}

/** The WHERE clause of a directory listing: not removed, and every given filter. */
function listWhere(sql: Sql, f: NodeFilter) {
  return sql`
    removed_at IS NULL
    ${f.country ? sql`AND country = ${f.country}` : sql``}
    ${f.region ? sql`AND lower(region) = lower(${f.region})` : sql``}
    ${f.provider ? sql`AND lower(provider) = lower(${f.provider})` : sql``}
    ${f.status ? sql`AND status = ${f.status}` : sql``}
    ${f.asn !== undefined ? sql`AND asn = ${f.asn}` : sql``}
    ${f.tag ? sql`AND ${f.tag} = ANY(tags)` : sql``}
    ${f.owners ? sql`AND ${ownedNodes(sql, f.owners)}` : sql``}`;
}

/**
 * One page of the directory, ordered by id (creation order), with the total match count, in one
 * statement (one round trip; the count is an index-only scan). OFFSET skips over the matching ids
 * alone, and only the page's rows are read whole: skipping (and sorting) whole rows made a late
 * page dear, 44 ms at the median for the last page of 10,000 nodes against 27 ms so, and the first
 * page 6.4 against 8.1 ms (EXPLAIN ANALYZE, 15 runs each interleaved, load average 8). The page
 * comes as the JSON text of its items (GET /v1/nodes `items`: id, name, country, region, city,
 * asn, provider, status, tags, capabilities, last_seen_at as an ISO 8601 UTC string with
 * milliseconds, as Date#toISOString writes it), built by Postgres: reading 200 rows into objects
 * and writing them out again cost this process ~2 ms per page.
 */
export async function listNodesJson(sql: Sql, f: NodeFilter, page: number, page_size: number): Promise<{ items_json: string; total: number }> {
  const [found] = await sql<Array<{ total: number; items_json: string }>>`
    SELECT c.total, coalesce((
      -- last_seen_at (the holder's lease for an online node) only for the page's rows, not for
      -- every row OFFSET skips: evaluated inside the scan it cost 14 ms on page 47 of 10,000 nodes.
      SELECT json_agg(json_build_object(
          'id', n.id, 'name', n.name, 'country', n.country, 'region', n.region, 'city', n.city, 'asn', n.asn,
          'provider', n.provider, 'status', n.status, 'tags', n.tags, 'capabilities', n.capabilities,
          'last_seen_at', to_char((CASE WHEN n.status = 'online'
              THEN coalesce((SELECT h.lease_at FROM hub_instances h WHERE h.instance_id = n.instance_id), n.last_seen_at)
              ELSE n.last_seen_at END) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
        ) ORDER BY n.id)
      FROM nodes n
      WHERE n.id IN (SELECT id FROM nodes WHERE ${listWhere(sql, f)} ORDER BY id LIMIT ${page_size} OFFSET ${(page - 1) * page_size})
    ), '[]')::text AS items_json
    FROM (SELECT count(*)::int AS total FROM nodes WHERE ${listWhere(sql, f)}) c`;
  return { items_json: found!.items_json, total: found!.total };
}

/**
 * Owner update (omitted fields unchanged). A change of `shared` queues the node's monitors for
 * placement (0045's trigger). @returns the updated row, or null when not found.
 */
export async function updateNode(sql: Sql, id: string, p: { name?: string; tags?: string[]; allow_private?: boolean; shared?: boolean }): Promise<NodeRow | null> {
  const [row] = await sql<NodeRow[]>`
    UPDATE nodes SET
      name = COALESCE(${p.name ?? null}, name),
      tags = COALESCE(${p.tags ?? null}::text[], tags),
      allow_private = COALESCE(${p.allow_private ?? null}, allow_private),
      shared = COALESCE(${p.shared ?? null}::boolean, shared)
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
