import fs from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import t from 'tap';
import { openStateDb, stateFile } from './db.js';
import { MIGRATIONS } from './migrations.js';

// Each worker opens the state DB with its own SQLite connection, as separate processes do (the
// service starting while the installer runs `node-agent status`). They wait on a shared counter
// and all call openStateDb once the last one is ready, so their migrations overlap.
const WORKER = `
const { workerData, parentPort } = require('node:worker_threads');
// A worker does not inherit the TypeScript hook (tsx), so it registers it before the import.
import('tsx/esm/api').then(({ register }) => { register(); return import(workerData.db_module); }).then(({ openStateDb }) => {
  const gate = new Int32Array(workerData.gate);
  Atomics.add(gate, 0, 1);
  while (Atomics.load(gate, 0) < workerData.count) { /* spin until every worker is ready */ }
  try {
    const db = openStateDb(workerData.dir);
    db.close();
    parentPort.postMessage({ ok: true });
  } catch (err) {
    parentPort.postMessage({ ok: false, error: String(err) });
  }
});
`;

async function openAtOnce(dir: string, count: number): Promise<Array<{ ok: boolean; error?: string }>> {
  const gate = new SharedArrayBuffer(4);
  const db_module = new URL('./db.ts', import.meta.url).href;
  return Promise.all(Array.from({ length: count }, () => new Promise<{ ok: boolean; error?: string }>((resolve, reject) => {
    const worker = new Worker(WORKER, { eval: true, workerData: { dir, count, gate, db_module } });
    worker.once('message', (m) => { resolve(m); void worker.terminate(); });
    worker.once('error', reject);
  })));
}

t.test('processes opening a new state DB at once each see it migrated, none fails', async (t) => {
  for (let round = 0; round < 3; round++) {
    const dir = `${t.testdir()}/state-${round}`;
    fs.mkdirSync(dir, { mode: 0o700 });
    // What `node-agent run` leaves when `status` opens the DB a moment later: an empty file.
    fs.closeSync(fs.openSync(stateFile(dir), 'a', 0o600));
    const got = await openAtOnce(dir, 4);
    t.same(got.filter((g) => !g.ok), [], `round ${round}: every open succeeded`);
    const db = openStateDb(dir, { must_exist: true });
    t.equal(db.pragma('user_version', { simple: true }), MIGRATIONS.length, `round ${round}: every migration ran once`);
    t.ok(db.prepare(`SELECT 1 FROM pragma_table_info('outbox') WHERE name = 'held'`).get(), 'the last migration is in the schema');
    db.close();
  }
});

// Another connection holds the write lock of a new DB (still in rollback-journal mode), as a
// process switching it to WAL at the same moment does: SQLite refuses this connection's switch at
// once (SQLITE_BUSY without the busy timeout, since it already reads), so openStateDb waits
// itself. The other connection runs in a worker, which lets go after 300 ms while this thread is
// inside openStateDb.
const WRITER = `
const { workerData, parentPort } = require('node:worker_threads');
const Database = require(workerData.sqlite);
const db = new Database(workerData.file);
db.exec('BEGIN IMMEDIATE');
parentPort.postMessage('locked');
setTimeout(() => { db.exec('COMMIT'); db.close(); parentPort.postMessage('done'); }, 300);
`;

t.test('a new DB another connection is writing is switched to WAL once the writer ends', async (t) => {
  const dir = `${t.testdir()}/state`;
  fs.mkdirSync(dir, { mode: 0o700 });
  const file = stateFile(dir);
  new Database(file).close(); // a new, empty DB in rollback-journal mode
  const sqlite = createRequire(import.meta.url).resolve('better-sqlite3');
  const writer = new Worker(WRITER, { eval: true, workerData: { file, sqlite } });
  const messages: string[] = [];
  const done = new Promise<void>((resolve, reject) => {
    writer.on('message', (m: string) => { messages.push(m); if (m === 'done') resolve(); });
    writer.once('error', reject);
  });
  await new Promise<void>((resolve) => { const check = () => (messages.includes('locked') ? resolve() : setTimeout(check, 5)); check(); });
  const started = Date.now();
  const db = openStateDb(dir);
  t.equal(db.pragma('journal_mode', { simple: true }), 'wal', 'the DB is in WAL mode');
  t.equal(db.pragma('user_version', { simple: true }), MIGRATIONS.length, 'and migrated');
  t.ok(Date.now() - started >= 200, `it waited for the writer (${Date.now() - started} ms)`);
  db.close();
  await done;
  await writer.terminate();
});

t.test('a DB written by a newer agent is refused and left as it is', async (t) => {
  const dir = `${t.testdir()}/state`;
  const db = openStateDb(dir);
  db.pragma(`user_version = ${MIGRATIONS.length + 1}`);
  db.close();
  t.throws(() => openStateDb(dir), /newer than this agent knows/);
  const raw = new Database(stateFile(dir), { readonly: true });
  t.equal(raw.pragma('user_version', { simple: true }), MIGRATIONS.length + 1, 'the version is left as it was');
  raw.close();
});
