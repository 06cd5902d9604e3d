import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { migrate } from './migrations.js';

export type StateDb = Database.Database;

/** File name of the state DB inside the state dir. */
export const STATE_FILE = 'state.db';

/** Path of the state DB for a state dir. */
export function stateFile(state_dir: string): string {
  return path.join(state_dir, STATE_FILE);
}

function restrict(file: string): void {
  try {
    fs.chmodSync(file, 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/** How long a statement waits for another process's lock on the state DB, ms. */
const BUSY_TIMEOUT_MS = 5000;

/**
 * `PRAGMA journal_mode = WAL`, tried again while another connection holds the lock, up to
 * BUSY_TIMEOUT_MS. Two processes switching a new DB at once both read its header, then each asks
 * for the write lock; SQLite answers one of them SQLITE_BUSY at once, without waiting through the
 * busy timeout (a reader may not wait for the write lock: https://sqlite.org/lockingv3.html,
 * "deadlock"), so the wait is ours.
 * @throws SqliteError SQLITE_BUSY still after BUSY_TIMEOUT_MS; any other error at once
 */
function useWal(db: StateDb): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > deadline) throw err;
      Atomics.wait(pause, 0, 0, 5 + Math.random() * 20); // a synchronous pause: opening is synchronous
    }
  }
}

/**
 * Open (creating if needed) the node's state DB `<state_dir>/state.db` with better-sqlite3:
 * directory 0700 when it creates it, DB file (and its -wal/-shm) 0600 because it holds the node credential; WAL
 * journal with synchronous=NORMAL (a committed transaction survives a kill -9 of the agent; a power
 * cut may lose the last few commits); migrations applied (state/migrations.ts).
 * @param opts.must_exist throw instead of creating a missing DB (`status` reads without enrolling).
 * @throws Error from the file system or SQLite (unwritable dir, corrupt file, newer schema).
 */
export function openStateDb(state_dir: string, opts: { must_exist?: boolean } = {}): StateDb {
  const file = stateFile(state_dir);
  if (opts.must_exist && !fs.existsSync(file)) throw new Error(`no state DB at ${file} (the agent has not run with this state_dir)`);
  if (!fs.existsSync(state_dir)) {
    fs.mkdirSync(state_dir, { recursive: true, mode: 0o700 });
    fs.chmodSync(state_dir, 0o700); // whatever the umask
  }
  fs.closeSync(fs.openSync(file, 'a', 0o600));
  restrict(file);
  const db = new Database(file);
  // First, so that the migrations wait for another process opening the DB.
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  useWal(db);
  db.pragma('synchronous = NORMAL');
  migrate(db);
  restrict(`${file}-wal`);
  restrict(`${file}-shm`);
  return db;
}
