import type postgres from 'postgres';
import type { CheckSpec, ProbeType } from '@vantage/shared-protocol';
import type { Sql } from '../db/sql.js';

type Executor = Sql | postgres.TransactionSql<Record<string, never>>;

/** Per-task status of 0011_probe_tasks.sql (the group status is derived, probes/aggregate.ts). */
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
  /** The requester may reach private addresses through this node (its owner, write-capable credential). */
  allow_private: boolean;
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
  /** A failure the control plane recorded in place of the node's result: the node's own result replaces it. */
  replaceable: boolean;
  success: boolean;
  error: string | null;
  error_class: string | null;
  output: Record<string, unknown> | null;
  started_at: Date | null;
  finished_at: Date;
}

/** A task to create: deadline_at = now + timeout_ms + grace_ms (computed in SQL, server clock). */
export interface NewTask {
  id: string; group_id: string; ordinal: number; node_id: string; probe_type: ProbeType; target: string;
  check: CheckSpec; timeout_ms: number; grace_ms: number; requester_user_id: string | null; allow_private: boolean;
}

const TASK_COLUMNS = (sql: Executor) => sql`
  id, group_id, ordinal, node_id, probe_type, target, "check", timeout_ms, requester_user_id, allow_private, status,
  created_at, started_at, finished_at, deadline_at`;

/** Insert every task of one probe request in one statement (all or none). */
export async function insertTasks(sql: Executor, tasks: NewTask[]): Promise<void> {
  if (tasks.length === 0) return;
  await sql`
    INSERT INTO probe_tasks (id, group_id, ordinal, node_id, probe_type, target, "check", timeout_ms, requester_user_id, allow_private, deadline_at)
    SELECT t.id, t.group_id, t.ordinal, t.node_id, t.probe_type, t.target, t."check", t.timeout_ms, t.requester_user_id, coalesce(t.allow_private, false),
           now() + make_interval(secs => (t.timeout_ms + t.grace_ms) / 1000.0)
    FROM jsonb_to_recordset(${sql.json(tasks as never)}) AS t(
      id text, group_id text, ordinal int, node_id text, probe_type text, target text, "check" jsonb,
      timeout_ms int, grace_ms int, requester_user_id text, allow_private boolean)`;
}

/** Lock task `task_id` for the rest of the transaction (FOR UPDATE), or null when unknown. */
export async function lockTask(tx: Executor, task_id: string): Promise<TaskRow | null> {
  const [row] = await tx<TaskRow[]>`SELECT ${TASK_COLUMNS(tx)} FROM probe_tasks WHERE id = ${task_id} FOR UPDATE`;
  return row ?? null;
}

/**
 * A result to store for a task (node-made or server-made). `replaceable` (default false): a failure
 * the control plane records in place of a result it did not get, which the node's own result
 * replaces later ({@link dropServerFailure}).
 */
export interface NewProbeResult {
  result_id: string; task_id: string; group_id: string; node_id: string; from_node: boolean; success: boolean;
  error: string | null; error_class: string | null; output: unknown | null; started_at: string | Date | null; finished_at: string | Date;
  replaceable?: boolean;
}

/**
 * Insert a task's result and end the task (completed on success, else failed) in the caller's
 * transaction. Idempotent: nothing happens when `result_id` is stored already or the task already
 * has a result (ON CONFLICT DO NOTHING covers both unique keys).
 * @returns true when this call stored it
 */
export async function storeTaskResult(tx: Executor, r: NewProbeResult): Promise<boolean> {
  // One statement: the task is ended only when the insert happened (ins is empty otherwise).
  // finished_at keeps the first end: a late node result replacing a server failure changes the
  // group (updated_at, from the result's stored_at) but not when it completed.
  const rows = await tx`
    WITH ins AS (
      INSERT INTO probe_results (result_id, task_id, group_id, node_id, from_node, replaceable, success, error, error_class, output, started_at, finished_at)
      VALUES (${r.result_id}, ${r.task_id}, ${r.group_id}, ${r.node_id}, ${r.from_node}, ${r.replaceable ?? false}, ${r.success}, ${r.error},
        ${r.error_class}, ${r.output === null ? null : tx.json(r.output as never)}, ${r.started_at}, ${r.finished_at})
      ON CONFLICT DO NOTHING RETURNING result_id
    ), ended AS (
      UPDATE probe_tasks SET status = ${r.success ? 'completed' : 'failed'}, finished_at = coalesce(finished_at, now()),
        started_at = coalesce(started_at, ${r.started_at}::timestamptz)
      WHERE id = ${r.task_id} AND EXISTS (SELECT 1 FROM ins)
    )
    SELECT result_id FROM ins`;
  return rows.length > 0;
}

/** A node's result as {@link storeFirstResults} takes it (shared-protocol ResultEnvelope fields and the sending node). */
export interface NodeTaskResult {
  node_id: string; result_id: string; task_id: string; type: string; success: boolean; error: string | null; error_class: string | null;
  output: unknown | null; started_at: string; finished_at: string;
}

/**
 * The common case of storing node results, in ONE statement (one round trip, one commit) for
 * results of any number of nodes: every result whose task is assigned to the node that sent it,
 * has the result's type and is still open (queued or running, so it has no result yet) is
 * inserted and ends its task; tasks are locked in id order, as the detailed path locks them. At
 * most one result per task is taken. Everything else (a redelivered result, a task of another
 * node, a result replacing a failure the control plane recorded, a second result) is left for the
 * caller's detailed path (probes/sink.ts).
 * @returns result_id → group_id of the results stored by this call
 */
export async function storeFirstResults(sql: Sql, results: NodeTaskResult[]): Promise<Map<string, string>> {
  if (results.length === 0) return new Map();
  const rows = await sql<{ result_id: string; group_id: string }[]>`
    WITH input AS (
      SELECT * FROM jsonb_to_recordset(${sql.json(results as never)}) AS r(
        node_id text, result_id text, task_id text, type text, success boolean, error text, error_class text, output jsonb,
        started_at timestamptz, finished_at timestamptz)
    ), open AS (
      SELECT p.id, p.group_id, p.node_id, p.probe_type FROM probe_tasks p
      WHERE p.id IN (SELECT task_id FROM input) AND p.status IN ('queued', 'running')
      ORDER BY p.id FOR UPDATE OF p
    ), chosen AS (
      SELECT DISTINCT ON (i.task_id) i.*, o.group_id FROM input i
      JOIN open o ON o.id = i.task_id AND o.node_id = i.node_id AND o.probe_type = i.type
      ORDER BY i.task_id, i.result_id
    ), ins AS (
      INSERT INTO probe_results (result_id, task_id, group_id, node_id, from_node, success, error, error_class, output, started_at, finished_at)
      SELECT result_id, task_id, group_id, node_id, true, success, error, error_class, output, started_at, finished_at FROM chosen
      ON CONFLICT DO NOTHING
      RETURNING result_id, task_id, group_id, success, started_at
    ), ended AS (
      UPDATE probe_tasks p SET status = CASE WHEN ins.success THEN 'completed' ELSE 'failed' END,
        finished_at = coalesce(p.finished_at, now()), started_at = coalesce(p.started_at, ins.started_at)
      FROM ins WHERE p.id = ins.task_id
    )
    SELECT result_id, group_id FROM ins`;
  return new Map(rows.map((r) => [r.result_id, r.group_id]));
}

/**
 * Drop the failure the control plane recorded for `task_id` in place of a result it did not get
 * (`replaceable`: no result by the deadline, node disconnected, node restarted without the task,
 * task not delivered, result not storable) so a result the node did produce can take its place.
 * The flag decides, not the error class; node results and the node's own refusal stay.
 * @returns true when such a failure was removed
 */
export async function dropServerFailure(tx: Executor, task_id: string): Promise<boolean> {
  const rows = await tx`DELETE FROM probe_results WHERE task_id = ${task_id} AND replaceable RETURNING result_id`;
  return rows.length > 0;
}

/** Which of `result_ids` are stored already in probe_results (task results; monitor results are checks, identified by their round). */
export async function storedResultIds(tx: Executor, result_ids: string[]): Promise<Set<string>> {
  if (result_ids.length === 0) return new Set();
  const rows = await tx<{ result_id: string }[]>`
    SELECT result_id FROM probe_results WHERE result_id IN ${tx(result_ids)}`;
  return new Set(rows.map((r) => r.result_id));
}

/**
 * Tasks of each of `node_ids` still queued (never acknowledged by the node) whose deadline is
 * ahead: up to 1000 per node, oldest first per node. One statement for a burst of hellos.
 */
export async function unackedTasksOf(sql: Executor, node_ids: string[]): Promise<TaskRow[]> {
  if (node_ids.length === 0) return [];
  return sql<TaskRow[]>`
    SELECT t.* FROM unnest(${node_ids}::text[]) AS n(id)
    CROSS JOIN LATERAL (
      SELECT ${TASK_COLUMNS(sql)} FROM probe_tasks
      WHERE node_id = n.id AND status = 'queued' AND deadline_at > now()
      ORDER BY created_at LIMIT 1000
    ) t
    ORDER BY t.node_id, t.created_at`;
}

/**
 * For each node, the ids of its tasks it accepted (running) that are not in its `held`, in one
 * statement for many nodes (every node saying hello after a restart). @returns node id → task ids
 */
export async function runningTasksNotHeldMany(sql: Executor, nodes: Array<{ node_id: string; held: string[] }>): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>(nodes.map((n) => [n.node_id, []]));
  if (nodes.length === 0) return out;
  const rows = await sql<{ id: string; node_id: string }[]>`
    WITH h AS (SELECT * FROM jsonb_to_recordset(${sql.json(nodes as never)}) AS h(node_id text, held text[]))
    SELECT t.id, t.node_id FROM h JOIN probe_tasks t ON t.node_id = h.node_id AND t.status = 'running' AND NOT (t.id = ANY(h.held))`;
  for (const r of rows) {
    const ids = out.get(r.node_id);
    if (ids && !ids.includes(r.id)) ids.push(r.id);
  }
  return out;
}

/** The tasks `node_id` runs by our records that it does not list in `held` (one node of {@link runningTasksNotHeldMany}). */
export async function runningTasksNotHeld(sql: Executor, node_id: string, held: string[]): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    SELECT id FROM probe_tasks WHERE node_id = ${node_id} AND status = 'running' AND NOT (id = ANY(${held}::text[]))`;
  return rows.map((r) => r.id);
}

/**
 * Mark tasks running (their nodes accepted them), in one statement for many acks; a task that is
 * not queued, or not assigned to the node that acked it, is left alone. The rows are locked in id
 * order, the order result ingest locks them in, so the two never deadlock. Committed
 * asynchronously (synchronous_commit off): "running" is advisory, and losing it to a database
 * crash only leaves the task queued, so the hub sends it again when the node says hello (the
 * agent ignores a task id it already holds); not waiting for the WAL flush of every ack keeps a
 * 1000-node fan-out from queueing 1000 flushes in front of its results.
 */
export async function markTasksRunning(sql: Sql, acks: Array<{ node_id: string; task_id: string }>): Promise<void> {
  if (acks.length === 0) return;
  await sql.begin(async (tx) => {
    await tx`SET LOCAL synchronous_commit = off`;
    await tx`
      UPDATE probe_tasks t SET status = 'running', started_at = coalesce(t.started_at, now())
      FROM (
        SELECT p.id FROM probe_tasks p
        JOIN unnest(${acks.map((a) => a.task_id)}::text[], ${acks.map((a) => a.node_id)}::text[]) AS a(task_id, node_id)
          ON p.id = a.task_id AND p.node_id = a.node_id
        WHERE p.status = 'queued' ORDER BY p.id FOR UPDATE OF p
      ) acked
      WHERE t.id = acked.id`;
  });
}

/**
 * Claim up to `limit` open tasks whose deadline has passed, locked FOR UPDATE SKIP LOCKED so
 * several instances' sweepers never claim the same row (docs/architecture/hub.md, several instances).
 */
export async function claimOverdueTasks(tx: Executor, limit: number): Promise<TaskRow[]> {
  return tx<TaskRow[]>`
    SELECT ${TASK_COLUMNS(tx)} FROM probe_tasks
    WHERE status IN ('queued', 'running') AND deadline_at < now()
    ORDER BY deadline_at LIMIT ${limit} FOR UPDATE SKIP LOCKED`;
}

