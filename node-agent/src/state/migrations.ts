import type Database from 'better-sqlite3';

/**
 * Forward-only migrations of the node's state DB; `PRAGMA user_version` holds how many ran.
 * meta: key/value facts (identity, counters); outbox: results not yet acked, `seq` gives the order
 * they were produced in; assignments: the monitors this node runs, as the control plane sent them;
 * outbox_artifacts: artifacts a held outbox row waits for (migration 2).
 */
export const MIGRATIONS: string[] = [
  `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
   CREATE TABLE outbox (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     result_id TEXT NOT NULL UNIQUE,
     created_at_ms INTEGER NOT NULL,
     body TEXT NOT NULL
   ) STRICT;
   CREATE INDEX outbox_created ON outbox (created_at_ms);
   CREATE TABLE assignments (monitor_id TEXT PRIMARY KEY, body TEXT NOT NULL) STRICT;`,
  // Artifacts (outbox/artifacts.ts): a result naming artifacts not yet uploaded is `held` (how
  // many are left) and not sent; outbox_artifacts lists them.
  `ALTER TABLE outbox ADD COLUMN held INTEGER NOT NULL DEFAULT 0;
   CREATE TABLE outbox_artifacts (
     result_id TEXT NOT NULL,
     kind TEXT NOT NULL,
     sha256 TEXT NOT NULL,
     monitor_id TEXT NOT NULL,
     scheduled_at TEXT NOT NULL,
     PRIMARY KEY (result_id, kind)
   ) STRICT;
   CREATE INDEX outbox_artifacts_sha ON outbox_artifacts (sha256);`,
];

/**
 * Apply the migrations `db` has not run yet, each in its own transaction with the version bump.
 * Several processes may open one state DB at once (the service starting while the installer runs
 * `status`), so each step takes the write lock first (BEGIN IMMEDIATE, waiting up to the
 * connection's busy_timeout) and reads `user_version` under it: a step another process has
 * already applied is skipped, never run twice.
 * @throws Error when the DB was written by a newer agent (user_version beyond what we know), or
 *   SQLITE_BUSY when another process holds the write lock past the busy timeout.
 */
export function migrate(db: Database.Database): void {
  const step = db.transaction((): boolean => {
    const current = db.pragma('user_version', { simple: true }) as number;
    if (current > MIGRATIONS.length) {
      throw new Error(`state DB schema version ${current} is newer than this agent knows (${MIGRATIONS.length}); upgrade the agent`);
    }
    if (current === MIGRATIONS.length) return false;
    db.exec(MIGRATIONS[current]!);
    db.pragma(`user_version = ${current + 1}`);
    return true;
  });
  while (step.immediate()) { /* one migration per transaction */ }
}
