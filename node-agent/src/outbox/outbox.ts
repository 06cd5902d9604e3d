import { ARTIFACT_URL_FIELDS, sanitizeStrings, type ArtifactKind, type ResultEnvelope } from '@vantage/shared-protocol';
import type { Statement } from 'better-sqlite3';
import type { StateDb } from '../state/db.js';
import { getMeta, setMeta } from '../state/meta.js';
import { artifactRefsOf, type ArtifactRef } from './artifact-refs.js';

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

/** An artifact a held result waits for, with the result's id. */
export interface PendingArtifact extends ArtifactRef {
  result_id: string;
}

/** What `outbox.stats` reports (node-protocol outboxStatsMessageSchema). */
export interface OutboxStats {
  pending: number;
  dropped_total: number;
  oldest_pending_at: string | null;
}

/**
 * The node's durable result buffer (docs/architecture/node-agent.md, outbox and delivery), a table in the state DB.
 * Every result is written here (in a transaction, with the results produced just before it:
 * outbox/result-writer.ts) before it is sent and deleted only
 * when the control plane acks its id. Rows come back in production order (`seq`). The count bound
 * is enforced on every add and the age bound by {@link Outbox.pruneAge}; dropped rows are added to
 * the persistent `outbox_dropped_total`.
 *
 * Artifacts (docs/architecture/node-agent.md "Artifacts"): a result naming artifacts to upload
 * (outbox/artifact-refs.ts) is stored held, with one `outbox_artifacts` row per artifact, and is
 * not read for sending until each is settled ({@link Outbox.artifactSettled}): then it is
 * written again under a new `seq`, so the sender, whose cursor may have passed it, sends it next.
 * `on_artifacts_freed` hears the digests no row needs any more (the spool deletes their files).
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
  readonly #insertArtifact: Statement;
  readonly #orphanArtifacts: Statement;
  readonly #shaInUse: Statement;
  readonly #hold: Statement;
  readonly #pendingArtifacts: Statement;
  readonly #onFreed: (sha256s: string[]) => void;

  constructor(db: StateDb, bounds: OutboxBounds, now: () => number = Date.now, on_artifacts_freed: (sha256s: string[]) => void = () => undefined) {
    this.#db = db;
    this.#bounds = bounds;
    this.#now = now;
    this.#pending = (db.prepare('SELECT count(*) AS n FROM outbox').get() as { n: number }).n;
    this.#dropped = Number(getMeta(db, 'outbox_dropped_total') ?? 0);
    this.#insert = db.prepare('INSERT INTO outbox (result_id, created_at_ms, body) VALUES (?, ?, ?) ON CONFLICT (result_id) DO NOTHING');
    this.#dropOldest = db.prepare('DELETE FROM outbox WHERE seq IN (SELECT seq FROM outbox ORDER BY seq LIMIT ?)');
    this.#deleteId = db.prepare('DELETE FROM outbox WHERE result_id = ?');
    this.#readAfter = db.prepare('SELECT seq, result_id, body FROM outbox WHERE seq > ? AND held = 0 ORDER BY seq LIMIT ?');
    this.#dropOlder = db.prepare('DELETE FROM outbox WHERE created_at_ms < ?');
    this.#oldest = db.prepare('SELECT created_at_ms FROM outbox ORDER BY seq LIMIT 1');
    this.#insertArtifact = db.prepare('INSERT INTO outbox_artifacts (result_id, kind, sha256, monitor_id, scheduled_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING');
    this.#orphanArtifacts = db.prepare('DELETE FROM outbox_artifacts WHERE result_id NOT IN (SELECT result_id FROM outbox) RETURNING sha256');
    this.#shaInUse = db.prepare('SELECT 1 FROM outbox_artifacts WHERE sha256 = ? LIMIT 1');
    this.#hold = db.prepare('UPDATE outbox SET held = ? WHERE result_id = ?');
    this.#pendingArtifacts = db.prepare(`SELECT a.result_id, a.kind, a.sha256, a.monitor_id, a.scheduled_at FROM outbox_artifacts a
      JOIN outbox o ON o.result_id = a.result_id ORDER BY o.seq, a.kind LIMIT ?`);
    this.#onFreed = on_artifacts_freed;
  }

  /** Forget the artifacts of dropped rows; @returns the digests no row needs any more. */
  #dropOrphanArtifacts(): string[] {
    const shas = new Set((this.#orphanArtifacts.all() as Array<{ sha256: string }>).map((r) => r.sha256));
    return [...shas].filter((sha) => !this.#shaInUse.get(sha));
  }

  #freed(shas: string[]): void {
    if (shas.length > 0) this.#onFreed(shas);
  }

  #countDropped(n: number): void {
    if (n <= 0) return;
    this.#dropped += n;
    setMeta(this.#db, 'outbox_dropped_total', String(this.#dropped));
  }

  /**
   * Write one result durably (one transaction): {@link Outbox.addMany} of one.
   * @returns how many old results were dropped to make room (usually 0).
   */
  add(result: ResultEnvelope): number {
    return this.addMany([result]).dropped;
  }

  /**
   * Write `results` durably, in one transaction (a group commit: one WAL write for the group).
   * When this makes the outbox exceed `max_results`, the oldest rows are dropped in the same
   * transaction and counted. A result id already present is ignored (idempotent). Strings measured
   * from targets are sanitised first (shared-protocol sanitizeStrings: NUL and lone surrogates
   * become U+FFFD), so no answer can make the result unstorable on the control plane and block the
   * outbox behind it. A result naming artifacts to upload is stored held.
   * @returns dropped: old results dropped to make room (usually 0); held: results of the group
   *   stored held (waiting for artifact uploads)
   * @throws Error from SQLite (disk full, I/O): then nothing of the group was written
   */
  addMany(results: readonly ResultEnvelope[]): { dropped: number; held: number } {
    const rows = results.map((result) => ({ result, body: JSON.stringify(sanitizeStrings(result)), refs: artifactRefsOf(result) }));
    let freed: string[] = [];
    let held = 0;
    const dropped = this.#db.transaction(() => {
      const now_ms = this.#now();
      for (const { result, body, refs } of rows) {
        const added = this.#insert.run(result.result_id, now_ms, body).changes;
        this.#pending += added;
        if (added > 0 && refs.length > 0) {
          for (const r of refs) this.#insertArtifact.run(result.result_id, r.kind, r.sha256, r.monitor_id, r.scheduled_at);
          this.#hold.run(refs.length, result.result_id);
          held++;
        }
      }
      let n = 0;
      if (this.#pending > this.#bounds.max_results) {
        n = this.#dropOldest.run(this.#pending - this.#bounds.max_results).changes;
        this.#pending -= n;
        this.#countDropped(n);
        freed = this.#dropOrphanArtifacts();
      }
      return n;
    })();
    this.#freed(freed);
    return { dropped, held };
  }

  /** Artifacts held results wait for, oldest result first, at most `limit`. */
  pendingArtifacts(limit: number): PendingArtifact[] {
    return this.#pendingArtifacts.all(limit) as PendingArtifact[];
  }

  /** Digests of every artifact some held result waits for (what the spool must keep). */
  artifactDigests(): Set<string> {
    return new Set((this.#db.prepare('SELECT DISTINCT sha256 FROM outbox_artifacts').all() as Array<{ sha256: string }>).map((r) => r.sha256));
  }

  /**
   * Artifact `kind` of result `result_id` is settled: `stored` by the control plane, or given up
   * (refused for good: its URL in the result becomes the empty string, "unavailable"). When it was
   * the result's last one, the result is released: written again under a new `seq` (same id,
   * creation time and body), so the sender sends it next. One transaction.
   * @returns released: the result may now be sent; freed: the digest is needed by no other row
   */
  artifactSettled(result_id: string, kind: ArtifactKind, stored: boolean): { released: boolean; freed: boolean } {
    let sha256: string | null = null;
    const released = this.#db.transaction(() => {
      const a = this.#db.prepare('DELETE FROM outbox_artifacts WHERE result_id = ? AND kind = ? RETURNING sha256').get(result_id, kind) as { sha256: string } | undefined;
      if (!a) return false;
      sha256 = a.sha256;
      const row = this.#db.prepare('SELECT created_at_ms, body, held FROM outbox WHERE result_id = ?').get(result_id) as { created_at_ms: number; body: string; held: number } | undefined;
      if (!row) return false;
      let body = row.body;
      if (!stored) {
        const parsed = JSON.parse(body) as { output?: Record<string, unknown> | null };
        if (parsed.output) parsed.output[ARTIFACT_URL_FIELDS[kind]] = '';
        body = JSON.stringify(parsed);
      }
      const held = Math.max(0, row.held - 1);
      if (held > 0) {
        this.#db.prepare('UPDATE outbox SET held = ?, body = ? WHERE result_id = ?').run(held, body, result_id);
        return false;
      }
      this.#deleteId.run(result_id);
      this.#db.prepare('INSERT INTO outbox (result_id, created_at_ms, body, held) VALUES (?, ?, ?, 0)').run(result_id, row.created_at_ms, body);
      return true;
    })();
    const freed = sha256 !== null && !this.#shaInUse.get(sha256);
    return { released, freed };
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
    let freed: string[] = [];
    const dropped = this.#db.transaction(() => {
      const n = this.#dropOlder.run(this.#now() - this.#bounds.max_age_s * 1000).changes;
      this.#pending -= n;
      this.#countDropped(n);
      if (n > 0) freed = this.#dropOrphanArtifacts();
      return n;
    })();
    this.#freed(freed);
    return dropped;
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
