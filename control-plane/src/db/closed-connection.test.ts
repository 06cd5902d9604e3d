import t from 'tap';
import { testDatabase } from '../test-support/db.js';
import { connect } from './sql.js';

// A connection whose backend goes away (a Postgres restart, a failover, pg_terminate_backend): a
// statement written to it afterwards must fail with CONNECTION_CLOSED. Unpatched, `postgres` 3.4.9
// queued the write on a timer and, finding the socket gone, threw from that timer: an uncaught
// TypeError that ended the whole control plane (porsager/postgres#1154, #1208). A reserved
// connection shows it at once, because the pool cannot rotate it away.

t.test('a statement on a connection whose backend was terminated fails; the process lives on', async (t) => {
  const { url, sql: observer } = await testDatabase(t);
  const sql = connect(url, 2);
  t.teardown(() => sql.end({ timeout: 5 }));
  const reserved = await sql.reserve();
  t.teardown(() => reserved.release());
  const [row] = await reserved<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
  await observer`SELECT pg_terminate_backend(${row!.pid})`;
  // The backend is gone once pg_stat_activity no longer lists it (bounded; the server is local).
  for (let i = 0; i < 200; i++) {
    const [left] = await observer<{ n: number }[]>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = ${row!.pid}`;
    if (left!.n === 0) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  for (const attempt of [1, 2]) {
    await t.rejects(reserved`SELECT 1`, { code: 'CONNECTION_CLOSED' }, `statement ${attempt} on the dead connection is refused`);
  }
  // The pool's other connection still answers: nothing else was disturbed.
  t.match(await sql`SELECT 1 AS one`, [{ one: 1 }], 'the pool still answers');
});
