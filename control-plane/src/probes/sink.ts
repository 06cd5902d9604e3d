import { sanitizedOnce, type MonitorResultEnvelope, type ResultEnvelope, type TaskAckMessage } from '@vantage/shared-protocol';
import type { Config } from '../config/index.js';
import type { Sql } from '../db/sql.js';
import { dropServerFailure, lockTask, runningTasksNotHeldMany, unackedTasksOf, storedResultIds, storeTaskResult, type TaskRow } from './tasks.db.js';
import { batchCalls } from '../db/batch.js';
import { firstResultWriter } from './first-results.js';
import { createAckWriter } from './task-acks.js';
import type { MonitorResultStore, ResultSink } from '../contracts.js';
import type { Logger } from '../log.js';
import { failLostTasks, failTask } from './failures.js';
import { signalGroups } from './signals.js';
import { openTaskCheck } from './task-secrets.js';
import { SecretKeyError, secretBoxOf } from '../secrets/secret-box.js';
import { sharedGeoLocator, type GeoLocator } from '../nodes/geo/geoip.js';
import { fillMtrAsns } from './hop-asn.js';

/** Nodes whose open tasks one statement reads at most (pendingTasks). */
const PENDING_BATCH_NODES = 500;

/** Reasons a result is refused (sent back to the node in the hub's `error` frame). */
export const REJECT = {
  not_assigned: 'task not assigned to this node',
  type_mismatch: 'result type does not match the task type',
  already_ended: 'task already has a different result',
  monitor_not_assigned: 'monitor not assigned to this node',
  unstorable: 'result cannot be stored',
} as const;

type Executor = Parameters<typeof lockTask>[0];

/**
 * True for a database error caused by one row's values rather than by the database: SQLSTATE
 * class 22 (data exception: text Postgres cannot hold, a bad timestamp, a number out of range),
 * 23 (integrity constraint) and 54 (program limit: a value too large). Such an error costs only
 * the result that caused it; anything else (connection lost, server shutting down) fails the batch
 * so the node sends it again.
 */
export function isRowDataError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^(22|23|54)[0-9A-Z]{3}$/.test(code);
}

/**
 * The probe-task side of the hub (contracts.ts ResultSink; docs/architecture/node-agent.md, outbox and delivery).
 *
 * `ingest(node_id, results)`: in one transaction, for each result (already validated by the hub
 * with resultEnvelopeSchema, and sanitised here unless the hub's parseBatchResults built the
 * array: NUL and lone surrogates become U+FFFD; shared-protocol sanitizedOnce):
 * - mtr results: each hop's `asn` is set from the offline ASN data (hop-asn.ts withHopAsns,
 *   `deps.geo`, default the process's shared locator) before anything is stored;
 * - task results: the task must exist and be assigned to `node_id` (else rejected "task not
 *   assigned to this node": forged or misrouted) and have the result's type; the result is
 *   inserted ON CONFLICT DO NOTHING and ends the task (completed on success, else failed). A
 *   result id stored before counts as stored (redelivery after a lost ack). A failure the control
 *   plane recorded in place of the node's result (`replaceable`: timeout, disconnect, restart,
 *   undelivered, unstorable) is replaced by it; a different result for a task that already has a
 *   final one (the node's own, or its refusal) is rejected;
 * - monitor results (monitor_id set): the whole batch's go to the check store (`deps.checks`,
 *   contracts.ts MonitorResultStore, checks/ingest.ts) in the same transaction: it checks the
 *   node's assignment and stores them idempotently by (monitor, node, scheduled_at). A sink
 *   without a check store (one that serves probe tasks only) refuses every monitor result
 *   ("monitor not assigned to this node") and stores nothing;
 * Resolves after COMMIT with `{ stored, rejected }`, so the hub's `result.ack` follows the commit.
 * A result the database refuses ({@link isRowDataError}) costs only itself: the batch is stored
 * again with each result in its own savepoint, the offending one is rejected ("result cannot be
 * stored", acked so the node drops it) and its task ends failed at once (class internal) instead
 * of waiting for its deadline. Any other database error rejects the promise and nothing is acked.
 *
 * `taskAck(node_id, ack)`: accepted → the task is running; rejected → it ends failed with
 * "node rejected the task: <reason>" (class rejected). Acks for other nodes' tasks are ignored.
 *
 * `storeLatencyMs()`: the slowest store of first task results since the last call (first-results.ts).
 */
export function createResultSink(deps: { sql: Sql; log: Logger; config?: Config; checks?: MonitorResultStore; geo?: GeoLocator }): ResultSink {
  const { sql } = deps;
  const log = deps.log.child({ module: 'tasks.sink' });
  const geo = deps.geo ?? sharedGeoLocator(deps.config ?? {}, log);
  const acks = createAckWriter(sql, log);
  const storeFirst = firstResultWriter(sql, isRowDataError);

  type Outcome = { stored: string[]; rejected: Array<{ result_id: string; reason: string }>; groups: string[]; unstorable: ResultEnvelope[] };

  /** Store one result in `tx`; pushes its outcome into `out`. */
  async function storeOne(tx: Executor, node_id: string, r: ResultEnvelope, before: Set<string>, out: Outcome): Promise<void> {
    if (r.monitor_id !== null) {
      if (!deps.checks) {
        out.rejected.push({ result_id: r.result_id, reason: REJECT.monitor_not_assigned });
        return;
      }
      const o = await deps.checks.store(tx, node_id, [r]);
      out.stored.push(...o.stored);
      out.rejected.push(...o.rejected);
      return;
    }
    const task = await lockTask(tx, r.task_id!);
    if (!task || task.node_id !== node_id) {
      out.rejected.push({ result_id: r.result_id, reason: REJECT.not_assigned });
      return;
    }
    if (task.probe_type !== r.type) {
      out.rejected.push({ result_id: r.result_id, reason: `${REJECT.type_mismatch} (${r.type} for a ${task.probe_type} task)` });
      return;
    }
    const row = {
      result_id: r.result_id, task_id: task.id, group_id: task.group_id, node_id, from_node: true, success: r.success,
      error: r.error, error_class: r.error_class, output: r.output, started_at: r.started_at, finished_at: r.finished_at,
    };
    out.groups.push(task.group_id);
    let inserted = await storeTaskResult(tx, row);
    // A result the node really produced outranks any failure we recorded in its place (deadline,
    // link cut, restart, slow node): nothing a node measured is thrown away.
    if (!inserted && !before.has(r.result_id) && await dropServerFailure(tx, task.id)) inserted = await storeTaskResult(tx, row);
    if (inserted || before.has(r.result_id) || out.stored.includes(r.result_id)) out.stored.push(r.result_id);
    else out.rejected.push({ result_id: r.result_id, reason: REJECT.already_ended });
  }

  /**
   * The batch in one transaction. `isolate`: each result in its own savepoint, so a row the
   * database refuses is rolled back alone and reported in `unstorable`.
   */
  async function attempt(node_id: string, ordered: ResultEnvelope[], isolate: boolean): Promise<Outcome> {
    const out: Outcome = { stored: [], rejected: [], groups: [], unstorable: [] };
    if (deps.checks && !isolate && ordered.every((r) => r.monitor_id !== null)) {
      // Monitor results only (a node's usual batch): the check store writes them in one
      // statement, atomic without a transaction around it (BEGIN and COMMIT would be two more
      // round trips per batch).
      const o = await deps.checks.store(sql, node_id, ordered as MonitorResultEnvelope[]);
      return { ...out, stored: o.stored, rejected: o.rejected };
    }
    await sql.begin(async (tx) => {
      // Task results stored before (redelivery); monitor results are idempotent by their round instead.
      const before = await storedResultIds(tx, ordered.flatMap((r) => (r.task_id !== null ? [r.result_id] : [])));
      // Monitor results go to the check store as one batch (checks/ingest.ts); one by one only when isolating.
      const batched = deps.checks && !isolate ? ordered.filter((r): r is MonitorResultEnvelope => r.monitor_id !== null) : [];
      if (batched.length > 0) {
        const o = await deps.checks!.store(tx, node_id, batched);
        out.stored.push(...o.stored);
        out.rejected.push(...o.rejected);
      }
      for (const r of ordered) {
        if (batched.length > 0 && r.monitor_id !== null) continue;
        if (!isolate) {
          await storeOne(tx, node_id, r, before, out);
          continue;
        }
        const mark = { stored: out.stored.length, rejected: out.rejected.length, groups: out.groups.length };
        try {
          await tx.savepoint((sp) => storeOne(sp, node_id, r, before, out));
        } catch (err) {
          if (!isRowDataError(err)) throw err;
          out.stored.length = mark.stored;
          out.rejected.length = mark.rejected;
          out.groups.length = mark.groups;
          log.warn({ node_id, result_id: r.result_id, task_id: r.task_id, monitor_id: r.monitor_id, err }, 'result cannot be stored');
          out.rejected.push({ result_id: r.result_id, reason: `${REJECT.unstorable}: ${(err as Error).message}`.slice(0, 500) });
          out.unstorable.push(r);
        }
      }
    });
    return out;
  }

  async function ingest(node_id: string, results: ResultEnvelope[]) {
    // Lock tasks in a fixed order so two batches touching the same tasks cannot deadlock.
    // A batch the hub parsed (shared-protocol parseBatchResults) is marked sanitised as a whole:
    // returned as it is; any other is walked (copied where something changes).
    const all = [...await fillMtrAsns(sanitizedOnce(results), geo)].sort((a, b) => (a.task_id ?? '').localeCompare(b.task_id ?? ''));
    // First results of open tasks, the usual case, in one statement shared with other nodes'
    // batches (first-results.ts); the rest, and the whole batch if a row is refused, take the
    // detailed path below.
    const first = (await storeFirst(all.flatMap((r) => (r.task_id !== null && r.monitor_id === null ? [{ ...r, task_id: r.task_id, node_id }] : [])))) ?? new Map<string, string>();
    const ordered = all.filter((r) => !first.has(r.result_id));
    let out: Outcome = { stored: [...first.keys()], rejected: [], groups: [...first.values()], unstorable: [] };
    const merge = (o: Outcome) => ({ stored: [...out.stored, ...o.stored], rejected: o.rejected, groups: [...out.groups, ...o.groups], unstorable: o.unstorable });
    try {
      if (ordered.length > 0) out = merge(await attempt(node_id, ordered, false));
    } catch (err) {
      // One result the database cannot hold must not hold back the others: again, one by one.
      if (!isRowDataError(err)) throw err;
      out = merge(await attempt(node_id, ordered, true));
    }
    for (const r of out.unstorable) {
      if (r.task_id !== null) await failTask(sql, r.task_id, "the node's result could not be stored", 'internal', { node_id });
    }
    if (out.rejected.length) log.debug({ node_id, rejected: out.rejected }, 'results rejected');
    acks.settled(node_id, all.flatMap((r) => (r.task_id === null ? [] : [r.task_id])));
    signalGroups(out.groups);
    return { stored: [...new Set(out.stored)], rejected: out.rejected };
  }

  async function taskAck(node_id: string, ack: TaskAckMessage): Promise<void> {
    if (ack.accepted) {
      acks.accepted(node_id, ack.task_id);
      return;
    }
    const reason = ack.reason ? `node rejected the task: ${ack.reason}` : 'node rejected the task';
    // The node's own answer, not a stand-in for a missing result: final.
    await failTask(sql, ack.task_id, reason, 'rejected', { node_id, replaceable: false });
  }

  const box = secretBoxOf(deps.config ?? {});

  // A restart brings every node back at once: their open tasks are read in a few statements.
  const unacked = batchCalls<string, TaskRow[]>(async (node_ids) => {
    const by_node = new Map<string, TaskRow[]>(node_ids.map((id) => [id, []]));
    for (const row of await unackedTasksOf(sql, [...new Set(node_ids)])) by_node.get(row.node_id)?.push(row);
    return node_ids.map((id) => by_node.get(id)!);
  }, { max: PENDING_BATCH_NODES });

  async function pendingTasks(node_id: string) {
    const rows = await unacked(node_id);
    const allow_cidrs = deps.config?.probe_allow_cidrs ?? [];
    return rows.flatMap((r) => {
      let check: typeof r.check;
      try {
        check = openTaskCheck(box, r.group_id, r.check); // secret headers are stored sealed (task-secrets.ts)
      } catch (err) {
        if (!(err instanceof SecretKeyError)) throw err;
        log.error({ task_id: r.id, err: err.message }, 'task held back: a sealed header does not open with the configured keys');
        return [];
      }
      return [{ type: 'task.run' as const, task_id: r.id, timeout_ms: r.timeout_ms, policy: { allow_private: r.allow_private, allow_cidrs }, check }];
    });
  }

  // The same for the tasks each returning node no longer holds.
  const notHeld = batchCalls<{ node_id: string; held: string[] }, string[]>(async (nodes) => {
    const by_node = await runningTasksNotHeldMany(sql, nodes);
    return nodes.map((n) => by_node.get(n.node_id) ?? []);
  }, { max: PENDING_BATCH_NODES });

  async function nodeReturned(node_id: string, tasks_held: string[]) {
    const n = await failLostTasks(sql, node_id, tasks_held, (id, held) => notHeld({ node_id: id, held }));
    if (n > 0) log.warn({ node_id, failed: n }, 'tasks lost in a node restart failed');
    return n;
  }

  return { ingest, taskAck, pendingTasks, nodeReturned, storeLatencyMs: storeFirst.latencyMs };
}
