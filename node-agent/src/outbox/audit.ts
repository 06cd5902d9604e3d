import fs from 'node:fs';
import Database from 'better-sqlite3';
import type { ResultEnvelope } from '@vantage/shared-protocol';
import type { StateDb } from '../state/db.js';
import { stateFile } from '../state/db.js';

/**
 * The result audit: an opt-in, test-only record of every result id this node produced
 * (config `audit_results`, env VANTAGE_AGENT_AUDIT_RESULTS=1; off by default). The fault tests
 * (test/faults/, docs/architecture/faults.md) compare it with what the control plane stored.
 *
 * The row is written in the SAME SQLite transaction as the outbox insert, so "produced" means
 * exactly "committed to the outbox": a kill -9 either loses both (the check was still in flight:
 * nothing was produced, the control plane records the task as failed at its deadline) or keeps
 * both (the result will be delivered). A separate file written before or after the commit would
 * leave a window in which the two disagree. Rows are never deleted, so keep it off in production.
 */
export interface ResultAudit {
  /** Run `add` (the outbox insert) and record `result` in one transaction. @returns what `add` returned */
  record<T>(result: ResultEnvelope, add: () => T): T;
  /** Run `add` (the outbox insert of a group) and record every one of `results` in one transaction. @returns what `add` returned */
  recordAll<T>(results: readonly ResultEnvelope[], add: () => T): T;
}

/** One audited result: its id and owner (task or monitor). */
export interface AuditRow {
  result_id: string;
  task_id: string | null;
  monitor_id: string | null;
}

const TABLE = `CREATE TABLE IF NOT EXISTS result_audit (
  result_id TEXT PRIMARY KEY, task_id TEXT, monitor_id TEXT, created_at_ms INTEGER NOT NULL) STRICT`;

/**
 * The audit on the agent's state DB when `enabled` (the table is created here, outside the
 * numbered migrations, because only test runs use it), else null.
 */
export function openResultAudit(db: StateDb, enabled: boolean): ResultAudit | null {
  if (!enabled) return null;
  db.exec(TABLE);
  const insert = db.prepare('INSERT INTO result_audit (result_id, task_id, monitor_id, created_at_ms) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING');
  const recordAll = <T>(results: readonly ResultEnvelope[], add: () => T): T =>
    // better-sqlite3 turns the outbox's own transaction into a savepoint of this one.
    db.transaction(() => {
      const out = add();
      const now_ms = Date.now();
      for (const r of results) insert.run(r.result_id, r.task_id, r.monitor_id, now_ms);
      return out;
    })();
  return { recordAll, record: (result, add) => recordAll([result], add) };
}

/**
 * Read a state dir's audit and outbox size without disturbing a running agent (read-only
 * connection; the state DB is in WAL mode). A state DB without the audit table gives no rows.
 * @returns `{ produced, outbox_pending }`
 * @throws Error when `<state_dir>/state.db` does not exist
 */
export function readResultAudit(state_dir: string): { produced: AuditRow[]; outbox_pending: number } {
  const file = stateFile(state_dir);
  if (!fs.existsSync(file)) throw new Error(`no state DB at ${file}`);
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'result_audit'").get();
    const produced = has ? (db.prepare('SELECT result_id, task_id, monitor_id FROM result_audit ORDER BY created_at_ms').all() as AuditRow[]) : [];
    const { n } = db.prepare('SELECT count(*) AS n FROM outbox').get() as { n: number };
    return { produced, outbox_pending: n };
  } finally {
    db.close();
  }
}
