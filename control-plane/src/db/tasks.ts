import type postgres from 'postgres';
import type { CheckSpec, ProbeType } from '@vantage/shared-protocol';
import type { Sql } from './sql.js';

type Executor = Sql | postgres.TransactionSql<Record<string, never>>;

/** Per-task status of 0011_probe_tasks.sql (the group status is derived, tasks/aggregate.ts). */
export type TaskRowStatus = 'queued' | 'running' | 'completed' | 'failed';

/** A `probe_tasks` row. `check` is the defaulted check spec sent in `task.run`. */
export interface TaskRow {
  id: string;
  group_id: string;
  ordinal: number;
  node_id: string;
  probe_type: ProbeType;
  target: string;
  check: CheckSpec;
  timeout_ms: number;
  requester_user_id: string | null;
  status: TaskRowStatus;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  deadline_at: Date;
}

/** A `probe_results` row: the one result of a task (from the node, or a failure we recorded). */
export interface ProbeResultRow {
  result_id: string;
  task_id: string;
  group_id: string;
  node_id: string;
  seq: number;
  from_node: boolean;
  success: boolean;
  error: string | null;
  error_class: string | null;
  output: Record<string, unknown> | null;
  started_at: Date | null;
  finished_at: Date;
}

/** The node facts a node result carries (spec 2.3 `node`), plus its name. */
export interface TaskNodeFacts {
  node_id: string;
  name: string;
  asn: number | null;
  city: string | null;
  country: string | null;
  isp: string | null;
}

/** A task to create: deadline_at = now + timeout_ms + grace_ms (computed in SQL, server clock). */
export interface NewTask {
  id: string; group_id: string; ordinal: number; node_id: string; probe_type: ProbeType; target: string;
  check: CheckSpec; timeout_ms: number; grace_ms: number; requester_user_id: string | null;
}

const TASK_COLUMNS = (sql: Executor) => sql`
  id, group_id, ordinal, node_id, probe_type, target, "check", timeout_ms, requester_user_id, status,
  created_at, started_at, finished_at, deadline_at`;
const RESULT_COLUMNS = (sql: Executor) => sql`
  result_id, task_id, group_id, node_id, seq, from_node, success, error, error_class, output, started_at, finished_at`;

/** Insert every task of one probe request in one statement (all or none). */
export async function insertTasks(sql: Executor, tasks: NewTask[]): Promise<void> {
  if (tasks.length === 0) return;
  await sql`
    INSERT INTO probe_tasks (id, group_id, ordinal, node_id, probe_type, target, "check", timeout_ms, requester_user_id, deadline_at)
    SELECT t.id, t.group_id, t.ordinal, t.node_id, t.probe_type, t.target, t."check", t.timeout_ms, t.requester_user_id,
           now() + make_interval(secs => (t.timeout_ms + t.grace_ms) / 1000.0)
    FROM jsonb_to_recordset(${sql.json(tasks as never)}) AS t(
      id text, group_id text, ordinal int, node_id text, probe_type text, target text, "check" jsonb,
      timeout_ms int, grace_ms int, requester_user_id text)`;
}

/**
 * Every task of the group that `task_id` belongs to (by ordinal), their results and their nodes'
 * facts; null when `task_id` is unknown.
 */
export async function loadGroup(sql: Sql, task_id: string): Promise<{ tasks: TaskRow[]; results: ProbeResultRow[]; nodes: TaskNodeFacts[] } | null> {
  const [head] = await sql<{ group_id: string }[]>`SELECT group_id FROM probe_tasks WHERE id = ${task_id}`;
  if (!head) return null;
  const tasks = await sql<TaskRow[]>`SELECT ${TASK_COLUMNS(sql)} FROM probe_tasks WHERE group_id = ${head.group_id} ORDER BY ordinal`;
  const results = await sql<ProbeResultRow[]>`SELECT ${RESULT_COLUMNS(sql)} FROM probe_results WHERE group_id = ${head.group_id} ORDER BY seq`;
  const nodes = await sql<TaskNodeFacts[]>`
    SELECT n.id AS node_id, n.name, n.asn, n.city, n.country, n.isp FROM nodes n
    WHERE n.id IN (SELECT node_id FROM probe_tasks WHERE group_id = ${head.group_id})`;
  return { tasks, results, nodes };
}

/** Results of `group_id` stored after `after_seq` (0 = all), oldest first (SSE stream). */
export async function resultsAfter(sql: Sql, group_id: string, after_seq: number): Promise<ProbeResultRow[]> {
  return sql<ProbeResultRow[]>`
    SELECT ${RESULT_COLUMNS(sql)} FROM probe_results WHERE group_id = ${group_id} AND seq > ${after_seq} ORDER BY seq`;
}

/** The seq of `result_id` within `group_id` (an SSE Last-Event-ID), or null when unknown. */
export async function resultSeq(sql: Sql, group_id: string, result_id: string): Promise<number | null> {
  const [row] = await sql<{ seq: number }[]>`SELECT seq FROM probe_results WHERE group_id = ${group_id} AND result_id = ${result_id}`;
  return row ? Number(row.seq) : null;
}

/** Lock task `task_id` for the rest of the transaction (FOR UPDATE), or null when unknown. */
export async function lockTask(tx: Executor, task_id: string): Promise<TaskRow | null> {
  const [row] = await tx<TaskRow[]>`SELECT ${TASK_COLUMNS(tx)} FROM probe_tasks WHERE id = ${task_id} FOR UPDATE`;
  return row ?? null;
}

/** A result to store for a task (node-made or server-made). */
export interface NewProbeResult {
  result_id: string; task_id: string; group_id: string; node_id: string; from_node: boolean; success: boolean;
  error: string | null; error_class: string | null; output: unknown | null; started_at: string | Date | null; finished_at: string | Date;
}

/**
 * Insert a task's result and end the task (completed on success, else failed) in the caller's
 * transaction. Idempotent: nothing happens when `result_id` is stored already or the task already
 * has a result (ON CONFLICT DO NOTHING covers both unique keys).
 * @returns true when this call stored it
 */
export async function storeTaskResult(tx: Executor, r: NewProbeResult): Promise<boolean> {
  const rows = await tx`
    INSERT INTO probe_results (result_id, task_id, group_id, node_id, from_node, success, error, error_class, output, started_at, finished_at)
    VALUES (${r.result_id}, ${r.task_id}, ${r.group_id}, ${r.node_id}, ${r.from_node}, ${r.success}, ${r.error},
      ${r.error_class}, ${r.output === null ? null : tx.json(r.output as never)}, ${r.started_at}, ${r.finished_at})
    ON CONFLICT DO NOTHING RETURNING result_id`;
  if (rows.length === 0) return false;
  await tx`
    UPDATE probe_tasks SET status = ${r.success ? 'completed' : 'failed'}, finished_at = now(),
      started_at = coalesce(started_at, ${r.started_at})
    WHERE id = ${r.task_id}`;
  return true;
}

/**
 * Drop the timeout failure the control plane recorded for `task_id` itself (from_node = false,
 * error_class 'timeout': the node stayed silent past the deadline) so a late result the node did
 * produce can take its place. Results from the node and other server failures (node rejected the
 * task, could not deliver) stay.
 * @returns true when such a failure was removed
 */
export async function dropServerFailure(tx: Executor, task_id: string): Promise<boolean> {
  const rows = await tx`DELETE FROM probe_results WHERE task_id = ${task_id} AND from_node = false AND error_class = 'timeout' RETURNING result_id`;
  return rows.length > 0;
}

/** Which of `result_ids` are stored already, in probe_results or monitor_results. */
export async function storedResultIds(tx: Executor, result_ids: string[]): Promise<Set<string>> {
  if (result_ids.length === 0) return new Set();
  const rows = await tx<{ result_id: string }[]>`
    SELECT result_id FROM probe_results WHERE result_id IN ${tx(result_ids)}
    UNION ALL SELECT result_id FROM monitor_results WHERE result_id IN ${tx(result_ids)}`;
  return new Set(rows.map((r) => r.result_id));
}

/** A monitor run's result (monitor_id set), stored idempotently. @returns true when stored now. */
export async function storeMonitorResult(tx: Executor, r: {
  result_id: string; monitor_id: string; node_id: string; probe_type: ProbeType; success: boolean; error: string | null;
  error_class: string | null; output: unknown | null; started_at: string; finished_at: string;
}): Promise<boolean> {
  const rows = await tx`
    INSERT INTO monitor_results (result_id, monitor_id, node_id, probe_type, success, error, error_class, output, started_at, finished_at)
    VALUES (${r.result_id}, ${r.monitor_id}, ${r.node_id}, ${r.probe_type}, ${r.success}, ${r.error}, ${r.error_class},
      ${r.output === null ? null : tx.json(r.output as never)}, ${r.started_at}, ${r.finished_at})
    ON CONFLICT (result_id) DO NOTHING RETURNING result_id`;
  return rows.length > 0;
}

/** Tasks of `node_id` still queued (never acknowledged by the node) whose deadline is ahead, oldest first. */
export async function unackedTasks(sql: Executor, node_id: string): Promise<TaskRow[]> {
  return sql<TaskRow[]>`
    SELECT * FROM probe_tasks
    WHERE node_id = ${node_id} AND status = 'queued' AND deadline_at > now()
    ORDER BY created_at LIMIT 1000`;
}

/** Mark `task_id` of `node_id` running (the node accepted it); no-op unless it is queued. */
export async function markTaskRunning(sql: Executor, node_id: string, task_id: string): Promise<void> {
  await sql`UPDATE probe_tasks SET status = 'running', started_at = coalesce(started_at, now())
    WHERE id = ${task_id} AND node_id = ${node_id} AND status = 'queued'`;
}

/**
 * Claim up to `limit` open tasks whose deadline has passed, locked FOR UPDATE SKIP LOCKED so
 * several instances' sweepers never claim the same row (DESIGN.md scale-out).
 */
export async function claimOverdueTasks(tx: Executor, limit: number): Promise<TaskRow[]> {
  return tx<TaskRow[]>`
    SELECT ${TASK_COLUMNS(tx)} FROM probe_tasks
    WHERE status IN ('queued', 'running') AND deadline_at < now()
    ORDER BY deadline_at LIMIT ${limit} FOR UPDATE SKIP LOCKED`;
}

/** How many tasks of `group_id` have a result (the group has ended when this equals its size). */
export async function countGroupResults(sql: Sql, group_id: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM probe_results WHERE group_id = ${group_id}`;
  return row!.n;
}
