import type { CheckSpec, ProbeType } from '@vantage/shared-protocol';
import type { Sql } from '../db/sql.js';
import type { AggNode, AggResult, AggTask } from './aggregate.js';

/** A stored node result as a group read returns it (probe_results columns). */
export interface GroupResult extends AggResult {
  result_id: string;
  seq: number;
  from_node: boolean;
  /** A control-plane failure standing in for the node's result (aggregate.ts isReplaceable). */
  replaceable: boolean;
}

/** A task as a group read returns it (probe_tasks columns). */
export interface GroupTask extends AggTask {
  group_id: string;
  deadline_at: Date;
}

/** A probe group read in one statement: its tasks by ordinal, their results by seq, their nodes' facts. */
export interface GroupRead {
  group_id: string;
  tasks: GroupTask[];
  results: GroupResult[];
  nodes: AggNode[];
}

interface Row {
  id: string; group_id: string; node_id: string; probe_type: ProbeType | null; target: string | null; check: CheckSpec | null;
  status: AggTask['status']; created_at: Date; finished_at: Date | null; deadline_at: Date;
  result_id: string | null; seq: number | null; from_node: boolean | null; replaceable: boolean | null; success: boolean | null; error: string | null;
  error_class: string | null; output: Record<string, unknown> | null; result_finished_at: Date | null; stored_at: Date | null;
  name: string | null; asn: number | null; city: string | null; country: string | null; isp: string | null;
}

/**
 * The whole group that `task_id` belongs to, from ONE statement, so tasks, results and nodes come
 * from the same snapshot: a result committed while the group is read is seen together with the
 * task it ended (finished_at set), never half (the group then looked ended while its last task
 * did not, and `completed_at` read 1970-01-01). A group's type, target and check are the same on
 * every task, so they are transferred with the first task only. Null when `task_id` is unknown.
 */
export async function readGroup(sql: Sql, task_id: string): Promise<GroupRead | null> {
  const rows = await sql<Row[]>`
    SELECT t.id, t.group_id, t.node_id, t.status, t.created_at, t.finished_at, t.deadline_at,
      CASE WHEN t.ordinal = 0 THEN t.probe_type END AS probe_type,
      CASE WHEN t.ordinal = 0 THEN t.target END AS target,
      CASE WHEN t.ordinal = 0 THEN t."check" END AS "check",
      r.result_id, r.seq, r.from_node, r.replaceable, r.success, r.error, r.error_class, r.output,
      r.finished_at AS result_finished_at, r.stored_at,
      n.name, n.asn, n.city, n.country, n.isp
    FROM probe_tasks t
    LEFT JOIN probe_results r ON r.task_id = t.id
    LEFT JOIN nodes n ON n.id = t.node_id
    WHERE t.group_id = (SELECT group_id FROM probe_tasks WHERE id = ${task_id})
    ORDER BY t.ordinal`;
  const head = rows[0];
  if (!head || head.probe_type === null) return null;
  const { probe_type, target, check } = head as Row & { probe_type: ProbeType; target: string; check: CheckSpec };
  const tasks: GroupTask[] = [];
  const results: GroupResult[] = [];
  const nodes = new Map<string, AggNode>();
  for (const r of rows) {
    tasks.push({
      id: r.id, group_id: r.group_id, node_id: r.node_id, probe_type, target, check, status: r.status,
      created_at: r.created_at, finished_at: r.finished_at, deadline_at: r.deadline_at,
    });
    if (r.result_id !== null) {
      results.push({
        result_id: r.result_id, seq: Number(r.seq), from_node: r.from_node!, replaceable: r.replaceable!, task_id: r.id, node_id: r.node_id,
        success: r.success!, error: r.error, error_class: r.error_class, output: r.output,
        finished_at: r.result_finished_at!, stored_at: r.stored_at!,
      });
    }
    if (r.name !== null) nodes.set(r.node_id, { node_id: r.node_id, name: r.name, asn: r.asn, city: r.city, country: r.country, isp: r.isp });
  }
  results.sort((a, b) => a.seq - b.seq);
  return { group_id: head.group_id, tasks, results, nodes: [...nodes.values()] };
}

/**
 * The results of `group_id` (oldest first by seq) without their tasks' rows: what an SSE stream
 * re-reads while it waits, cheaper than {@link readGroup} for a large group.
 */
export async function groupResults(sql: Sql, group_id: string): Promise<GroupResult[]> {
  const rows = await sql<GroupResult[]>`
    SELECT result_id, seq, from_node, replaceable, task_id, node_id, success, error, error_class, output, finished_at, stored_at
    FROM probe_results WHERE group_id = ${group_id} ORDER BY seq`;
  return rows.map((r) => ({ ...r, seq: Number(r.seq) }));
}

/** What identifies a state of a group cheaply: its results (count, highest seq) and whether any task started. */
export interface GroupVersion { group_id: string; results: number; max_seq: number; started: boolean }

/**
 * The version of the group of `task_id` in one small statement (index-only over the group's
 * results), or null when the id is unknown. Two reads with equal versions saw the same group: a
 * result is only ever added (seq grows) or replaced (delete + insert, so a new seq), and a task
 * changes otherwise only from queued to running.
 */
export async function groupVersion(sql: Sql, task_id: string): Promise<GroupVersion | null> {
  const [row] = await sql<GroupVersion[]>`
    SELECT g.group_id,
      (SELECT count(*)::int FROM probe_results r WHERE r.group_id = g.group_id) AS results,
      (SELECT coalesce(max(r.seq), 0) FROM probe_results r WHERE r.group_id = g.group_id) AS max_seq,
      EXISTS (SELECT 1 FROM probe_tasks t WHERE t.group_id = g.group_id AND t.status <> 'queued') AS started
    FROM probe_tasks g WHERE g.id = ${task_id}`;
  return row ? { ...row, max_seq: Number(row.max_seq) } : null;
}

/**
 * Results of `group_id` stored after `after_seq`, each with its task's end (the task row is
 * written in the same transaction as its result, so both come from one snapshot), oldest first.
 */
export async function resultsSince(sql: Sql, group_id: string, after_seq: number): Promise<Array<GroupResult & { task_finished_at: Date | null; task_status: AggTask['status'] }>> {
  const rows = await sql<Array<GroupResult & { task_finished_at: Date | null; task_status: AggTask['status'] }>>`
    SELECT r.result_id, r.seq, r.from_node, r.replaceable, r.task_id, r.node_id, r.success, r.error, r.error_class, r.output,
      r.finished_at, r.stored_at, t.finished_at AS task_finished_at, t.status AS task_status
    FROM probe_results r JOIN probe_tasks t ON t.id = r.task_id
    WHERE r.group_id = ${group_id} AND r.seq > ${after_seq} ORDER BY r.seq`;
  return rows.map((r) => ({ ...r, seq: Number(r.seq) }));
}
