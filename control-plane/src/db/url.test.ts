import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import t from 'tap';
import { TEST_DATABASE_URL } from '../test-support/db.js';
import { connect } from './sql.js';
import { databaseTarget } from './url.js';

t.test('libpq forms of a socket directory become the host option', async (t) => {
  t.same(databaseTarget('postgres://vantage@/vantage?host=/var/run/postgresql'), { url: 'postgres://vantage@localhost/vantage', host: '/var/run/postgresql' });
  t.same(databaseTarget('postgresql:///vantage?host=%2Fvar%2Frun%2Fpostgresql&port=5433&sslmode=disable'), { url: 'postgresql://localhost/vantage?sslmode=disable', host: '/var/run/postgresql', port: 5433 });
  t.same(databaseTarget('postgres://u:p@%2Fvar%2Frun%2Fpostgresql:5433/vantage'), { url: 'postgres://u:p@localhost:5433/vantage', host: '/var/run/postgresql' });
  t.same(databaseTarget('postgres://db.example.com:5432/vantage?sslmode=require'), { url: 'postgres://db.example.com:5432/vantage?sslmode=require' }, 'a plain URL is left as it is');
  t.same(databaseTarget('postgres://db:5432/vantage?host=db2.example.com'), { url: 'postgres://localhost:5432/vantage', host: 'db2.example.com' }, 'a host name in ?host= wins, as in libpq');
  t.same(databaseTarget('postgres://u@[::1]/vantage?host=/run/pg'), { url: 'postgres://u@localhost/vantage', host: '/run/pg' }, 'an IPv6 literal without a port');
  t.same(databaseTarget('postgres://u@[::1]:5433/vantage'), { url: 'postgres://u@[::1]:5433/vantage' });
  t.same(databaseTarget('postgres://a:5432,b:5433/vantage'), { url: 'postgres://a:5432,b:5433/vantage' }, 'several hosts are left to postgres');
  t.throws(() => databaseTarget('postgres:///vantage?host=/run/pg&port=54x'), /port=54x is not a port number/);
  t.throws(() => databaseTarget('postgres:///vantage?port=70000'), /port=70000/);
});

/**
 * A Unix socket named the way Postgres names its own (`<dir>/.s.PGSQL.<port>`) that forwards to the
 * test server over TCP: the test server's pg_hba may not trust local connections from this user,
 * so the client's side of the socket is what is tested, against the real server behind it.
 */
async function socketDirectory(t: { teardown(fn: () => unknown): void }, port: number): Promise<{ dir: string; accepted: () => number }> {
  const dir = mkdtempSync(join(tmpdir(), 'vantage-pgsock-'));
  const target = new URL(TEST_DATABASE_URL);
  let accepted = 0;
  const server: Server = createServer((client) => {
    accepted += 1;
    const upstream = createConnection({ host: target.hostname, port: Number(target.port || 5432) });
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(join(dir, `.s.PGSQL.${port}`), resolve));
  t.teardown(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { dir, accepted: () => accepted };
}

t.test('connect reaches the server through a socket named by ?host= or by an encoded host', async (t) => {
  const db = new URL(TEST_DATABASE_URL);
  const user = decodeURIComponent(db.username) || 'postgres';
  const database = db.pathname.slice(1);
  const { dir, accepted } = await socketDirectory(t, 6543);
  const log = pino({ level: 'silent' });
  const urls = [
    `postgres://${user}@/${database}?host=${dir}&port=6543`,
    `postgresql://${user}@${encodeURIComponent(dir)}:6543/${database}`,
  ];
  for (const url of urls) {
    const sql = connect(url, 1, log);
    const [row] = await sql<Array<{ db: string }>>`SELECT current_database() AS db`;
    await sql.end({ timeout: 5 });
    t.equal(row?.db, database, url);
  }
  t.equal(accepted(), 2, 'both connections came through the socket');
});
