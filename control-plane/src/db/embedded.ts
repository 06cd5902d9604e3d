import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm, rmdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/** A running embedded Postgres: its connection URL and how to stop it. */
export interface EmbeddedPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`, for the ordinary `postgres` client. */
  url: string;
  /** Stop the socket server and close the database (flushes data to disk). */
  close(): Promise<void>;
}

/** Options of {@link startEmbeddedPostgres}. */
export interface EmbeddedOptions {
  /** Concurrent client connections the socket server accepts (pool size); default 10. */
  max_connections?: number;
  /**
   * Postgres `shared_buffers`, MiB (config/embedded.ts `embedded_shared_buffers_mb`); default 16.
   * The embedded Postgres zeroes its buffer pool at start, so every MiB here is resident memory.
   */
  shared_buffers_mb?: number;
}

const INITDB_SCRIPT = fileURLToPath(new URL('./embedded-initdb.mjs', import.meta.url));

/** Whether `dir` holds a complete Postgres data folder (initdb writes PG_VERSION). */
export function isEmbeddedDataDir(dir: string): boolean {
  return existsSync(join(dir, 'PG_VERSION'));
}

/**
 * Create the embedded Postgres data folder `dir` (PGlite's initdb) unless it is complete already.
 * initdb runs in a child process (db/embedded-initdb.mjs) because it costs about 0.9 GiB of
 * memory that a process keeps once its WebAssembly memory has grown; the control plane then only
 * opens the folder (about 0.2 GiB). It writes a sibling temporary folder that is renamed into
 * place when complete, so an interrupted start leaves no half-made folder behind.
 * @throws Error with initdb's message when it fails
 */
export async function initEmbeddedDataDir(dir: string): Promise<void> {
  if (isEmbeddedDataDir(dir)) return;
  const tmp = `${dir}.initdb-${process.pid}`;
  await mkdir(dirname(dir), { recursive: true });
  await rm(tmp, { recursive: true, force: true });
  const stderr: Buffer[] = [];
  const code = await new Promise<number | null>((done, fail) => {
    // A test runner's NODE_OPTIONS (loaders) are not needed: the script is plain JavaScript.
    const { NODE_OPTIONS: _ignored, ...env } = process.env;
    const child = spawn(process.execPath, [INITDB_SCRIPT, tmp], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr.on('data', (d: Buffer) => stderr.push(d));
    child.on('error', fail);
    child.on('exit', (c) => done(c));
  });
  if (code !== 0) {
    await rm(tmp, { recursive: true, force: true });
    throw new Error(`cannot create the embedded database in ${dir}: ${Buffer.concat(stderr).toString().trim() || `initdb exited with ${code}`}`);
  }
  // An empty folder (made by hand, or by an older version before initdb) is replaced; any other is kept.
  if (existsSync(dir) && (await readdir(dir)).length === 0) await rmdir(dir);
  await rename(tmp, dir);
}

/**
 * Start an embedded Postgres (PGlite, data in `<data_dir>/pglite`, created first by
 * {@link initEmbeddedDataDir} when absent) served on a loopback TCP port by
 * @electric-sql/pglite-socket, so the same `postgres` client, migrations and queries work as
 * with a real server (README: one command on a fresh machine). Single instance only: LISTEN/
 * NOTIFY does not deliver through the socket.
 */
export async function startEmbeddedPostgres(data_dir: string, options: EmbeddedOptions = {}): Promise<EmbeddedPostgres> {
  const dir = resolve(join(data_dir, 'pglite'));
  await initEmbeddedDataDir(dir);
  const db = await PGlite.create(dir, {
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${options.shared_buffers_mb ?? 16}MB`],
  });
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: options.max_connections ?? 10 });
  await server.start();
  const [, port] = server.getServerConn().split(':');
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async close() {
      await server.stop();
      await db.close();
    },
  };
}
