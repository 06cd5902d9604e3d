import type { SqlExecutor } from '../contracts.js';
import type { Sql } from '../db/sql.js';
import type { PlacementMonitor, PlacementNode } from './placement.js';
import { monitorSecretHeaders } from './placement-status.js';

/*
 * SQL of monitor placement (0024_monitor_placement.sql): the node snapshot, the queue, the
 * placements and the per-node assignment versions.
 */

/** A monitor as placement reads it, with its revision (what its nodes must hold). */
export interface PlacementMonitorRow extends PlacementMonitor {
  revision: number;
}

// Its request headers come along (names and sealed values, a few hundred bytes): whether they
// carry secrets is decided by placement-status.ts, not by SQL.
const MONITOR = (sql: SqlExecutor) => sql`m.id, m.user_id, m.team_id, m.type, m.node_count, m.private_target, m.status, m.revision::int AS revision, m.config->'headers' AS headers`;

/** A monitor as MONITOR reads it. */
type MonitorColumns = Omit<PlacementMonitorRow, 'secret_headers'> & { headers: unknown };

/** The placement view of a row read with MONITOR: `headers` become `secret_headers`. */
function placementMonitor<T extends MonitorColumns>(row: T): Omit<T, 'headers'> & { secret_headers: boolean } {
  const { headers, ...m } = row;
  return { ...m, secret_headers: monitorSecretHeaders(m.type, headers).length > 0 };
}

/**
 * Every node that is not removed, as placement sees it ({@link PlacementNode}): `state` online,
 * grace (offline for less than `grace_ms`: its last_seen_at is when it went offline) or gone, and
 * `load` = its live placements. One pass over nodes and one index-only count of placements.
 */
export async function placementNodes(sql: SqlExecutor, grace_ms: number): Promise<Map<string, PlacementNode>> {
  const rows = await sql<PlacementNode[]>`
    SELECT n.id, n.country_key AS country, n.asn, n.capabilities, n.owner_user_id, n.team_id, n.allow_private, n.platform, n.shared,
      CASE WHEN n.status = 'online' THEN 'online'
        WHEN n.status = 'offline' AND n.last_seen_at > now() - make_interval(secs => ${grace_ms / 1000}) THEN 'grace'
        ELSE 'gone' END AS state,
      coalesce(l.load, 0)::int AS load
    FROM nodes n
    LEFT JOIN (SELECT node_id, count(*) AS load FROM monitor_placements WHERE ended_at IS NULL GROUP BY node_id) l ON l.node_id = n.id
    WHERE n.removed_at IS NULL`;
  return new Map(rows.map((r) => [r.id, r]));
}

/**
 * Claim up to `limit` queued monitors that are due, oldest first, locking the queue rows and the
 * monitors (FOR UPDATE SKIP LOCKED: another instance's job, or a request placing one of them
 * now, simply skips them). Call inside a transaction.
 */
export async function claimQueued(tx: SqlExecutor, limit: number): Promise<PlacementMonitorRow[]> {
  const rows = await tx<MonitorColumns[]>`
    SELECT ${MONITOR(tx)} FROM placement_queue q JOIN monitors m ON m.id = q.monitor_id
    WHERE q.due_at <= now() ORDER BY q.due_at LIMIT ${limit}
    FOR UPDATE OF q, m SKIP LOCKED`;
  return rows.map(placementMonitor);
}

/**
 * Lock one monitor for placement (waits for a job that holds it) and read its live placement
 * (node id → revision) in the same statement. @returns null when it does not exist
 */
export async function lockMonitor(tx: SqlExecutor, id: string): Promise<{ monitor: PlacementMonitorRow; placed: Map<string, number> } | null> {
  const [row] = await tx<Array<MonitorColumns & { placed: Record<string, number> | null }>>`
    SELECT ${MONITOR(tx)}, (SELECT jsonb_object_agg(p.node_id, p.revision) FROM monitor_placements p
      WHERE p.monitor_id = m.id AND p.ended_at IS NULL) AS placed
    FROM monitors m WHERE m.id = ${id} FOR UPDATE OF m`;
  if (!row) return null;
  const { placed, ...monitor } = row;
  return { monitor: placementMonitor(monitor), placed: new Map(Object.entries(placed ?? {}).map(([node, rev]) => [node, Number(rev)])) };
}

/** Lock the given monitors that still exist, skipping those another transaction holds (rebalance). */
export async function lockMonitorsSkipping(tx: SqlExecutor, ids: string[]): Promise<PlacementMonitorRow[]> {
  if (ids.length === 0) return [];
  const rows = await tx<MonitorColumns[]>`SELECT ${MONITOR(tx)} FROM monitors m WHERE m.id = ANY(${ids}::text[]) FOR UPDATE OF m SKIP LOCKED`;
  return rows.map(placementMonitor);
}

/** Live placements of `monitor_ids`: monitor id → node id → the revision its nodes were bumped for. */
export async function livePlacements(sql: SqlExecutor, monitor_ids: string[]): Promise<Map<string, Map<string, number>>> {
  const out = new Map<string, Map<string, number>>(monitor_ids.map((id) => [id, new Map()]));
  if (monitor_ids.length === 0) return out;
  const rows = await sql<{ monitor_id: string; node_id: string; revision: number }[]>`
    SELECT monitor_id, node_id, revision::int AS revision FROM monitor_placements
    WHERE monitor_id = ANY(${monitor_ids}::text[]) AND ended_at IS NULL`;
  for (const r of rows) out.get(r.monitor_id)?.set(r.node_id, r.revision);
  return out;
}

/** Placement writes of one transaction, all monitors at once. */
export interface PlacementWrites {
  /** (monitor, node) placements that end now. */
  end: Array<[string, string]>;
  /** (monitor, node, revision) placements that start now (or start again). */
  add: Array<[string, string, number]>;
  /** (monitor, revision) of kept placements whose nodes must receive the monitor again. */
  revise: Array<[string, number]>;
  /** Monitors fully placed: leave the queue. */
  done: string[];
  /** Monitors short of nodes: retried `retry_ms` from now. */
  short: string[];
  retry_ms: number;
}

/**
 * Apply {@link PlacementWrites} in the caller's transaction: end and start placements, move kept
 * ones to the monitor's revision, update the queue, and bump the assignment version of every node
 * whose set changed (bump_node_assignments: NOTIFY vantage_assignments at commit, so the instance
 * holding each node sends it a delta). @returns the nodes bumped
 */
export async function writePlacements(tx: SqlExecutor, w: PlacementWrites): Promise<string[]> {
  // One statement (one round trip, whatever the batch). A kept placement that ends now is left
  // out of `revised`: a row must not be updated twice by one statement.
  const [row] = await tx<{ bumped: string[] }[]>`
    WITH ending AS (SELECT * FROM unnest(${w.end.map((e) => e[0])}::text[], ${w.end.map((e) => e[1])}::text[]) AS u(monitor_id, node_id)),
    ended AS (
      UPDATE monitor_placements p SET ended_at = now() FROM ending u
      WHERE p.monitor_id = u.monitor_id AND p.node_id = u.node_id AND p.ended_at IS NULL
      RETURNING p.node_id),
    added AS (
      INSERT INTO monitor_placements (monitor_id, node_id, revision)
      SELECT * FROM unnest(${w.add.map((a) => a[0])}::text[], ${w.add.map((a) => a[1])}::text[], ${w.add.map((a) => a[2])}::bigint[])
      ON CONFLICT (monitor_id, node_id) DO UPDATE SET ended_at = NULL, placed_at = now(), revision = EXCLUDED.revision
      RETURNING node_id),
    revised AS (
      UPDATE monitor_placements p SET revision = u.revision
      FROM unnest(${w.revise.map((r) => r[0])}::text[], ${w.revise.map((r) => r[1])}::bigint[]) AS u(monitor_id, revision)
      WHERE p.monitor_id = u.monitor_id AND p.ended_at IS NULL AND p.revision <> u.revision
        AND NOT EXISTS (SELECT 1 FROM ending e WHERE e.monitor_id = p.monitor_id AND e.node_id = p.node_id)
      RETURNING p.node_id),
    done AS (DELETE FROM placement_queue WHERE monitor_id = ANY(${w.done}::text[])),
    short AS (
      INSERT INTO placement_queue (monitor_id, due_at, reason)
      SELECT id, now() + make_interval(secs => ${w.retry_ms / 1000}), 'short of nodes' FROM unnest(${w.short}::text[]) AS id
      ON CONFLICT (monitor_id) DO UPDATE SET due_at = EXCLUDED.due_at, reason = EXCLUDED.reason),
    touched AS (SELECT node_id FROM ended UNION SELECT node_id FROM added UNION SELECT node_id FROM revised)
    SELECT ARRAY(SELECT node_id FROM touched ORDER BY node_id) AS bumped, bump_node_assignments(ARRAY(SELECT node_id FROM touched))`;
  return row!.bumped;
}

/**
 * Queue the monitors placed on nodes that are gone: disabled, banned, removed, or offline for
 * longer than `grace_ms`. Idempotent (a monitor already queued keeps its place); any instance may
 * run it. @returns how many monitors were queued
 */
export async function queueMonitorsOfGoneNodes(sql: Sql, grace_ms: number): Promise<number> {
  const rows = await sql`
    INSERT INTO placement_queue (monitor_id, reason)
    SELECT DISTINCT p.monitor_id, 'node gone' FROM nodes n
    JOIN monitor_placements p ON p.node_id = n.id AND p.ended_at IS NULL
    WHERE n.removed_at IS NOT NULL OR n.status IN ('disabled', 'banned')
      OR (n.status = 'offline' AND (n.last_seen_at IS NULL OR n.last_seen_at <= now() - make_interval(secs => ${grace_ms / 1000})))
    ON CONFLICT (monitor_id) DO UPDATE SET due_at = least(placement_queue.due_at, now()), reason = EXCLUDED.reason
    RETURNING monitor_id`;
  return rows.length;
}

/** When the next queued monitor is due, ms from now (null: the queue is empty). */
export async function nextQueuedInMs(sql: Sql): Promise<number | null> {
  const [row] = await sql<{ ms: number | null }[]>`
    SELECT (extract(epoch FROM min(due_at) - now()) * 1000)::int AS ms FROM placement_queue`;
  return row?.ms ?? null;
}

/**
 * A page of active monitors that run on nodes, by id after `after_id`, with their live placement
 * node ids (the rebalancer walks every monitor this way, a page per pass).
 */
export async function placedMonitorsPage(sql: SqlExecutor, after_id: string, limit: number): Promise<Array<PlacementMonitorRow & { node_ids: string[] }>> {
  const rows = await sql<Array<MonitorColumns & { node_ids: string[] }>>`
    SELECT ${MONITOR(sql)},
      ARRAY(SELECT p.node_id FROM monitor_placements p WHERE p.monitor_id = m.id AND p.ended_at IS NULL) AS node_ids
    FROM (SELECT * FROM monitors WHERE status = 'active' AND node_count > 0 AND NOT private_target AND id > ${after_id}
          ORDER BY id LIMIT ${limit}) m
    ORDER BY m.id`;
  return rows.map(placementMonitor);
}

/** Take a transaction-scoped advisory lock named `name` if free (one instance runs a job at a time). */
export async function tryJobLock(tx: SqlExecutor, name: string): Promise<boolean> {
  const [row] = await tx<{ ok: boolean }[]>`SELECT pg_try_advisory_xact_lock(hashtext(${name})) AS ok`;
  return row!.ok;
}

/**
 * Forget ended placements older than `keep_ms` (results buffered that long ago are no longer
 * accepted). Their monitors' rows are locked first, in id order, as every placement writer locks
 * them (a delete moves the placement version: 0100_monitor_placement_version.sql): taking a
 * placement row first could deadlock with a transaction placing that node again. @returns how many
 */
export async function pruneEndedPlacements(sql: Sql, keep_ms: number): Promise<number> {
  const rows = await sql`
    WITH locked AS MATERIALIZED (
      SELECT m.id FROM monitors m WHERE m.id IN (SELECT monitor_id FROM monitor_placements
        WHERE ended_at IS NOT NULL AND ended_at < now() - make_interval(secs => ${keep_ms / 1000}))
      ORDER BY m.id FOR NO KEY UPDATE OF m)
    DELETE FROM monitor_placements p USING locked l
    WHERE p.monitor_id = l.id AND p.ended_at IS NOT NULL AND p.ended_at < now() - make_interval(secs => ${keep_ms / 1000})
    RETURNING p.monitor_id`;
  return rows.length;
}

/** Of `ids`, the nodes online now. */
export async function onlineNodeIds(sql: SqlExecutor, ids: string[]): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`SELECT id FROM nodes WHERE id = ANY(${ids}::text[]) AND status = 'online' AND removed_at IS NULL`;
  return rows.map((r) => r.id);
}

/** The live placement node ids of `monitor_id`, ordered. */
export async function placementNodeIds(sql: SqlExecutor, monitor_id: string): Promise<string[]> {
  const rows = await sql<{ node_id: string }[]>`
    SELECT node_id FROM monitor_placements WHERE monitor_id = ${monitor_id} AND ended_at IS NULL ORDER BY node_id`;
  return rows.map((r) => r.node_id);
}
