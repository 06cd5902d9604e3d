import { sanitizeStrings, type ResultEnvelope } from '@vantage/shared-protocol';
import type { Statement } from 'better-sqlite3';
import type { StateDb } from '../state/db.js';
import { getMeta, setMeta } from '../state/meta.js';

/** Outbox bounds (docs/architecture/node-agent.md): past either, the oldest results are dropped and counted. */
export interface OutboxBounds {
  max_results: number;
  max_age_s: number;
}

/** One stored result as read back for sending: its order, id and JSON text. */
export interface OutboxRow {
  seq: number;
  result_id: string;
  body: string;
}

/** What `outbox.stats` reports (node-protocol outboxStatsMessageSchema). */
export interface OutboxStats {
  pending: number;
  dropped_total: number;
  oldest_pending_at: string | null;
}

/**
 * The node's durable result buffer (docs/architecture/node-agent.md, outbox and delivery), a table in the state DB.
 * Every result is written here (one INSERT in a transaction) before it is sent and deleted only
 * when the control plane acks its id. Rows come back in production order (`seq`). The count bound
 * is enforced on every add and the age bound by {@link Outbox.pruneAge}; dropped rows are added to
 * the persistent `outbox_dropped_total`.
 */
export class Outbox {
  readonly #db: StateDb;
  readonly #bounds: OutboxBounds;
  readonly #now: () => number;
  #pending: number;
  #dropped: number;
  readonly #insert: Statement;
  readonly #dropOldest: Statement;
  readonly #deleteId: Statement;
  readonly #readAfter: Statement;
  readonly #dropOlder: Statement;
  readonly #oldest: Statement;

  constructor(db: StateDb, bounds: OutboxBounds, now: () => number = Date.now) {
    this.#db = db;
    this.#bounds = bounds;
    this.#now = now;
    this.#pending = (db.prepare('SELECT count(*) AS n FROM outbox').get() as { n: number }).n;
    this.#dropped = Number(getMeta(db, 'outbox_dropped_total') ?? 0);
    this.#insert = db.prepare('INSERT INTO outbox (result_id, created_at_ms, body) VALUES (?, ?, ?) ON CONFLICT (result_id) DO NOTHING');
    this.#dropOldest = db.prepare('DELETE FROM outbox WHERE seq IN (SELECT seq FROM outbox ORDER BY seq LIMIT ?)');
    this.#deleteId = db.prepare('DELETE FROM outbox WHERE result_id = ?');
    this.#readAfter = db.prepare('SELECT seq, result_id, body FROM outbox WHERE seq > ? ORDER BY seq LIMIT ?');
    this.#dropOlder = db.prepare('DELETE FROM outbox WHERE created_at_ms < ?');
    this.#oldest = db.prepare('SELECT created_at_ms FROM outbox ORDER BY seq LIMIT 1');
  }

  #countDropped(n: number): void {
    if (n <= 0) return;
    this.#dropped += n;
    setMeta(this.#db, 'outbox_dropped_total', String(this.#dropped));
  }

  /**
   * Write one result durably (one transaction). When this makes the outbox exceed `max_results`,
   * the oldest rows are dropped in the same transaction and counted. A result id already present
   * is ignored (idempotent). Strings measured from targets are sanitised first (shared-protocol
   * sanitizeStrings: NUL and lone surrogates become U+FFFD), so no answer can make the result
   * unstorable on the control plane and block the outbox behind it.
   * @returns how many old results were dropped to make room (usually 0).
   */
  add(result: ResultEnvelope): number {
    const body = JSON.stringify(sanitizeStrings(result));
    return this.#db.transaction(() => {
      const added = this.#insert.run(result.result_id, this.#now(), body).changes;
      this.#pending += added;
      let dropped = 0;
      if (this.#pending > this.#bounds.max_results) {
        dropped = this.#dropOldest.run(this.#pending - this.#bounds.max_results).changes;
        this.#pending -= dropped;
        this.#countDropped(dropped);
      }
      return dropped;
    })();
  }

  /**
   * Up to `max_results` rows with seq > `after_seq`, oldest first, stopping before the JSON text
   * would pass `max_bytes` (at least one row is returned when any is there).
   */
  readAfter(after_seq: number, max_results: number, max_bytes: number): OutboxRow[] {
    const rows = this.#readAfter.all(after_seq, max_results) as OutboxRow[];
    let bytes = 0;
    for (let i = 0; i < rows.length; i++) {
      bytes += rows[i]!.body.length + 1;
      if (bytes > max_bytes && i > 0) return rows.slice(0, i);
    }
    return rows;
  }

  /** Delete acked results (one transaction). Unknown ids are ignored. @returns how many were deleted. */
  ack(result_ids: readonly string[]): number {
    return this.#db.transaction(() => {
      let n = 0;
      for (const id of result_ids) n += this.#deleteId.run(id).changes;
      this.#pending -= n;
      return n;
    })();
  }

  /** Drop results older than `max_age_s` and count them. @returns how many were dropped. */
  pruneAge(): number {
    return this.#db.transaction(() => {
      const n = this.#dropOlder.run(this.#now() - this.#bounds.max_age_s * 1000).changes;
      this.#pending -= n;
      this.#countDropped(n);
      return n;
    })();
  }

  /**
   * Distinct ad-hoc task ids with a result waiting here, at most `limit` (told in `hello`, so the
   * control plane does not fail a task whose result is on its way).
   */
  taskIds(limit: number): string[] {
    const rows = this.#db.prepare(`SELECT DISTINCT json_extract(body, '$.task_id') AS task_id FROM outbox
      WHERE json_extract(body, '$.task_id') IS NOT NULL LIMIT ?`).all(limit) as Array<{ task_id: string }>;
    return rows.map((r) => r.task_id);
  }

  /** Pending count, dropped total and the oldest pending result's write time (ISO 8601). */
  stats(): OutboxStats {
    const oldest = this.#oldest.get() as { created_at_ms: number } | undefined;
    return {
      pending: this.#pending,
      dropped_total: this.#dropped,
      oldest_pending_at: oldest ? new Date(oldest.created_at_ms).toISOString() : null,
    };
  }
}
