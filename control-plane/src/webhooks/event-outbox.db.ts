import type { SqlExecutor } from '../contracts.js';
import type { Sql } from '../db/sql.js';

/** An `event_outbox` row (0022_event_outbox.sql): an event a trigger recorded with the change it reports. */
export interface OutboxRow {
  id: number;
  type: 'node.online' | 'node.offline' | 'probe.completed';
  user_id: string;
  subject_id: string;
  occurred_at: Date;
}

/** Take up to `limit` unrelayed rows, oldest first (FOR UPDATE SKIP LOCKED: instances take disjoint rows), in `tx`. */
export async function claimOutbox(tx: SqlExecutor, limit: number): Promise<OutboxRow[]> {
  return tx<OutboxRow[]>`
    SELECT id, type, user_id, subject_id, occurred_at FROM event_outbox
    WHERE relayed_at IS NULL ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED`;
}

/** Mark rows relayed (their deliveries are queued in the same transaction). */
export async function markRelayed(tx: SqlExecutor, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await tx`UPDATE event_outbox SET relayed_at = now() WHERE id IN ${tx(ids)}`;
}

/** Delete rows relayed more than `days` ago. @returns how many */
export async function pruneOutbox(sql: Sql, days: number): Promise<number> {
  const rows = await sql`
    DELETE FROM event_outbox WHERE id IN (
      SELECT id FROM event_outbox WHERE relayed_at < now() - make_interval(days => ${days}) LIMIT 5000)
    RETURNING id`;
  return rows.length;
}

/** The facts of a node an event names (removed nodes included: their last event is still news). */
export interface NodeFacts {
  id: string; name: string; country: string | null; region: string | null; city: string | null; asn: number | null; provider: string | null;
}

/** Facts of the nodes `ids`, by id. */
export async function nodeFacts(ex: SqlExecutor, ids: string[]): Promise<Map<string, NodeFacts>> {
  if (ids.length === 0) return new Map();
  const rows = await ex<NodeFacts[]>`
    SELECT id, name, country, region, city, asn, provider FROM nodes WHERE id IN ${ex(ids)}`;
  return new Map(rows.map((r) => [r.id, r]));
}

/** What probe.completed says about a probe group. */
export interface ProbeGroupFacts {
  group_id: string;
  task_ids: string[];
  probe_type: string;
  target: string;
  success_count: number;
  fail_count: number;
  created_at: Date;
  completed_at: Date;
}

/** Facts of the probe groups `group_ids` (group id = its first task's id), by group id. */
export async function probeGroupFacts(ex: SqlExecutor, group_ids: string[]): Promise<Map<string, ProbeGroupFacts>> {
  if (group_ids.length === 0) return new Map();
  const rows = await ex<ProbeGroupFacts[]>`
    SELECT t.group_id, array_agg(t.id ORDER BY t.ordinal) AS task_ids, min(t.probe_type) AS probe_type, min(t.target) AS target,
      count(*) FILTER (WHERE r.success)::int AS success_count, count(*) FILTER (WHERE NOT r.success)::int AS fail_count,
      min(t.created_at) AS created_at, max(r.finished_at) AS completed_at
    FROM probe_tasks t LEFT JOIN probe_results r ON r.task_id = t.id
    WHERE t.group_id IN ${ex(group_ids)}
    GROUP BY t.group_id`;
  return new Map(rows.map((r) => [r.group_id, r]));
}
