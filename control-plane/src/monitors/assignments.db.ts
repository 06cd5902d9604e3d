import type { MonitorType } from '@vantage/shared-protocol';
import type postgres from 'postgres';
import type { Sql } from '../db/sql.js';
import type { NodeTrustFacts } from '../secrets/node-trust.js';

/*
 * SQL of the assignments a node receives (0024_monitor_placement.sql): its version and the
 * active monitors placed on it. Each read is one statement, so version and set come from one
 * snapshot.
 */

/** What an assignment is built from: the monitor's columns. */
export interface AssignmentRow {
  id: string;
  /** The owner, creator and team (null: personal), whose secrets its headers carry. */
  user_id: string;
  team_id: string | null;
  revision: number;
  type: MonitorType;
  target: string;
  config: Record<string, unknown>;
  interval_s: number;
  private_target: boolean;
}

/** A node's owner (account and team) and platform mark as the secrets rule reads them (a removed or unknown node: trusted with nothing). */
const NODE_TRUST = (sql: Sql, node_id: string | postgres.Fragment) => sql`
  (SELECT json_build_object('owner_user_id', t.owner_user_id, 'team_id', t.team_id, 'platform', t.platform) FROM nodes t WHERE t.id = ${node_id} AND t.removed_at IS NULL)`;
const UNTRUSTED: NodeTrustFacts = { owner_user_id: null, team_id: null, platform: false };

/**
 * The node's assignment version (0 before its first), (monitor id → revision) of its set, and
 * its owner and platform mark (secrets/node-trust.ts), from one snapshot.
 */
export async function assignmentIndex(sql: Sql, node_id: string): Promise<{ version: number; monitors: Map<string, number>; node: NodeTrustFacts }> {
  const rows = await sql<{ version: number; node: NodeTrustFacts | null; id: string | null; revision: number | null }[]>`
    SELECT v.version, ${NODE_TRUST(sql, node_id)} AS node, s.id, s.revision FROM
      (SELECT coalesce(max(version), 0)::float8 AS version FROM node_assignments WHERE node_id = ${node_id}) v
    LEFT JOIN LATERAL (
      SELECT m.id, m.revision::int AS revision FROM monitor_placements p JOIN monitors m ON m.id = p.monitor_id
      WHERE p.node_id = ${node_id} AND p.ended_at IS NULL AND m.status = 'active') s ON true`;
  const monitors = new Map<string, number>();
  for (const r of rows) if (r.id !== null) monitors.set(r.id, r.revision!);
  return { version: Number(rows[0]?.version ?? 0), monitors, node: rows[0]?.node ?? UNTRUSTED };
}

/** A node's full set: its version, its owner and platform mark, and its monitors whole. */
export interface AssignmentSet {
  version: number;
  node: NodeTrustFacts;
  rows: AssignmentRow[];
}

/**
 * Each node's assignment version, owner and platform mark, and every active monitor placed on it,
 * whole (a full set), for many nodes in one statement (a burst of hellos after a restart). Every
 * node of `node_ids` is in the answer (version 0 and no rows before its first assignment).
 */
export async function assignmentSets(sql: Sql, node_ids: string[]): Promise<Map<string, AssignmentSet>> {
  const sets = new Map(node_ids.map((id): [string, AssignmentSet] => [id, { version: 0, node: UNTRUSTED, rows: [] }]));
  if (node_ids.length === 0) return sets;
  const rows = await sql<Array<{ node_id: string; version: number; node: NodeTrustFacts | null } & { [K in keyof AssignmentRow]: AssignmentRow[K] | null }>>`
    SELECT n.id AS node_id, v.version, ${NODE_TRUST(sql, sql`n.id`)} AS node, s.* FROM unnest(${[...sets.keys()]}::text[]) AS n(id)
    CROSS JOIN LATERAL (SELECT coalesce(max(version), 0)::float8 AS version FROM node_assignments WHERE node_id = n.id) v
    LEFT JOIN LATERAL (
      SELECT m.id, m.user_id, m.team_id, m.revision::int AS revision, m.type, m.target, m.config, m.interval_s, m.private_target
      FROM monitor_placements p JOIN monitors m ON m.id = p.monitor_id
      WHERE p.node_id = n.id AND p.ended_at IS NULL AND m.status = 'active') s ON true`;
  for (const { node_id, version, node, ...r } of rows) {
    const set = sets.get(node_id)!;
    set.version = Number(version);
    set.node = node ?? UNTRUSTED;
    if (r.id !== null) set.rows.push(r as AssignmentRow);
  }
  return sets;
}

/** The monitors `ids` (those that still exist), whole. */
export async function assignmentRows(sql: Sql, ids: string[]): Promise<AssignmentRow[]> {
  if (ids.length === 0) return [];
  return sql<AssignmentRow[]>`
    SELECT id, user_id, team_id, revision::int AS revision, type, target, config, interval_s, private_target FROM monitors WHERE id = ANY(${ids}::text[])`;
}

/** Current assignment versions of `node_ids` (nodes without one are missing: version 0). */
export async function assignmentVersions(sql: Sql, node_ids: string[]): Promise<Map<string, number>> {
  if (node_ids.length === 0) return new Map();
  const rows = await sql<{ node_id: string; version: number }[]>`
    SELECT node_id, version::float8 AS version FROM node_assignments WHERE node_id = ANY(${node_ids}::text[])`;
  return new Map(rows.map((r) => [r.node_id, Number(r.version)]));
}

/**
 * Record that nodes confirmed holding their `version` (assignments.ack), in one statement for
 * many (every node acks its full set right after a restart's hellos); older acks never overwrite
 * newer ones. Rows are written in node id order.
 */
export async function recordAssignmentsAcks(sql: Sql, acks: Array<{ node_id: string; version: number }>): Promise<void> {
  // One row per node (an upsert may not touch a row twice): its highest version.
  const top = new Map<string, number>();
  for (const a of acks) top.set(a.node_id, Math.max(a.version, top.get(a.node_id) ?? -Infinity));
  if (top.size === 0) return;
  const rows = [...top].sort(([a], [b]) => (a < b ? -1 : 1)).map(([node_id, version]) => ({ node_id, version }));
  await sql`
    INSERT INTO node_assignments (node_id, version, acked_version, acked_at)
    SELECT node_id, version, version, now() FROM jsonb_to_recordset(${sql.json(rows as never)}) AS a(node_id text, version bigint)
    ON CONFLICT (node_id) DO UPDATE SET acked_version = EXCLUDED.acked_version, acked_at = now()
    WHERE node_assignments.acked_version IS NULL OR node_assignments.acked_version < EXCLUDED.acked_version`;
}

/** Record one node's ack ({@link recordAssignmentsAcks} for one). */
export async function recordAssignmentsAck(sql: Sql, node_id: string, version: number): Promise<void> {
  await sql`
    INSERT INTO node_assignments (node_id, version, acked_version, acked_at) VALUES (${node_id}, ${version}, ${version}, now())
    ON CONFLICT (node_id) DO UPDATE SET acked_version = EXCLUDED.acked_version, acked_at = now()
    WHERE node_assignments.acked_version IS NULL OR node_assignments.acked_version < EXCLUDED.acked_version`;
}

/** True when `monitor_id` is placed on `node_id` now, or was until less than `history_ms` ago. */
export async function wasPlaced(sql: Sql, node_id: string, monitor_id: string, history_ms: number): Promise<boolean> {
  const [row] = await sql<{ ok: boolean }[]>`
    SELECT EXISTS (SELECT 1 FROM monitor_placements WHERE monitor_id = ${monitor_id} AND node_id = ${node_id}
      AND (ended_at IS NULL OR ended_at > now() - make_interval(secs => ${history_ms / 1000}))) AS ok`;
  return row!.ok;
}
