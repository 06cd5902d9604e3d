import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/** A running embedded Postgres: its connection URL and how to stop it. */
export interface EmbeddedPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`, for the ordinary `postgres` client. */
  url: string;
  /** Stop the socket server and close the database (flushes data to disk). */
  close(): Promise<void>;
}

/**
 * Start an embedded Postgres (PGlite, data in `<data_dir>/pglite`) served on a loopback TCP port
 * by @electric-sql/pglite-socket, so the same `postgres` client, migrations and queries work as
 * with a real server (README: one command on a fresh machine). Single instance only: LISTEN/
 * NOTIFY does not deliver through the socket.
 * @param max_connections concurrent client connections the socket server accepts (pool size)
 */
export async function startEmbeddedPostgres(data_dir: string, max_connections = 10): Promise<EmbeddedPostgres> {
  const dir = resolve(join(data_dir, 'pglite'));
  await mkdir(dir, { recursive: true });
  const db = await PGlite.create(dir);
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: max_connections });
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
