import type { Assignment, AssignmentsDeltaMessage } from '@vantage/shared-protocol';
import type { StateDb } from '../state/db.js';
import { getMeta, setMeta } from '../state/meta.js';

/**
 * The monitor assignments this node holds, in the state DB, so they survive a
 * restart and keep running while the control plane is unreachable. Versioned as the control plane
 * numbers them; version 0 means "none received yet".
 */
export class AssignmentStore {
  readonly #db: StateDb;

  constructor(db: StateDb) {
    this.#db = db;
  }

  /** The version held (0 before the first full set). */
  get version(): number {
    return Number(getMeta(this.#db, 'assignments_version') ?? 0);
  }

  /** All held assignments, ordered by monitor id. */
  list(): Assignment[] {
    const rows = this.#db.prepare('SELECT body FROM assignments ORDER BY monitor_id').all() as { body: string }[];
    return rows.map((r) => JSON.parse(r.body) as Assignment);
  }

  /** Replace everything with a full set at `version` (`assignments.full`), in one transaction. */
  replaceAll(version: number, assignments: readonly Assignment[]): void {
    const insert = this.#db.prepare('INSERT OR REPLACE INTO assignments (monitor_id, body) VALUES (?, ?)');
    this.#db.transaction(() => {
      this.#db.prepare('DELETE FROM assignments').run();
      for (const a of assignments) insert.run(a.monitor_id, JSON.stringify(a));
      setMeta(this.#db, 'assignments_version', String(version));
    })();
  }

  /**
   * Apply `assignments.delta` when its `from_version` is the held version (one transaction).
   * @returns false (nothing changed) when the versions differ: the node then acks the version it
   *   holds so the control plane sends a full set (node-protocol messages.ts).
   */
  applyDelta(delta: Pick<AssignmentsDeltaMessage, 'from_version' | 'version' | 'upsert' | 'remove'>): boolean {
    return this.#db.transaction(() => {
      if (this.version !== delta.from_version) return false;
      const insert = this.#db.prepare('INSERT OR REPLACE INTO assignments (monitor_id, body) VALUES (?, ?)');
      const remove = this.#db.prepare('DELETE FROM assignments WHERE monitor_id = ?');
      for (const id of delta.remove) remove.run(id);
      for (const a of delta.upsert) insert.run(a.monitor_id, JSON.stringify(a));
      setMeta(this.#db, 'assignments_version', String(delta.version));
      return true;
    })();
  }
}
