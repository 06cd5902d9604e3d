import { readResultAudit, type AuditRow } from '../../node-agent/src/outbox/audit.js';
import type { Sql } from '../../control-plane/src/db/sql.js';
import { waitUntil } from './ports.js';

/** The control plane's side of the count: what its database holds (read-only queries). */
export interface StoredCounts {
  /** result_id of every node-made task result: probe_results WHERE from_node. */
  stored: string[];
  /** Rows in probe_results, and distinct result ids among them. */
  rows: number;
  distinct_ids: number;
  /** Tasks holding more than one result (must be 0: one result per task). */
  tasks_with_several: number;
  /**
   * Monitor checks stored per monitor id (the check history by series, rows and batches: check_entries). A check is
   * identified by its round (monitor, node, scheduled_at), not by result id, so monitor results
   * are counted, not matched by id; the primary key makes a round stored twice impossible.
   */
  checks_by_monitor: Map<string, number>;
}

/** Read {@link StoredCounts} from the control plane's database. */
export async function storedCounts(sql: Sql): Promise<StoredCounts> {
  const stored = await sql<{ result_id: string }[]>`SELECT result_id FROM probe_results WHERE from_node`;
  const [dup] = await sql<{ rows: number; distinct_ids: number }[]>`
    SELECT count(*)::int AS rows, count(DISTINCT result_id)::int AS distinct_ids FROM probe_results`;
  const [several] = await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM (SELECT task_id FROM probe_results GROUP BY task_id HAVING count(*) > 1) t`;
  const checks = await sql<{ monitor_id: string; n: number }[]>`
    SELECT s.monitor_id, count(*)::int AS n FROM check_series s CROSS JOIN LATERAL check_entries(ARRAY[s.id], '-infinity', 'infinity') c GROUP BY s.monitor_id`;
  return {
    stored: stored.map((r) => r.result_id), rows: dup!.rows, distinct_ids: dup!.distinct_ids, tasks_with_several: several!.n,
    checks_by_monitor: new Map(checks.map((r) => [r.monitor_id, r.n])),
  };
}

/** The nodes' side: every result the agents committed to their outboxes (their audits: id, task or monitor), and what is still pending. */
export function producedByNodes(state_dirs: string[]): { produced: AuditRow[]; pending: number } {
  const produced: AuditRow[] = [];
  let pending = 0;
  for (const dir of state_dirs) {
    const audit = readResultAudit(dir);
    produced.push(...audit.produced);
    pending += audit.outbox_pending;
  }
  return { produced, pending };
}

/** Produced versus stored once the outboxes drained: the figures a fault test asserts on. */
export interface DeliveryCount {
  /** Task results by id plus monitor results (counted per monitor), produced and stored. */
  produced: number;
  stored: number;
  /**
   * Produced but not stored (lost), and stored but not produced (made up). Both must be empty.
   * Task results are listed by result id; a monitor whose stored checks differ in number from its
   * produced results is listed as `monitor <id>: produced N, stored M` (in `missing` when fewer
   * were stored, in `unexpected` when more).
   */
  missing: string[];
  unexpected: string[];
  /** Duplicates: task result rows − distinct ids (must be 0), tasks with several results (must be 0). */
  duplicate_rows: number;
  tasks_with_several: number;
}

/** Produced against stored monitor results, per monitor: the differences as `monitor <id>: produced N, stored M`. */
function monitorDifferences(produced: Array<{ monitor_id: string | null }>, stored: Map<string, number>): { missing: string[]; unexpected: string[] } {
  const made = new Map<string, number>();
  for (const r of produced) if (r.monitor_id !== null) made.set(r.monitor_id, (made.get(r.monitor_id) ?? 0) + 1);
  const missing: string[] = [];
  const unexpected: string[] = [];
  for (const id of new Set([...made.keys(), ...stored.keys()])) {
    const p = made.get(id) ?? 0;
    const s = stored.get(id) ?? 0;
    if (p > s) missing.push(`monitor ${id}: produced ${p}, stored ${s}`);
    if (s > p) unexpected.push(`monitor ${id}: produced ${p}, stored ${s}`);
  }
  return { missing, unexpected };
}

/**
 * Wait until every agent's outbox is empty and every produced id is stored (up to `timeout_ms`),
 * then compare the two sets. Does not throw on a mismatch: the caller asserts on the figures
 * (a timeout returns the figures as they were, so the failure shows what is missing).
 */
export async function countDelivery(sql: Sql, state_dirs: string[], timeout_ms = 60_000): Promise<DeliveryCount> {
  const compare = async (): Promise<DeliveryCount & { pending: number }> => {
    const { produced: rows, pending } = producedByNodes(state_dirs);
    const produced = rows.filter((r) => r.monitor_id === null).map((r) => r.result_id);
    const db = await storedCounts(sql);
    const stored = new Set(db.stored);
    const made = new Set(produced);
    const monitors = monitorDifferences(rows, db.checks_by_monitor);
    const checks = [...db.checks_by_monitor.values()].reduce((a, b) => a + b, 0);
    return {
      produced: rows.length, stored: db.stored.length + checks, pending,
      missing: [...produced.filter((id) => !stored.has(id)), ...monitors.missing],
      unexpected: [...db.stored.filter((id) => !made.has(id)), ...monitors.unexpected],
      duplicate_rows: db.rows - db.distinct_ids, tasks_with_several: db.tasks_with_several,
    };
  };
  let last: (DeliveryCount & { pending: number }) | null = null;
  try {
    await waitUntil('the outboxes to drain', timeout_ms, async () => {
      last = await compare();
      return last.pending === 0 && last.missing.length === 0 ? true : null;
    }, 500);
  } catch {
    // fall through with the last figures
  }
  const { pending: _pending, ...count } = last ?? await compare();
  return count;
}

/** Probe tasks not ended yet (queued or running). The sweeper ends each by its deadline at the latest. */
export async function openTaskCount(sql: Sql): Promise<number> {
  const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM probe_tasks WHERE status IN ('queued', 'running')`;
  return row!.n;
}

/** The per-node status of one probe task (`queued`, `running`, `completed`, `failed`), or null when unknown. */
export async function taskStatus(sql: Sql, task_id: string): Promise<string | null> {
  const [row] = await sql<{ status: string }[]>`SELECT status FROM probe_tasks WHERE id = ${task_id}`;
  return row?.status ?? null;
}

/** Failures the control plane recorded itself (from_node false), counted by error text: what the faults cost. */
export async function serverFailures(sql: Sql): Promise<Record<string, number>> {
  const rows = await sql<{ error: string; n: number }[]>`
    SELECT regexp_replace(coalesce(error, ''), '[0-9]+', 'N', 'g') AS error, count(*)::int AS n
    FROM probe_results WHERE NOT from_node GROUP BY 1 ORDER BY 2 DESC`;
  return Object.fromEntries(rows.map((r) => [r.error, r.n]));
}
