import type { NodeStatus } from '@vantage/shared-protocol';
import type { Sql } from '../db/sql.js';

/*
 * Which control-plane instance holds which node's socket (docs/architecture/hub.md, several
 * instances): each instance's lease row, releasing the nodes of an instance that closed or died,
 * reclaiming them after a stale-lease release, where a node's socket is, and the relay rows of
 * messages too large for a NOTIFY.
 */

/**
 * Every node recorded against `instance_id` goes offline and its lease row is deleted: crash
 * recovery at start (a previous run under the same name) and a graceful close. The rows are
 * locked in id order, as every statement over many nodes' rows locks them (nodes.db.ts
 * markNodesOnline, markNodesOffline; node-reports.db.ts recordOutboxStatsMany): a batch of a killed run's backend
 * still finishing, or the offline marks of links closing during a close, then cannot deadlock
 * with it. @returns how many
 */
export async function releaseInstanceNodes(sql: Sql, instance_id: string): Promise<number> {
  const rows = await sql`
    WITH lease AS (DELETE FROM hub_instances WHERE instance_id = ${instance_id}),
      locked AS (
        SELECT n.id FROM nodes n WHERE n.instance_id = ${instance_id} AND n.status IN ('online', 'offline')
        ORDER BY n.id FOR NO KEY UPDATE OF n
      )
    UPDATE nodes SET status = 'offline', instance_id = NULL,
      last_seen_at = CASE WHEN nodes.status = 'online' THEN now() ELSE nodes.last_seen_at END
    FROM locked
    WHERE nodes.id = locked.id AND nodes.instance_id = ${instance_id} AND nodes.status IN ('online', 'offline')
    RETURNING nodes.id`;
  return rows.length;
}

/**
 * Refresh this instance's lease (one row per instance, not one per node: node liveness is kept in
 * memory). @returns true when the row had to be created: at start, or after another instance
 * found the lease stale and released this instance's nodes (the caller then reclaims the nodes it
 * still holds with {@link reclaimNodes}).
 */
export async function refreshInstanceLease(sql: Sql, instance_id: string): Promise<boolean> {
  const [row] = await sql<{ created: boolean }[]>`
    INSERT INTO hub_instances (instance_id) VALUES (${instance_id})
    ON CONFLICT (instance_id) DO UPDATE SET lease_at = now()
    RETURNING (xmax = 0) AS created`;
  return row!.created;
}

/**
 * Put back online the nodes of `ids` that this instance still holds after a stale-lease release
 * took them offline. Disabled, removed and elsewhere-held nodes are left alone. @returns the ids changed
 */
export async function reclaimNodes(sql: Sql, ids: string[], instance_id: string): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await sql<{ id: string }[]>`
    UPDATE nodes SET status = 'online', instance_id = ${instance_id}
    WHERE id = ANY(${ids}) AND removed_at IS NULL AND status = 'offline' AND (instance_id IS NULL OR instance_id = ${instance_id})
    RETURNING id`;
  return rows.map((r) => r.id);
}

/**
 * Instances whose lease is older than `stale_ms` (crashed, or cut from the database) lose their
 * nodes, in one statement any instance may run: the leases are deleted, their nodes go offline
 * with last_seen_at = the last lease, and so do online nodes whose holder has no lease at all.
 * The holders are found by skipping through nodes_instance_idx (one index probe per instance, as
 * many as there are instances), and only their nodes are visited: testing every online node for
 * a lease took 15 ms of the database's CPU at 10,000 nodes on a quiet machine, 100-300 ms on a
 * busy one, every heartbeat interval on every instance. Their rows are locked in id order (see
 * {@link releaseInstanceNodes}).
 * @returns the ids taken offline
 */
export async function releaseDeadInstances(sql: Sql, stale_ms: number): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    WITH RECURSIVE dead AS (
      DELETE FROM hub_instances WHERE lease_at < now() - make_interval(secs => ${stale_ms / 1000})
      RETURNING instance_id, lease_at
    ), holders(instance_id) AS (
      (SELECT instance_id FROM nodes WHERE instance_id IS NOT NULL ORDER BY instance_id LIMIT 1)
      UNION ALL
      SELECT (SELECT n.instance_id FROM nodes n WHERE n.instance_id > h.instance_id ORDER BY n.instance_id LIMIT 1)
      FROM holders h WHERE h.instance_id IS NOT NULL
    ), gone AS (
      SELECT instance_id FROM dead
      UNION
      SELECT h.instance_id FROM holders h
      WHERE h.instance_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM hub_instances i WHERE i.instance_id = h.instance_id)
    ), locked AS (
      SELECT l.id FROM nodes l WHERE l.status = 'online' AND l.instance_id IN (SELECT instance_id FROM gone)
      ORDER BY l.id FOR NO KEY UPDATE OF l
    )
    UPDATE nodes n SET status = 'offline', instance_id = NULL,
      last_seen_at = coalesce((SELECT d.lease_at FROM dead d WHERE d.instance_id = n.instance_id), n.last_seen_at)
    FROM locked
    WHERE n.id = locked.id AND n.status = 'online' AND n.instance_id IN (SELECT instance_id FROM gone)
    RETURNING n.id`;
  return rows.map((r) => r.id);
}

/**
 * Where a node's socket is: its status and the instance holding it, or null when unknown/removed.
 * A holder whose lease is older than `stale_ms` (or missing) is reported as no holder: it is gone.
 */
export async function nodeHolder(sql: Sql, id: string, stale_ms: number): Promise<{ status: NodeStatus; instance_id: string | null } | null> {
  const [row] = await sql<Array<{ status: NodeStatus; instance_id: string | null }>>`
    SELECT n.status, h.instance_id FROM nodes n
    LEFT JOIN hub_instances h ON h.instance_id = n.instance_id AND h.lease_at > now() - make_interval(secs => ${stale_ms / 1000})
    WHERE n.id = ${id} AND n.removed_at IS NULL`;
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
